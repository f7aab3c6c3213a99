package metadata

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

var testNode = Node{ID: 1, DirectoryID: did, DefaultPartitions: 3, DefaultReplicationFactor: 1}

func wantCode(t *testing.T, err error, code *kerr.Error, msgPart string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("error %v, want %s", err, code.Message)
	}
	if ErrorCode(err) != code.Code {
		t.Fatalf("code %d, want %d", ErrorCode(err), code.Code)
	}
	if msgPart != "" {
		if m := ErrorMessage(err); m == nil || !strings.Contains(*m, msgPart) {
			t.Fatalf("message %v does not contain %q", m, msgPart)
		}
	}
}

// registeredImage holds testNode's registration, as every image a
// running node serves does (ActivationRecords).
func registeredImage(t *testing.T) *Image {
	t.Helper()
	return mustReplay(t, EmptyImage(), &RegisterBrokerRecord{Version: 3, BrokerID: testNode.ID, BrokerEpoch: SingleNodeBrokerEpoch})
}

func create(t *testing.T, img *Image, req CreateTopicRequest) *Image {
	t.Helper()
	recs, _, err := img.CreateTopic(testNode, req)
	if err != nil {
		t.Fatal(err)
	}
	return mustReplay(t, img, recs...)
}

func TestValidateTopicName(t *testing.T) {
	long := strings.Repeat("a", 249)
	for name, ok := range map[string]bool{
		"": false, ".": false, "..": false, "...": true, long: true, long + "a": false,
		"a-b_c.D9": true, "a b": false, "a/b": false, "é": false, "a\x00": false,
	} {
		if got := ValidateTopicName(name) == ""; got != ok {
			t.Errorf("%q: valid=%v, want %v", name, got, ok)
		}
	}
	// Length is counted in UTF-16 units before characters are checked.
	if r := ValidateTopicName(strings.Repeat("é", 200)); !strings.Contains(r, "ASCII") {
		t.Errorf("200 × é: %s", r)
	}
	if r := ValidateTopicName(strings.Repeat("😀", 125)); !strings.Contains(r, "max allowed length") {
		t.Errorf("125 × 😀: %s", r)
	}
}

func TestCreateTopic(t *testing.T) {
	img := mustReplay(t, registeredImage(t), &FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MaxMetadataVersion})
	recs, id, err := img.CreateTopic(testNode, CreateTopicRequest{Name: "t", NumPartitions: -1, ReplicationFactor: -1,
		Configs: map[string]*string{"retention.ms": strp("5"), "cleanup.policy": strp("compact")}})
	if err != nil {
		t.Fatal(err)
	}
	if img.TopicCount() != 0 {
		t.Fatal("operation mutated the image")
	}
	// Kafka's order: TopicRecord, ConfigRecords, PartitionRecords.
	var kinds []int16
	for _, r := range recs {
		kinds = append(kinds, r.APIKey())
	}
	if fmt.Sprint(kinds) != fmt.Sprint([]int16{KeyTopic, KeyConfig, KeyConfig, KeyPartition, KeyPartition, KeyPartition}) {
		t.Fatalf("record kinds %v", kinds)
	}
	if !id.acceptable() {
		t.Fatalf("topic id %s", id)
	}
	img2 := mustReplay(t, img, recs...)
	top := mustTopic(t, img2, "t")
	if top.ID != id || len(top.Partitions) != 3 || img2.TopicConfigs("t")["retention.ms"] != "5" {
		t.Fatalf("topic %+v", top)
	}
	for _, r := range recs[3:] {
		if p := r.(*PartitionRecord); p.Version != 2 || p.Leader != 1 || p.Directories[0] != did {
			t.Fatalf("partition record %+v", p)
		}
	}

	// Unknown directory is recorded as DirectoryId.UNASSIGNED.
	recs, _, _ = mustReplay(t, img, &RegisterBrokerRecord{Version: 3, BrokerID: 4}).CreateTopic(Node{ID: 4, DefaultPartitions: 1, DefaultReplicationFactor: 1}, CreateTopicRequest{Name: "u", NumPartitions: -1, ReplicationFactor: -1})
	if p := recs[1].(*PartitionRecord); p.Directories[0] != MetadataTopicID || p.Replicas[0] != 4 {
		t.Fatalf("partition record %+v", p)
	}
}

