package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// adminClient starts a broker and returns a franz-go admin client on it.
func adminClient(t *testing.T, opts ...karsttest.Option) (*karsttest.Broker, *kgo.Client, *kadm.Client) {
	t.Helper()
	b := karsttest.Start(t, opts...)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return b, cl, kadm.NewClient(cl)
}

func createAdminTopic(t testing.TB, ctx context.Context, adm *kadm.Client, name string, partitions int32) {
	t.Helper()
	resp, err := adm.CreateTopic(ctx, partitions, 1, nil, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatal(err)
	}
}

func produceN(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, partition int32, n int) {
	t.Helper()
	var rs []*kgo.Record
	for i := range n {
		rs = append(rs, &kgo.Record{Topic: topic, Partition: partition, Value: []byte(fmt.Sprint(i))})
	}
	p, err := kgo.NewClient(kgo.SeedBrokers(cl.OptValue(kgo.SeedBrokers).([]string)...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func TestKadmCreatePartitions(t *testing.T) {
	_, _, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "grow", 1)

	v, err := adm.ValidateCreatePartitions(ctx, 2, "grow")
	if err != nil || v["grow"].Err != nil {
		t.Fatalf("validate: %v %+v", err, v)
	}
	added, err := adm.CreatePartitions(ctx, 2, "grow")
	if err != nil || added["grow"].Err != nil {
		t.Fatalf("create: %v %+v", err, added)
	}
	same, err := adm.UpdatePartitions(ctx, 3, "grow")
	if err != nil || !errors.Is(same["grow"].Err, kerr.InvalidPartitions) {
		t.Fatalf("same count: %v %+v", err, same)
	}
	details, err := adm.ListTopics(ctx, "grow")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(details["grow"].Partitions); n != 3 {
		t.Fatalf("grow has %d partitions after adding 2 to 1", n)
	}
}

func TestKadmDeleteRecords(t *testing.T) {
	_, cl, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "trim", 2)
	produceN(t, ctx, cl, "trim", 0, 10)
	produceN(t, ctx, cl, "trim", 1, 10)

	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: "trim", Partition: 0, At: 6})
	offsets.Add(kadm.Offset{Topic: "trim", Partition: 1, At: -1})
	resp, err := adm.DeleteRecords(ctx, offsets)
	if err != nil {
		t.Fatal(err)
	}
	if r := resp["trim"][0]; r.Err != nil || r.LowWatermark != 6 {
		t.Fatalf("partition 0: %+v", r)
	}
	if r := resp["trim"][1]; r.Err != nil || r.LowWatermark != 10 {
		t.Fatalf("partition 1: %+v", r)
	}
	starts, err := adm.ListStartOffsets(ctx, "trim")
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := starts.Lookup("trim", 0); o.Offset != 6 {
		t.Fatalf("start offset of trim-0 is %d", o.Offset)
	}

	offsets = kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: "trim", Partition: 0, At: 11})
	resp, err = adm.DeleteRecords(ctx, offsets)
	if err != nil {
		t.Fatal(err)
	}
	if r := resp["trim"][0]; !errors.Is(r.Err, kerr.OffsetOutOfRange) {
		t.Fatalf("past the high watermark: %+v", r)
	}

	// A consumer from the start now begins at the new log start.
	c, err := kgo.NewClient(kgo.SeedBrokers(cl.OptValue(kgo.SeedBrokers).([]string)...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"trim": {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fetches := c.PollFetches(ctx)
	if err := fetches.Err(); err != nil {
		t.Fatal(err)
	}
	if rs := fetches.Records(); len(rs) == 0 || rs[0].Offset != 6 {
		t.Fatalf("first record after deletion: %+v", rs)
	}
}

func TestKadmDescribeCluster(t *testing.T) {
	b, cl, adm := adminClient(t)
	ctx := testContext(t)
	m, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Brokers) != 1 || m.Controller != m.Brokers[0].NodeID || m.Cluster == "" {
		t.Fatalf("metadata %+v", m)
	}
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeClusterAuthorizedOperations = true
	kresp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if kresp.ErrorCode != 0 || kresp.ClusterID != m.Cluster || kresp.ControllerID != m.Controller || len(kresp.Brokers) != 1 {
		t.Fatalf("describe cluster %+v", kresp)
	}
	if got := fmt.Sprintf("%s:%d", kresp.Brokers[0].Host, kresp.Brokers[0].Port); got != b.Addr() {
		t.Fatalf("broker endpoint %s, listening on %s", got, b.Addr())
	}
	ops := kadm.DecodeACLOperations(kresp.ClusterAuthorizedOperations)
	if len(ops) != 7 {
		t.Fatalf("cluster operations %v", ops)
	}
}

func TestKadmDescribeTopicPartitions(t *testing.T) {
	_, cl, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "dtp-a", 3)
	createAdminTopic(t, ctx, adm, "dtp-b", 2)
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	req.ResponsePartitionLimit = 2
	var seen []string
	for range 10 {
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				seen = append(seen, fmt.Sprintf("%s-%d", *rt.Topic, p.Partition))
			}
		}
		if resp.NextCursor == nil {
			break
		}
		req.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: resp.NextCursor.Topic, Partition: resp.NextCursor.Partition}
	}
	if fmt.Sprint(seen) != "[dtp-a-0 dtp-a-1 dtp-a-2 dtp-b-0 dtp-b-1]" {
		t.Fatalf("paged through %v", seen)
	}
}

