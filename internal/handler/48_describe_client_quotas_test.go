package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func strPtr(s string) *string { return &s }

func quotaEntry(key string, value float64, remove bool, entity ...[2]*string) kmsg.AlterClientQuotasRequestEntry {
	e := kmsg.NewAlterClientQuotasRequestEntry()
	for _, c := range entity {
		en := kmsg.NewAlterClientQuotasRequestEntryEntity()
		en.Type, en.Name = *c[0], c[1]
		e.Entity = append(e.Entity, en)
	}
	op := kmsg.NewAlterClientQuotasRequestEntryOp()
	op.Key, op.Value, op.Remove = key, value, remove
	e.Ops = append(e.Ops, op)
	return e
}

func quotaComponent(entityType string, match int8, name *string) kmsg.DescribeClientQuotasRequestComponent {
	c := kmsg.NewDescribeClientQuotasRequestComponent()
	c.EntityType, c.MatchType, c.Match = entityType, kmsg.QuotasMatchType(match), name
	return c
}

// seedQuotas stores what the reference answers were captured from (Kafka
// 4.4.0): {client-id=app, user=alice}, the user default and an ip.
func seedQuotas(t *testing.T, f *adminFixture) {
	t.Helper()
	req := kmsg.NewPtrAlterClientQuotasRequest()
	req.Entries = []kmsg.AlterClientQuotasRequestEntry{
		quotaEntry("producer_byte_rate", 1024, false, [2]*string{strPtr("user"), strPtr("alice")}, [2]*string{strPtr("client-id"), strPtr("app")}),
		quotaEntry("consumer_byte_rate", 2048, false, [2]*string{strPtr("user"), nil}),
		quotaEntry("connection_creation_rate", 5, false, [2]*string{strPtr("ip"), strPtr("127.0.0.1")}),
	}
	resp := f.call(req, 1).(*kmsg.AlterClientQuotasResponse)
	if len(resp.Entries) != 3 {
		t.Fatalf("entries %+v", resp.Entries)
	}
	for _, e := range resp.Entries {
		if e.ErrorCode != 0 {
			t.Fatalf("entry %+v", e)
		}
	}
}

func TestAlterClientQuotasAnswersPerEntity(t *testing.T) {
	f := newAdminFixture(t, nil)
	req := kmsg.NewPtrAlterClientQuotasRequest()
	req.Entries = []kmsg.AlterClientQuotasRequestEntry{
		quotaEntry("producer_byte_rate", 5, false, [2]*string{strPtr("group"), strPtr("x")}),
		quotaEntry("bogus", 5, false, [2]*string{strPtr("user"), strPtr("bob")}),
		quotaEntry("producer_byte_rate", 5, false),
		quotaEntry("producer_byte_rate", 0, true, [2]*string{strPtr("user"), strPtr("dave")}),
		quotaEntry("connection_creation_rate", 5, false, [2]*string{strPtr("ip"), strPtr("no.such.host.invalid")}),
	}
	resp := f.call(req, 0).(*kmsg.AlterClientQuotasResponse)
	want := []struct {
		code int16
		msg  string
	}{
		{kerr.InvalidRequest.Code, "Unhandled client quota entity type: group"},
		{kerr.InvalidRequest.Code, "Invalid configuration key bogus"},
		{kerr.InvalidRequest.Code, "Invalid empty client quota entity"},
		{0, ""},
		{kerr.InvalidRequest.Code, "no.such.host.invalid is not a valid IP or resolvable host."},
	}
	if len(resp.Entries) != len(want) {
		t.Fatalf("entries %+v", resp.Entries)
	}
	for i, w := range want {
		e := resp.Entries[i]
		if e.ErrorCode != w.code || w.code != 0 && (e.ErrorMessage == nil || *e.ErrorMessage != w.msg) || w.code == 0 && e.ErrorMessage != nil {
			t.Errorf("entry %d: %d %v, want %d %q", i, e.ErrorCode, e.ErrorMessage, w.code, w.msg)
		}
	}
	if q := f.store.Image().ClientQuotas(); len(q) != 0 {
		t.Fatalf("stored %+v", q)
	}
}

func TestAlterClientQuotasValidateOnlyStoresNothing(t *testing.T) {
	f := newAdminFixture(t, nil)
	req := kmsg.NewPtrAlterClientQuotasRequest()
	req.ValidateOnly = true
	req.Entries = []kmsg.AlterClientQuotasRequestEntry{quotaEntry("producer_byte_rate", 10, false, [2]*string{strPtr("user"), nil})}
	resp := f.call(req, 1).(*kmsg.AlterClientQuotasResponse)
	if len(resp.Entries) != 1 || resp.Entries[0].ErrorCode != 0 {
		t.Fatalf("entries %+v", resp.Entries)
	}
	if q := f.store.Image().ClientQuotas(); len(q) != 0 {
		t.Fatalf("validate_only stored %+v", q)
	}
}