// A log kept at an older metadata.version gets the record versions Kafka
// writes at that level, so the Kafka release that formatted it reads them.
func TestPartitionRecordVersionFollowsMetadataVersion(t *testing.T) {
	for mv, want := range map[int16]int16{7: 0, 16: 0, 17: 1, 22: 1, 23: 2, 27: 2, 33: 2} {
		img := mustReplay(t, registeredImage(t), &FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: mv})
		recs, _, err := img.CreateTopic(testNode, CreateTopicRequest{Name: "t", NumPartitions: 1, ReplicationFactor: 1})
		if err != nil {
			t.Fatal(err)
		}
		p := recs[1].(*PartitionRecord)
		if p.Version != want {
			t.Errorf("metadata.version %d: PartitionRecord v%d, want v%d", mv, p.Version, want)
		}
		dec, err := Decode(Encode(p))
		if err != nil || dec.(*PartitionRecord).PartitionID != 0 {
			t.Errorf("metadata.version %d: %v", mv, err)
		}
	}
	for mv, want := range map[int16]int16{7: 1, 8: 2, 17: 3, 27: 3, 29: 3, 30: 4, 33: 4} {
		img := mustReplay(t, registeredImage(t), &FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: mv})
		if r := img.registration(testNode); r.Version != want {
			t.Errorf("metadata.version %d: RegisterBrokerRecord v%d, want v%d", mv, r.Version, want)
		}
	}
}

