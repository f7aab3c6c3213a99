package handler

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

// newFeatureStore is a metadata store bootstrapped as a fresh Karst log
// is: Kafka 4.4's default feature levels.
func newFeatureStore(t *testing.T) *metadata.Store {
	t.Helper()
	return openFeatureStore(t, &metadata.MemoryLog{})
}

func openFeatureStore(t *testing.T, log *metadata.MemoryLog) *metadata.Store {
	t.Helper()
	s, err := metadata.OpenStore(log, metadata.StoreOptions{Node: metadata.Node{ID: 1, DefaultPartitions: 1, DefaultReplicationFactor: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func featureCall(t *testing.T, b *Broker, req kmsg.Request, v int16) kmsg.Response {
	t.Helper()
	req.SetVersion(v)
	out := b.Handle(context.Background(), Lookup(req.Key()), &Request{Header: wireHeader(req.Key(), v), Body: req, Conn: &Conn{}})
	return out.Response
}

func finalizedFeatures(t *testing.T, b *Broker) (map[string]int16, int64) {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "test", "1"
	resp := featureCall(t, b, req, 4).(*kmsg.ApiVersionsResponse)
	out := map[string]int16{}
	for _, f := range resp.FinalizedFeatures {
		if f.MinVersionLevel != f.MaxVersionLevel {
			t.Fatalf("%s finalized as a range %d-%d", f.Name, f.MinVersionLevel, f.MaxVersionLevel)
		}
		out[f.Name] = f.MaxVersionLevel
	}
	return out, resp.FinalizedFeaturesEpoch
}

// A log Kafka 4.1 formatted (metadata.version 4.1-IV1, transaction.version
// 0, share.version finalized by a newer Kafka) is reported at its own
// levels, and unsupported features stay unreported.
func TestAPIVersionsReportsTheLogsFeatureLevels(t *testing.T) {
	log := &metadata.MemoryLog{}
	var values [][]byte
	for _, r := range []metadata.Record{
		&metadata.FeatureLevelRecord{Name: metadata.FeatureMetadataVersion, FeatureLevel: metadata.MetadataVersion41IV1},
		&metadata.FeatureLevelRecord{Name: metadata.FeatureGroupVersion, FeatureLevel: 1},
		&metadata.FeatureLevelRecord{Name: metadata.FeatureShareVersion, FeatureLevel: 2},
	} {
		values = append(values, metadata.Encode(r))
	}
	if err := log.AppendRecords(values); err != nil {
		t.Fatal(err)
	}
	b := NewBroker(Options{Metadata: openFeatureStore(t, log)})
	got, epoch := finalizedFeatures(t, b)
	if want := map[string]int16{"metadata.version": 27, "group.version": 1}; !maps.Equal(got, want) {
		t.Fatalf("finalized %v, want %v", got, want)
	}
	// Three records, then Karst's own registration: offset 3.
	if epoch != 3 {
		t.Fatalf("finalized features epoch %d, want 3 (the image's last offset)", epoch)
	}
	if b.transactionVersion2() {
		t.Fatal("transaction.version 0 in the log, but produce would act on 2")
	}
}

func updateFeatures(t *testing.T, b *Broker, v int16, validateOnly bool, updates ...kmsg.UpdateFeaturesRequestFeatureUpdate) *kmsg.UpdateFeaturesResponse {
	t.Helper()
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.FeatureUpdates, req.ValidateOnly = updates, validateOnly
	return featureCall(t, b, req, v).(*kmsg.UpdateFeaturesResponse)
}

func featureUpdate(name string, level int16, typ int8) kmsg.UpdateFeaturesRequestFeatureUpdate {
	u := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
	u.Feature, u.MaxVersionLevel, u.UpgradeType = name, level, typ
	return u
}

// The answers Apache Kafka 4.4.0 gave to the same requests on a node
// formatted at its defaults (validate_only, UpdateFeatures v2).
func TestUpdateFeaturesRefusesAsKafka(t *testing.T) {
	const prefix = "The update failed for all features since the following feature had an error: "
	b := NewBroker(Options{Metadata: newFeatureStore(t)})
	for _, c := range []struct {
		update kmsg.UpdateFeaturesRequestFeatureUpdate
		msg    string // "" for success
	}{
		{featureUpdate("nope.feature", 1, 1), "Invalid update version 1 for feature nope.feature. Local controller 1 does not support this feature."},
		{featureUpdate("transaction.version", 3, 1), "Invalid update version 3 for feature transaction.version. Local controller 1 only supports versions 0-2"},
		{featureUpdate("transaction.version", 1, 1), "Invalid update version 1 for feature transaction.version. Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade."},
		{featureUpdate("transaction.version", 1, 2), ""},
		{featureUpdate("transaction.version", 2, 2), ""},
		{featureUpdate("transaction.version", 2, 1), ""},
		{featureUpdate("transaction.version", -1, 1), "Invalid update version -1 for feature transaction.version. A feature version cannot be less than 0."},
		{featureUpdate("transaction.version", 0, 3), ""},
		{featureUpdate("transaction.version", 2, 0), "Invalid update version 2 for feature transaction.version. The controller does not support the given upgrade type."},
		{featureUpdate("transaction.version", 2, 5), "Invalid update version 2 for feature transaction.version. The controller does not support the given upgrade type."},
		{featureUpdate("metadata.version", 32, 2), "Unsupported metadata.version downgrade from 33 to 32. Refusing to perform the requested downgrade because it might delete metadata information."},
		{featureUpdate("metadata.version", 27, 3), "Unsupported metadata.version downgrade from 33 to 27. Unsafe metadata downgrade is not supported in this version."},
		{featureUpdate("metadata.version", 34, 1), "Invalid update version 34 for feature metadata.version. Local controller 1 only supports versions 7-33"},
		{featureUpdate("metadata.version", 6, 2), "Invalid update version 6 for feature metadata.version. Local controller 1 only supports versions 7-33"},
		{featureUpdate("eligible.leader.replicas.version", 0, 2), ""},
		{featureUpdate("share.version", 0, 2), ""},
	} {
		resp := updateFeatures(t, b, 2, true, c.update)
		name := c.update.Feature
		if c.msg == "" {
			if resp.ErrorCode != 0 || resp.ErrorMessage != nil {
				t.Errorf("%s %d type %d: error %d %v, want success", name, c.update.MaxVersionLevel, c.update.UpgradeType, resp.ErrorCode, resp.ErrorMessage)
			}
			continue
		}
		if resp.ErrorCode != kerr.InvalidUpdateVersion.Code || resp.ErrorMessage == nil || *resp.ErrorMessage != prefix+c.msg {
			t.Errorf("%s %d type %d: error %d %v, want INVALID_UPDATE_VERSION %q", name, c.update.MaxVersionLevel, c.update.UpgradeType, resp.ErrorCode, resp.ErrorMessage, c.msg)
		}
	}
	if got, _ := finalizedFeatures(t, b); got["transaction.version"] != 2 {
		t.Fatalf("validate_only changed transaction.version to %d", got["transaction.version"])
	}
}

func TestUpdateFeaturesWritesLevels(t *testing.T) {
	b := NewBroker(Options{Metadata: newFeatureStore(t)})
	_, before := finalizedFeatures(t, b)

	// v0 has no upgrade type: a lower level is a refused downgrade.
	if resp := updateFeatures(t, b, 0, false, featureUpdate("transaction.version", 1, 2)); resp.ErrorCode != kerr.InvalidUpdateVersion.Code {
		t.Fatalf("v0 downgrade: error %d, want INVALID_UPDATE_VERSION", resp.ErrorCode)
	}
	resp := updateFeatures(t, b, 1, false, featureUpdate("transaction.version", 1, 2), featureUpdate("group.version", 0, 2))
	if resp.ErrorCode != 0 || len(resp.Results) != 2 || resp.Results[0].ErrorMessage == nil || *resp.Results[0].ErrorMessage != "NONE" {
		t.Fatalf("v1 downgrade: %+v", resp)
	}
	got, after := finalizedFeatures(t, b)
	if want := map[string]int16{"metadata.version": 33, "transaction.version": 1, "eligible.leader.replicas.version": 1}; !maps.Equal(got, want) {
		t.Fatalf("finalized %v, want %v", got, want)
	}
	if after <= before {
		t.Fatalf("finalized features epoch %d after the update, %d before", after, before)
	}
	if b.transactionVersion2() {
		t.Fatal("transaction.version 1, but produce acts on 2")
	}
	if resp := updateFeatures(t, b, 2, false, featureUpdate("transaction.version", 2, 1)); resp.ErrorCode != 0 || len(resp.Results) != 0 {
		t.Fatalf("v2 upgrade: %+v", resp)
	}
	if !b.transactionVersion2() {
		t.Fatal("transaction.version back at 2, but produce does not act on it")
	}
}

// ELR depends on metadata.version 4.0-IV1, and enabling it writes the
// cluster min.insync.replicas when there is none.
func TestUpdateFeaturesELR(t *testing.T) {
	store := newFeatureStore(t)
	b := NewBroker(Options{Metadata: store})
	if resp := updateFeatures(t, b, 2, false, featureUpdate("eligible.leader.replicas.version", 0, 2)); resp.ErrorCode != 0 {
		t.Fatalf("disabling ELR: %+v", resp)
	}
	if err := store.IncrementalAlterConfigs(metadata.ConfigResource{Type: metadata.ConfigResourceBroker}, []metadata.ConfigOp{{Key: "min.insync.replicas", Op: metadata.ConfigDelete}}); err != nil {
		t.Fatal(err)
	}
	resp := updateFeatures(t, b, 2, false, featureUpdate("eligible.leader.replicas.version", 1, 1))
	if resp.ErrorCode != 0 {
		t.Fatalf("enabling ELR: %+v", resp)
	}
	if v := store.Image().BrokerConfigs("")["min.insync.replicas"]; v != "1" {
		t.Fatalf("cluster min.insync.replicas %q after enabling ELR, want 1", v)
	}

	low := openFeatureStore(t, logAt(t, metadata.MetadataVersion41IV1-5))
	resp = updateFeatures(t, NewBroker(Options{Metadata: low}), 2, true, featureUpdate("eligible.leader.replicas.version", 1, 1))
	if resp.ErrorMessage == nil || !strings.HasSuffix(*resp.ErrorMessage, "eligible.leader.replicas.version could not be set to 1 because it depends on metadata.version level 23") {
		t.Fatalf("ELR at metadata.version 22: %+v", resp)
	}
}

func logAt(t *testing.T, mv int16) *metadata.MemoryLog {
	t.Helper()
	log := &metadata.MemoryLog{}
	if err := log.AppendRecords([][]byte{metadata.Encode(&metadata.FeatureLevelRecord{Name: metadata.FeatureMetadataVersion, FeatureLevel: mv})}); err != nil {
		t.Fatal(err)
	}
	return log
}

// kraftLog is a metadata log whose quorum is at a kraft.version, as a log
// `kafka-storage format --standalone` made (dynamic quorum) is.
type kraftLog struct {
	*metadata.MemoryLog
	version  int16
	upgrades int
}

func (l *kraftLog) KRaftVersion() int16 { return l.version }

func (l *kraftLog) UpgradeKRaftVersion(level int16) error {
	l.version = level
	l.upgrades++
	return nil
}

func TestKRaftVersionFromTheRaftLog(t *testing.T) {
	s, err := metadata.OpenStore(&kraftLog{MemoryLog: &metadata.MemoryLog{}, version: 1}, metadata.StoreOptions{Node: metadata.Node{ID: 1}})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBroker(Options{Metadata: s})
	if got, _ := finalizedFeatures(t, b); got["kraft.version"] != 1 {
		t.Fatalf("finalized %v, want kraft.version 1", got)
	}
	if resp := updateFeatures(t, b, 2, true, featureUpdate("kraft.version", 1, 1)); resp.ErrorCode != 0 {
		t.Fatalf("kraft.version at its level: %+v", resp)
	}
	// Kafka 4.4.0's answer to a downgrade of a dynamic quorum.
	if resp := updateFeatures(t, b, 2, false, featureUpdate("kraft.version", 0, 2)); resp.ErrorCode != kerr.InvalidUpdateVersion.Code || resp.ErrorMessage == nil ||
		*resp.ErrorMessage != "The update failed for all features since the following feature had an error: Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature." {
		t.Fatalf("kraft.version downgrade: %+v, want INVALID_UPDATE_VERSION", resp)
	}
	if got, _ := finalizedFeatures(t, NewBroker(Options{Metadata: newFeatureStore(t)})); got["kraft.version"] != 0 {
		t.Fatalf("a static quorum finalized kraft.version %d", got["kraft.version"])
	}
}

// As Kafka 4.4.0 with a static quorum (controller.quorum.voters): raising
// kraft.version to 1 succeeds, goes to the raft log and writes no
// FeatureLevelRecord; validate_only changes nothing; a second upgrade to 1
// is a no-op.
func TestKRaftVersionUpgradeOfAStaticQuorum(t *testing.T) {
	log := &kraftLog{MemoryLog: logAt(t, metadata.MaxMetadataVersion)}
	s, err := metadata.OpenStore(log, metadata.StoreOptions{Node: metadata.Node{ID: 1}})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBroker(Options{Metadata: s})
	records := log.LastOffset()
	if resp := updateFeatures(t, b, 2, true, featureUpdate("kraft.version", 1, 1)); resp.ErrorCode != 0 || log.version != 0 {
		t.Fatalf("validate only: %+v, kraft.version %d", resp, log.version)
	}
	for range 2 {
		if resp := updateFeatures(t, b, 2, false, featureUpdate("kraft.version", 1, 1)); resp.ErrorCode != 0 {
			t.Fatalf("upgrade: %+v", resp)
		}
	}
	if log.version != 1 || log.upgrades != 1 || log.LastOffset() != records {
		t.Fatalf("kraft.version %d after %d upgrades, %d metadata records written", log.version, log.upgrades, log.LastOffset()-records)
	}
	if got, _ := finalizedFeatures(t, b); got["kraft.version"] != 1 {
		t.Fatalf("finalized %v, want kraft.version 1", got)
	}
}