func TestKadmDescribeAllLogDirs(t *testing.T) {
	b, cl, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "sized", 2)
	produceN(t, ctx, cl, "sized", 1, 50)
	dirs, err := adm.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := dirs.Sorted()
	if len(all) != 1 || all[0].Err != nil || all[0].TotalBytes <= 0 || all[0].UsableBytes <= 0 {
		t.Fatalf("log dirs %+v", all)
	}
	if all[0].Dir != b.DataDir() {
		t.Fatalf("dir %q, data dir %q", all[0].Dir, b.DataDir())
	}
	p, ok := all[0].Topics.Lookup("sized", 1)
	if !ok || p.Size == 0 || p.OffsetLag != 0 {
		t.Fatalf("sized-1 %+v (found %v)", p, ok)
	}
}

func TestKadmOffsetForLeaderEpoch(t *testing.T) {
	_, cl, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "epochs", 1)
	produceN(t, ctx, cl, "epochs", 0, 7)
	resp, err := adm.OffsetForLeaderEpoch(ctx, kadm.OffsetForLeaderEpochRequest{"epochs": {0: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if r := resp["epochs"][0]; r.Err != nil || r.LeaderEpoch != 0 || r.EndOffset != 7 {
		t.Fatalf("epochs-0: %+v", r)
	}
}

func describedValue(t *testing.T, rcs kadm.ResourceConfigs, resource, key string) kadm.Config {
	t.Helper()
	rc, err := rcs.On(resource, nil)
	if err != nil || rc.Err != nil {
		t.Fatalf("%s: %v %v %s", resource, err, rc.Err, rc.ErrMessage)
	}
	for _, c := range rc.Configs {
		if c.Key == key {
			return c
		}
	}
	t.Fatalf("%s has no %s", resource, key)
	return kadm.Config{}
}

func TestKadmTopicConfigs(t *testing.T) {
	_, _, adm := adminClient(t)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "conf", 1)

	ms := "3600000"
	resp, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
		{Op: kadm.SetConfig, Name: "retention.ms", Value: &ms},
		{Op: kadm.AppendConfig, Name: "cleanup.policy", Value: kadm.StringPtr("compact")},
	}, "conf")
	if err != nil || resp[0].Err != nil {
		t.Fatalf("alter: %v %+v", err, resp)
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, "conf")
	if err != nil {
		t.Fatal(err)
	}
	if c := describedValue(t, rcs, "conf", "retention.ms"); c.MaybeValue() != ms || c.Source != kmsg.ConfigSourceDynamicTopicConfig || len(c.Synonyms) == 0 {
		t.Fatalf("retention.ms %+v", c)
	}
	if c := describedValue(t, rcs, "conf", "cleanup.policy"); c.MaybeValue() != "delete,compact" {
		t.Fatalf("cleanup.policy %+v", c)
	}
	if c := describedValue(t, rcs, "conf", "segment.bytes"); c.MaybeValue() != "1073741824" || c.Source != kmsg.ConfigSourceDefaultConfig {
		t.Fatalf("segment.bytes %+v", c)
	}

	bad, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: kadm.StringPtr("soon")}}, "conf")
	if err != nil || !errors.Is(bad[0].Err, kerr.InvalidConfig) || bad[0].ErrMessage == "" {
		t.Fatalf("bad value: %v %+v", err, bad)
	}
	v, err := adm.ValidateAlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "retention.ms"}}, "conf")
	if err != nil || v[0].Err != nil {
		t.Fatalf("validate: %v %+v", err, v)
	}

	// The legacy API replaces the whole set.
	state, err := adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "segment.bytes", Value: kadm.StringPtr("2097152")}}, "conf")
	if err != nil || state[0].Err != nil {
		t.Fatalf("alter state: %v %+v", err, state)
	}
	rcs, err = adm.DescribeTopicConfigs(ctx, "conf")
	if err != nil {
		t.Fatal(err)
	}
	if c := describedValue(t, rcs, "conf", "retention.ms"); c.Source != kmsg.ConfigSourceDefaultConfig {
		t.Fatalf("retention.ms after replacing the set %+v", c)
	}
	if c := describedValue(t, rcs, "conf", "segment.bytes"); c.MaybeValue() != "2097152" {
		t.Fatalf("segment.bytes %+v", c)
	}

	missing, err := adm.DescribeTopicConfigs(ctx, "no-such-topic")
	if err == nil && len(missing) == 1 && missing[0].Err == nil {
		t.Fatalf("describing a missing topic: %+v", missing)
	}
}