func TestCreateTopicErrors(t *testing.T) {
	img := create(t, registeredImage(t), CreateTopicRequest{Name: "a.b", NumPartitions: 1, ReplicationFactor: 1})
	cases := []struct {
		req  CreateTopicRequest
		code *kerr.Error
		msg  string
	}{
		{CreateTopicRequest{Name: "a.b", NumPartitions: 1, ReplicationFactor: 1}, kerr.TopicAlreadyExists, "Topic 'a.b' already exists."},
		{CreateTopicRequest{Name: "a_b", NumPartitions: 1, ReplicationFactor: 1}, kerr.InvalidTopicException, "Topic 'a_b' collides with existing topic: a.b"},
		{CreateTopicRequest{Name: "..", NumPartitions: 1, ReplicationFactor: 1}, kerr.InvalidTopicException, "'..' is not allowed"},
		{CreateTopicRequest{Name: "", NumPartitions: 1, ReplicationFactor: 1}, kerr.InvalidTopicException, "empty string"},
		{CreateTopicRequest{Name: strings.Repeat("x", 250), NumPartitions: 1, ReplicationFactor: 1}, kerr.InvalidTopicException, "max allowed length 249"},
		{CreateTopicRequest{Name: "a b", NumPartitions: 1, ReplicationFactor: 1}, kerr.InvalidTopicException, "ASCII alphanumerics"},
		{CreateTopicRequest{Name: "__cluster_metadata", NumPartitions: 1, ReplicationFactor: 1}, kerr.InvalidRequest, "prohibited"},
		{CreateTopicRequest{Name: "x", NumPartitions: 0, ReplicationFactor: 1}, kerr.InvalidPartitions, "non-positive"},
		{CreateTopicRequest{Name: "x", NumPartitions: -2, ReplicationFactor: 1}, kerr.InvalidPartitions, ""},
		{CreateTopicRequest{Name: "x", NumPartitions: 1, ReplicationFactor: 0}, kerr.InvalidReplicationFactor, "larger than 0"},
		{CreateTopicRequest{Name: "x", NumPartitions: 10000, ReplicationFactor: 1}, kerr.PolicyViolation, "excessively large"},
		// Refused before anything is sized by the count.
		{CreateTopicRequest{Name: "x", NumPartitions: math.MaxInt32, ReplicationFactor: 1}, kerr.PolicyViolation, "excessively large"},
		{CreateTopicRequest{Name: "x", NumPartitions: -1, ReplicationFactor: -1, Assignments: []PartitionAssignment{{0, []int32{1}}, {math.MaxInt32, []int32{1}}}}, kerr.InvalidReplicaAssignment, "consecutive 0-based"},
		{CreateTopicRequest{Name: "x", NumPartitions: -1, ReplicationFactor: -1, Assignments: []PartitionAssignment{{0, []int32{1}}, {0, []int32{1}}}}, kerr.InvalidReplicaAssignment, "multiple manual partition assignments for partition 0"},
		{CreateTopicRequest{Name: "x", NumPartitions: 1, ReplicationFactor: 3}, kerr.InvalidReplicationFactor, "only 1 broker(s) are registered"},
		{CreateTopicRequest{Name: "x", NumPartitions: 1, ReplicationFactor: -1, Assignments: []PartitionAssignment{{0, []int32{1}}}}, kerr.InvalidRequest, "numPartitions"},
		{CreateTopicRequest{Name: "x", NumPartitions: -1, ReplicationFactor: 1, Assignments: []PartitionAssignment{{0, []int32{1}}}}, kerr.InvalidRequest, "replication factor"},
		{CreateTopicRequest{Name: "x", NumPartitions: -1, ReplicationFactor: -1, Assignments: []PartitionAssignment{{0, []int32{2}}}}, kerr.InvalidReplicaAssignment, "broker 2"},
		{CreateTopicRequest{Name: "x", NumPartitions: -1, ReplicationFactor: -1, Assignments: []PartitionAssignment{{0, []int32{1, 1}}}}, kerr.InvalidReplicaAssignment, "more than once"},
	}
	for _, c := range cases {
		t.Run(c.req.Name, func(t *testing.T) {
			_, _, err := img.CreateTopic(testNode, c.req)
			wantCode(t, err, c.code, c.msg)
		})
	}
	// Manual assignment of this node works.
	recs, _, err := img.CreateTopic(testNode, CreateTopicRequest{Name: "m", NumPartitions: -1, ReplicationFactor: -1, Assignments: []PartitionAssignment{{0, []int32{1}}, {1, []int32{1}}}})
	if err != nil || len(recs) != 3 {
		t.Fatalf("manual assignment: %v %d records", err, len(recs))
	}
	// The config schema refuses unknown keys with INVALID_CONFIG.
	node := testNode
	node.Configs = testSchema{}
	_, _, err = img.CreateTopic(node, CreateTopicRequest{Name: "c", NumPartitions: 1, ReplicationFactor: 1, Configs: map[string]*string{"bogus": strp("1")}})
	wantCode(t, err, kerr.InvalidConfig, "Unknown topic config name: bogus")
	_, _, err = img.CreateTopic(node, CreateTopicRequest{Name: "c", NumPartitions: 1, ReplicationFactor: 1, Configs: map[string]*string{"b": nil, "a": nil}})
	wantCode(t, err, kerr.InvalidConfig, "Null value not supported for topic configs: a,b")
}

func TestDeleteTopic(t *testing.T) {
	img := create(t, registeredImage(t), CreateTopicRequest{Name: "t", NumPartitions: 1, ReplicationFactor: 1})
	img = create(t, img, CreateTopicRequest{Name: ConsumerOffsetsTopic, NumPartitions: 1, ReplicationFactor: 1})
	img = create(t, img, CreateTopicRequest{Name: TransactionStateTopic, NumPartitions: 1, ReplicationFactor: 1})

	_, _, err := img.DeleteTopic("nope")
	wantCode(t, err, kerr.UnknownTopicOrPartition, "")
	_, _, err = img.DeleteTopicByID(did)
	wantCode(t, err, kerr.UnknownTopicID, "")
	for _, internal := range []string{ConsumerOffsetsTopic, TransactionStateTopic} {
		if recs, _, err := img.DeleteTopic(internal); err != nil || len(recs) != 1 {
			t.Fatalf("deleting %s: %v %v; Kafka deletes it", internal, recs, err)
		}
	}

	id := mustTopic(t, img, "t").ID
	recs, name, err := img.DeleteTopicByID(id)
	if err != nil || name != "t" || len(recs) != 1 || recs[0].(*RemoveTopicRecord).TopicID != id {
		t.Fatalf("delete: %v %q %v", err, name, recs)
	}
	img = mustReplay(t, img, recs...)
	if _, ok := img.Topic("t"); ok {
		t.Fatal("topic survived")
	}
}