func TestDescribeClientQuotasFilters(t *testing.T) {
	f := newAdminFixture(t, nil)
	seedQuotas(t, f)
	describe := func(strict bool, comps ...kmsg.DescribeClientQuotasRequestComponent) *kmsg.DescribeClientQuotasResponse {
		req := kmsg.NewPtrDescribeClientQuotasRequest()
		req.Strict, req.Components = strict, comps
		return f.call(req, 1).(*kmsg.DescribeClientQuotasResponse)
	}
	entities := func(resp *kmsg.DescribeClientQuotasResponse) []string {
		var out []string
		for _, e := range resp.Entries {
			s := ""
			for _, c := range e.Entity {
				name := "<default>"
				if c.Name != nil {
					name = *c.Name
				}
				s += c.Type + "=" + name + ";"
			}
			out = append(out, s)
		}
		return out
	}
	cases := []struct {
		name   string
		strict bool
		comps  []kmsg.DescribeClientQuotasRequestComponent
		want   int
		first  string
	}{
		{"all", false, nil, 3, ""},
		{"strict empty", true, nil, 0, ""},
		{"exact user", false, []kmsg.DescribeClientQuotasRequestComponent{quotaComponent("user", quotaMatchExact, strPtr("alice"))}, 1, "client-id=app;user=alice;"},
		{"exact user strict", true, []kmsg.DescribeClientQuotasRequestComponent{quotaComponent("user", quotaMatchExact, strPtr("alice"))}, 0, ""},
		{"default user", false, []kmsg.DescribeClientQuotasRequestComponent{quotaComponent("user", quotaMatchDefault, nil)}, 1, "user=<default>;"},
		{"specified user", false, []kmsg.DescribeClientQuotasRequestComponent{quotaComponent("user", quotaMatchSpecified, nil)}, 2, ""},
		{"specified ip strict", true, []kmsg.DescribeClientQuotasRequestComponent{quotaComponent("ip", quotaMatchSpecified, nil)}, 1, "ip=127.0.0.1;"},
	}
	for _, c := range cases {
		resp := describe(c.strict, c.comps...)
		got := entities(resp)
		if resp.ErrorCode != 0 || len(got) != c.want || c.first != "" && got[0] != c.first {
			t.Errorf("%s: error %d entities %v, want %d first %q", c.name, resp.ErrorCode, got, c.want, c.first)
		}
	}
	resp := describe(false, quotaComponent("user", quotaMatchExact, strPtr("alice")))
	if v := resp.Entries[0].Values; len(v) != 1 || v[0].Key != "producer_byte_rate" || v[0].Value != 1024 {
		t.Fatalf("values %+v", v)
	}
}

func TestDescribeClientQuotasRefusesBadFilters(t *testing.T) {
	f := newAdminFixture(t, nil)
	cases := []struct {
		comps []kmsg.DescribeClientQuotasRequestComponent
		code  int16
		msg   string
	}{
		{[]kmsg.DescribeClientQuotasRequestComponent{quotaComponent("ip", quotaMatchSpecified, nil), quotaComponent("user", quotaMatchSpecified, nil)}, kerr.InvalidRequest.Code, "Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component."},
		{[]kmsg.DescribeClientQuotasRequestComponent{quotaComponent("group", quotaMatchSpecified, nil)}, kerr.UnsupportedVersion.Code, "Unsupported entity type group"},
		{[]kmsg.DescribeClientQuotasRequestComponent{quotaComponent("", quotaMatchSpecified, nil)}, kerr.InvalidRequest.Code, "Invalid empty entity type."},
		{[]kmsg.DescribeClientQuotasRequestComponent{quotaComponent("user", quotaMatchExact, nil)}, kerr.InvalidRequest.Code, "Request specified MATCH_TYPE_EXACT, but set match string to null."},
		{[]kmsg.DescribeClientQuotasRequestComponent{quotaComponent("user", quotaMatchDefault, strPtr("x"))}, kerr.InvalidRequest.Code, "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."},
		{[]kmsg.DescribeClientQuotasRequestComponent{quotaComponent("user", 7, nil)}, kerr.InvalidRequest.Code, "Unknown match type 7"},
		{[]kmsg.DescribeClientQuotasRequestComponent{quotaComponent("user", quotaMatchSpecified, nil), quotaComponent("user", quotaMatchDefault, nil)}, kerr.InvalidRequest.Code, "Entity type user cannot appear more than once in the filter."},
	}
	for _, c := range cases {
		req := kmsg.NewPtrDescribeClientQuotasRequest()
		req.Components = c.comps
		resp := f.call(req, 0).(*kmsg.DescribeClientQuotasResponse)
		if resp.ErrorCode != c.code || resp.ErrorMessage == nil || *resp.ErrorMessage != c.msg || resp.Entries != nil {
			t.Errorf("%q: got %d %v entries %v", c.msg, resp.ErrorCode, resp.ErrorMessage, resp.Entries)
		}
	}
}
