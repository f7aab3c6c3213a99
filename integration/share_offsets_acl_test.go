package integration

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestACLShareGroupOffsets: the share-offsets admin APIs check Kafka
// 4.4's ACLs: DESCRIBE on the group and the topics to describe (a named
// topic refused comes last, TOPIC_AUTHORIZATION_FAILED; with all topics
// asked for it is left out), READ on the group to alter, DELETE to
// delete, READ on each topic to alter or delete.
func TestACLShareGroupOffsets(t *testing.T) {
	w := startACLWorld(t, "sa-a", "sa-b")
	const group = "sg-acl"
	alter := func(cl *kgo.Client) *kmsg.AlterShareGroupOffsetsResponse {
		req := kmsg.NewPtrAlterShareGroupOffsetsRequest()
		req.GroupID = group
		for _, topic := range []string{"sa-a", "sa-b"} {
			req.Topics = append(req.Topics, kmsg.AlterShareGroupOffsetsRequestTopic{Topic: topic,
				Partitions: []kmsg.AlterShareGroupOffsetsRequestTopicPartition{{Partition: 0, StartOffset: 0}}})
		}
		return request[*kmsg.AlterShareGroupOffsetsResponse](t, cl, req)
	}
	describe := func(cl *kgo.Client, named bool) kmsg.DescribeShareGroupOffsetsResponseGroup {
		req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
		rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
		rg.GroupID = group
		if named {
			rg.Topics = []kmsg.DescribeShareGroupOffsetsRequestGroupTopic{{Topic: "sa-b", Partitions: []int32{0}}, {Topic: "sa-a", Partitions: []int32{0}}}
		}
		req.Groups = []kmsg.DescribeShareGroupOffsetsRequestGroup{rg}
		return request[*kmsg.DescribeShareGroupOffsetsResponse](t, cl, req).Groups[0]
	}
	del := func(cl *kgo.Client) *kmsg.DeleteShareGroupOffsetsResponse {
		req := kmsg.NewPtrDeleteShareGroupOffsetsRequest()
		req.GroupID = group
		req.Topics = []kmsg.DeleteShareGroupOffsetsRequestTopic{{Topic: "sa-b"}, {Topic: "sa-a"}}
		return request[*kmsg.DeleteShareGroupOffsetsResponse](t, cl, req)
	}
	if got, want := alterLine(alter(w.admin)), `0 "<nil>": sa-a:0=0 sa-b:0=0`; got != want {
		t.Fatalf("admin's alter: %s, want %s", got, want)
	}
	w.grant(t, allowAlice().Groups(group).Operations(kadm.OpDescribe, kadm.OpRead))
	w.grant(t, allowAlice().Topics("sa-a").Operations(kadm.OpRead))

	if got, want := offsetsLine(describe(w.bob, true)), "error 30 "; got != want {
		t.Fatalf("bob's describe: %q, want %q", got, want)
	}
	if got, want := offsetsLine(describe(w.alice, true)), "sa-a:0=0/0 sa-b:0=-1/-1!29(no id) "; got != want {
		t.Fatalf("alice's describe: %q, want %q", got, want)
	}
	if got, want := offsetsLine(describe(w.alice, false)), "sa-a:0=0/0 "; got != want {
		t.Fatalf("alice's describe of all topics: %q, want %q", got, want)
	}
	if got, want := offsetsLine(describe(w.admin, false)), "sa-a:0=0/0 sa-b:0=0/0 "; got != want {
		t.Fatalf("admin's describe of all topics: %q, want %q", got, want)
	}
	if got, want := alterLine(alter(w.bob)), `30 "Not authorized to access group: Group authorization failed.":`; got != want {
		t.Fatalf("bob's alter: %s, want %s", got, want)
	}
	if got, want := alterLine(alter(w.alice)), `0 "<nil>": sa-a:0=0 sa-b:0=29`; got != want {
		t.Fatalf("alice's alter: %s, want %s", got, want)
	}
	if got := deleteLine(del(w.alice)); got[:3] != "30 " {
		t.Fatalf("alice's delete without DELETE on the group: %s", got)
	}
	w.grant(t, allowAlice().Groups(group).Operations(kadm.OpDelete))
	if got, want := deleteLine(del(w.alice)), `0 "<nil>": sa-a=0 "<nil>" sa-b=29 "Not authorized to access topics: [Topic authorization failed.]"`; got != want {
		t.Fatalf("alice's delete: %s, want %s", got, want)
	}
}