func TestCreatePartitions(t *testing.T) {
	img := create(t, registeredImage(t), CreateTopicRequest{Name: "t", NumPartitions: 2, ReplicationFactor: 1})
	_, err := img.CreatePartitions(testNode, "nope", 3, nil)
	wantCode(t, err, kerr.UnknownTopicOrPartition, "")
	_, err = img.CreatePartitions(testNode, "t", 2, nil)
	wantCode(t, err, kerr.InvalidPartitions, "Topic already has 2 partition(s).")
	_, err = img.CreatePartitions(testNode, "t", 1, nil)
	wantCode(t, err, kerr.InvalidPartitions, "The topic t currently has 2 partition(s); 1 would not be an increase.")
	_, err = img.CreatePartitions(testNode, "t", 4, [][]int32{{1}})
	wantCode(t, err, kerr.InvalidReplicaAssignment, "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.")
	_, err = img.CreatePartitions(testNode, "t", 3, [][]int32{{9}})
	wantCode(t, err, kerr.InvalidReplicaAssignment, "broker 9")

	recs, err := img.CreatePartitions(testNode, "t", 5, nil)
	if err != nil || len(recs) != 3 || recs[0].(*PartitionRecord).PartitionID != 2 {
		t.Fatalf("create partitions: %v %v", err, recs)
	}
	if top := mustTopic(t, mustReplay(t, img, recs...), "t"); len(top.Partitions) != 5 {
		t.Fatalf("%d partitions", len(top.Partitions))
	}
}