func TestKadmBrokerConfigs(t *testing.T) {
	_, _, adm := adminClient(t)
	ctx := testContext(t)
	resp, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "log.cleaner.threads", Value: kadm.StringPtr("2")}}, 1)
	if err != nil || resp[0].Err != nil {
		t.Fatalf("alter broker 1: %v %+v", err, resp)
	}
	resp, err = adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "log.retention.ms", Value: kadm.StringPtr("86400000")}})
	if err != nil || resp[0].Err != nil {
		t.Fatalf("alter cluster default: %v %+v", err, resp)
	}
	resp, err = adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "num.partitions", Value: kadm.StringPtr("4")}}, 1)
	if err != nil || !errors.Is(resp[0].Err, kerr.InvalidRequest) {
		t.Fatalf("read-only key: %v %+v", err, resp)
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := describedValue(t, rcs, "1", "log.cleaner.threads"); c.MaybeValue() != "2" || c.Source != kmsg.ConfigSourceDynamicBrokerConfig {
		t.Fatalf("log.cleaner.threads %+v", c)
	}
	if c := describedValue(t, rcs, "1", "log.retention.ms"); c.MaybeValue() != "86400000" || c.Source != kmsg.ConfigSourceDynamicDefaultBrokerConfig {
		t.Fatalf("log.retention.ms %+v", c)
	}
	// A new topic inherits the cluster-wide default.
	createAdminTopic(t, ctx, adm, "inherits", 1)
	trcs, err := adm.DescribeTopicConfigs(ctx, "inherits")
	if err != nil {
		t.Fatal(err)
	}
	if c := describedValue(t, trcs, "inherits", "retention.ms"); c.MaybeValue() != "86400000" || c.Source != kmsg.ConfigSourceDynamicDefaultBrokerConfig {
		t.Fatalf("inherited retention.ms %+v", c)
	}
}
