package integration

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeFeatures is what Kafka's Admin.describeFeatures reads: the
// finalized levels and their epoch in an ApiVersions v3+ answer.
func describeFeatures(t *testing.T, ctx context.Context, cl *kgo.Client) (map[string]int16, int64) {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-test", "1"
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int16{}
	for _, f := range resp.FinalizedFeatures {
		out[f.Name] = f.MaxVersionLevel
	}
	return out, resp.FinalizedFeaturesEpoch
}

func TestKadmDescribeAndUpdateFeatures(t *testing.T) {
	_, cl, adm := adminClient(t)
	ctx := testContext(t)
	levels, epoch := describeFeatures(t, ctx, cl)
	if levels["metadata.version"] != 33 || levels["transaction.version"] != 2 || levels["group.version"] != 1 || levels["eligible.leader.replicas.version"] != 1 {
		t.Fatalf("finalized %v, want Kafka 4.4's defaults", levels)
	}
	if _, ok := levels["share.version"]; ok {
		t.Fatal("share.version finalized without share groups")
	}

	// validate_only changes nothing.
	res, err := adm.UpdateFeatures(ctx, true, kadm.FeatureUpdate{Feature: "transaction.version", MaxVersionLevel: 1, UpgradeType: 2})
	if err != nil || res.Error() != nil {
		t.Fatalf("validate a downgrade: %v %v", err, res.Error())
	}
	if levels, _ := describeFeatures(t, ctx, cl); levels["transaction.version"] != 2 {
		t.Fatalf("validate_only set transaction.version %d", levels["transaction.version"])
	}

	res, err = adm.UpdateFeatures(ctx, false, kadm.FeatureUpdate{Feature: "transaction.version", MaxVersionLevel: 1, UpgradeType: 2})
	if err != nil || res.Error() != nil {
		t.Fatalf("downgrade: %v %v", err, res.Error())
	}
	levels, after := describeFeatures(t, ctx, cl)
	if levels["transaction.version"] != 1 || after <= epoch {
		t.Fatalf("after the downgrade: transaction.version %d, epoch %d (was %d)", levels["transaction.version"], after, epoch)
	}

	res, err = adm.UpdateFeatures(ctx, false, kadm.FeatureUpdate{Feature: "transaction.version", MaxVersionLevel: 3, UpgradeType: 1})
	if err != nil || !errors.Is(res.Error(), kerr.InvalidUpdateVersion) {
		t.Fatalf("upgrade beyond the supported range: %v %v, want INVALID_UPDATE_VERSION", err, res.Error())
	}
	res, err = adm.UpdateFeatures(ctx, false, kadm.FeatureUpdate{Feature: "transaction.version", MaxVersionLevel: 2, UpgradeType: 1})
	if err != nil || res.Error() != nil {
		t.Fatalf("upgrade: %v %v", err, res.Error())
	}
	if levels, _ := describeFeatures(t, ctx, cl); levels["transaction.version"] != 2 {
		t.Fatalf("after the upgrade: transaction.version %d", levels["transaction.version"])
	}
}