func TestAlterConfigs(t *testing.T) {
	img := create(t, registeredImage(t), CreateTopicRequest{Name: "t", NumPartitions: 1, ReplicationFactor: 1,
		Configs: map[string]*string{"retention.ms": strp("1"), "cleanup.policy": strp("delete")}})
	topic := ConfigResource{ConfigResourceTopic, "t"}

	_, err := img.IncrementalAlterConfigs(testNode, ConfigResource{ConfigResourceTopic, "nope"}, nil)
	wantCode(t, err, kerr.UnknownTopicOrPartition, "The topic 'nope' does not exist.")
	_, err = img.IncrementalAlterConfigs(testNode, ConfigResource{ConfigResourceBroker, "x"}, nil)
	wantCode(t, err, kerr.InvalidRequest, "Invalid broker name x")
	_, err = img.IncrementalAlterConfigs(testNode, ConfigResource{ConfigResourceBroker, "7"}, nil)
	wantCode(t, err, kerr.BrokerIDNotRegistered, "No node with id 7 found.")
	_, err = img.IncrementalAlterConfigs(testNode, ConfigResource{3, "x"}, nil)
	wantCode(t, err, kerr.InvalidRequest, "")
	_, err = img.IncrementalAlterConfigs(testNode, topic, []ConfigOp{{Key: "cleanup.policy", Op: ConfigAppend, Value: strp("compact")}})
	wantCode(t, err, kerr.InvalidConfig, "Can't APPEND to key cleanup.policy because its type is not LIST.")

	node := testNode
	node.Configs = testSchema{}
	recs, err := img.IncrementalAlterConfigs(node, topic, []ConfigOp{
		{Key: "retention.ms", Op: ConfigSet, Value: strp("1")}, // unchanged: no record
		{Key: "segment.ms", Op: ConfigSet, Value: strp("9")},
		{Key: "cleanup.policy", Op: ConfigAppend, Value: strp("compact")},
		{Key: "absent", Op: ConfigDelete}, // nothing to delete: no record
	})
	if err != nil || len(recs) != 2 {
		t.Fatalf("incremental: %v %v", err, recs)
	}
	img2 := mustReplay(t, img, recs...)
	if c := img2.TopicConfigs("t"); c["segment.ms"] != "9" || c["cleanup.policy"] != "delete,compact" || c["retention.ms"] != "1" {
		t.Fatalf("configs %v", c)
	}

	recs, err = img2.IncrementalAlterConfigs(node, topic, []ConfigOp{{Key: "cleanup.policy", Op: ConfigSubtract, Value: strp("delete")}})
	if err != nil {
		t.Fatal(err)
	}
	if c := mustReplay(t, img2, recs...).TopicConfigs("t"); c["cleanup.policy"] != "compact" {
		t.Fatalf("configs %v", c)
	}

	// Legacy AlterConfigs replaces everything.
	recs, err = img2.AlterConfigs(testNode, topic, map[string]string{"segment.ms": "10"})
	if err != nil {
		t.Fatal(err)
	}
	if c := mustReplay(t, img2, recs...).TopicConfigs("t"); len(c) != 1 || c["segment.ms"] != "10" {
		t.Fatalf("configs %v", c)
	}

	// APPEND to an unset list starts from the default.
	recs, err = img.IncrementalAlterConfigs(node, ConfigResource{ConfigResourceTopic, "t"}, []ConfigOp{{Key: "segment.ms", Op: ConfigDelete}, {Key: "cleanup.policy", Op: ConfigDelete}, {Key: "cleanup.policy", Op: ConfigAppend, Value: strp("compact")}})
	if err != nil {
		t.Fatal(err)
	}
	if c := mustReplay(t, img, recs...).TopicConfigs("t"); c["cleanup.policy"] != "delete,compact" {
		t.Fatalf("configs %v", c)
	}
	// Validation sees the resulting config set.
	_, err = img.IncrementalAlterConfigs(node, topic, []ConfigOp{{Key: "bogus", Op: ConfigSet, Value: strp("1")}})
	wantCode(t, err, kerr.InvalidConfig, "bogus")

	// Cluster-default and this node's broker configs; unchanged broker
	// values still produce a record, as in Kafka.
	recs, err = img.IncrementalAlterConfigs(testNode, ConfigResource{ConfigResourceBroker, ""}, []ConfigOp{{Key: "log.retention.ms", Op: ConfigSet, Value: strp("7")}})
	if err != nil {
		t.Fatal(err)
	}
	img3 := mustReplay(t, img, recs...)
	if img3.BrokerConfigs("")["log.retention.ms"] != "7" {
		t.Fatal("broker default not set")
	}
	recs, err = img3.IncrementalAlterConfigs(testNode, ConfigResource{ConfigResourceBroker, ""}, []ConfigOp{{Key: "log.retention.ms", Op: ConfigSet, Value: strp("7")}})
	if err != nil || len(recs) != 1 {
		t.Fatalf("unchanged broker config: %v %v", err, recs)
	}
	if _, err := img.IncrementalAlterConfigs(testNode, ConfigResource{ConfigResourceBroker, "1"}, nil); err != nil {
		t.Fatalf("this node's broker resource: %v", err)
	}
}

// testSchema knows three topic keys; cleanup.policy is a list.
type testSchema struct{}

func (testSchema) Validate(res ConfigResource, configs map[string]string) error {
	for k := range configs {
		switch k {
		case "retention.ms", "segment.ms", "cleanup.policy":
		default:
			return fmt.Errorf("Unknown topic config name: %s", k)
		}
	}
	return nil
}

func (testSchema) IsList(_ ConfigResource, key string) bool { return key == "cleanup.policy" }

func (testSchema) Default(_ ConfigResource, key string) (string, bool) {
	if key == "cleanup.policy" {
		return "delete", true
	}
	return "", false
}

func TestAllocateProducerIDs(t *testing.T) {
	img := EmptyImage()
	recs, first, err := img.AllocateProducerIDs(1, -1)
	if err != nil || first != 0 || recs[0].(*ProducerIDsRecord).NextProducerID != ProducerIDBlockSize {
		t.Fatalf("first block: %v %d", err, first)
	}
	img = mustReplay(t, img, recs...)
	_, first, _ = img.AllocateProducerIDs(1, -1)
	if first != ProducerIDBlockSize {
		t.Fatalf("second block starts at %d", first)
	}
	img = mustReplay(t, img, &RegisterBrokerRecord{BrokerID: 1, BrokerEpoch: 5})
	_, _, err = img.AllocateProducerIDs(1, 4)
	wantCode(t, err, kerr.StaleBrokerEpoch, "")
	full := mustReplay(t, img, &ProducerIDsRecord{NextProducerID: 1<<63 - 10})
	_, _, err = full.AllocateProducerIDs(1, 5)
	wantCode(t, err, kerr.UnknownServerError, "Exhausted")
}

// The order Java iterates a HashMap of these names in (printed by a
// HashMap<String, Short> filled in this order).
func TestJavaHashMapOrder(t *testing.T) {
	names := []string{"transaction.version", "nope", "group.version", "metadata.version", "eligible.leader.replicas.version",
		"kraft.version", "share.version", "streams.version", "zzz"}
	var updates []FeatureUpdate
	for _, n := range names {
		updates = append(updates, FeatureUpdate{Name: n})
	}
	var got []string
	for _, u := range javaHashMapOrder(updates) {
		got = append(got, u.Name)
	}
	want := "group.version,nope,kraft.version,metadata.version,share.version,streams.version,transaction.version,zzz,eligible.leader.replicas.version"
	if strings.Join(got, ",") != want {
		t.Fatalf("order %s, want %s", strings.Join(got, ","), want)
	}
}

// Placement as Kafka 4.4's controller refuses it: with this node not
// registered (it unregistered itself), a topic or partition placed by the
// controller is INVALID_REPLICATION_FACTOR and a manual assignment names
// the broker; a manual assignment's brokers are checked in id order, so
// the first problem of [2, 1, 1] is the repeated 1.
func TestPlacementNeedsThisNodeRegistered(t *testing.T) {
	img := create(t, registeredImage(t), CreateTopicRequest{Name: "t", NumPartitions: 1, ReplicationFactor: 1})
	_, _, err := img.CreateTopic(testNode, CreateTopicRequest{Name: "u", NumPartitions: -1, ReplicationFactor: -1,
		Assignments: []PartitionAssignment{{Partition: 0, Replicas: []int32{2, 1, 1}}}})
	wantCode(t, err, kerr.InvalidReplicaAssignment, "The manual partition assignment includes the broker 1 more than once.")

	recs, err := img.UnregisterBroker(testNode.ID)
	if err != nil {
		t.Fatal(err)
	}
	gone := mustReplay(t, img, recs...)
	_, _, err = gone.CreateTopic(testNode, CreateTopicRequest{Name: "u", NumPartitions: 2, ReplicationFactor: -1})
	wantCode(t, err, kerr.InvalidReplicationFactor, "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all their log directories cordoned.")
	_, _, err = gone.CreateTopic(testNode, CreateTopicRequest{Name: "u", NumPartitions: -1, ReplicationFactor: -1,
		Assignments: []PartitionAssignment{{Partition: 0, Replicas: []int32{1}}}})
	wantCode(t, err, kerr.InvalidReplicaAssignment, "The manual partition assignment includes broker 1, but no such broker is registered.")
	_, err = gone.CreatePartitions(testNode, "t", 2, nil)
	wantCode(t, err, kerr.InvalidReplicationFactor, "All brokers are currently fenced, or have all their log directories cordoned.")
	_, err = gone.CreatePartitions(testNode, "t", 2, [][]int32{{1}})
	wantCode(t, err, kerr.InvalidReplicaAssignment, "The manual partition assignment includes broker 1, but no such broker is registered.")
}
