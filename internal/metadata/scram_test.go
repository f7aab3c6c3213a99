package metadata

import (
	"bytes"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func scramImage(t *testing.T) *Image {
	t.Helper()
	img, err := EmptyImage().Replay(&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MetadataVersion44IV2})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestScramCredentialsAlterReplayAndSnapshot(t *testing.T) {
	img := scramImage(t)
	salted := bytes.Repeat([]byte{7}, 32)
	recs, results := img.AlterScramCredentials(nil, []ScramUpsertion{
		{User: "alice", Mechanism: ScramSHA256, Iterations: 4096, Salt: []byte("s1"), SaltedPassword: salted},
		{User: "bob", Mechanism: ScramSHA512, Iterations: 16384, Salt: []byte("s2"), SaltedPassword: bytes.Repeat([]byte{9}, 64)},
		{User: "carol", Mechanism: ScramSHA256, Iterations: 16385, Salt: []byte("s"), SaltedPassword: salted},
		{User: "", Mechanism: ScramSHA256, Iterations: 4096},
		{User: "dave", Mechanism: 3, Iterations: 4096},
	})
	want := map[string]*kerr.Error{"alice": nil, "bob": nil, "carol": kerr.UnacceptableCredential, "": kerr.UnacceptableCredential, "dave": kerr.UnsupportedSaslMechanism}
	if len(results) != len(want) {
		t.Fatalf("results %+v", results)
	}
	for _, r := range results {
		if w := want[r.User]; (w == nil) != (r.Err == nil) || w != nil && !errors.Is(r.Err, w) {
			t.Errorf("%q: %v, want %v", r.User, r.Err, w)
		}
	}
	if len(recs) != 2 {
		t.Fatalf("records %+v", recs)
	}
	// Through the codec, as the log holds them.
	for i, r := range recs {
		dec, err := Decode(Encode(r))
		if err != nil {
			t.Fatal(err)
		}
		recs[i] = dec
	}
	img, err := img.Replay(recs...)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := img.ScramCredential(ScramSHA256, "alice")
	wantCred := ScramCredentialFromSaltedPassword(ScramSHA256, []byte("s1"), salted, 4096)
	if !ok || !bytes.Equal(got.StoredKey, wantCred.StoredKey) || !bytes.Equal(got.ServerKey, wantCred.ServerKey) || got.Iterations != 4096 {
		t.Fatalf("alice: %+v", got)
	}
	if _, ok := img.ScramCredential(ScramSHA512, "alice"); ok {
		t.Fatal("alice has a SCRAM-SHA-512 credential")
	}
	again, err := EmptyImage().Replay(img.Records()...)
	if err != nil {
		t.Fatal(err)
	}
	if d := again.DescribeScramCredentials(nil); len(d) != 2 || d[0].User != "alice" || d[1].Iterations[0] != 16384 {
		t.Fatalf("after a snapshot: %+v", d)
	}

	d := img.DescribeScramCredentials([]string{"bob", "zed", "bob"})
	if len(d) != 2 || !errors.Is(d[0].Err, kerr.DuplicateResource) || !errors.Is(d[1].Err, kerr.ResourceNotFound) ||
		d[1].Err.Message != "Attempt to describe a user credential that does not exist: zed" {
		t.Fatalf("describe: %+v", d)
	}

	recs, results = img.AlterScramCredentials(
		[]ScramDeletion{{User: "alice", Mechanism: ScramSHA256}, {User: "bob", Mechanism: ScramSHA256}, {User: "erin", Mechanism: ScramSHA256}},
		[]ScramUpsertion{{User: "erin", Mechanism: ScramSHA256, Iterations: 4096, Salt: []byte("x"), SaltedPassword: salted}})
	if len(recs) != 1 || len(results) != 3 || results[0].User != "alice" || results[0].Err != nil ||
		!errors.Is(results[1].Err, kerr.ResourceNotFound) || results[2].User != "erin" || !errors.Is(results[2].Err, kerr.ResourceNotFound) {
		t.Fatalf("records %+v results %+v", recs, results)
	}
	twice := ScramUpsertion{User: "frank", Mechanism: ScramSHA256, Iterations: 4096, Salt: []byte("x"), SaltedPassword: salted}
	if dup, res := img.AlterScramCredentials(nil, []ScramUpsertion{twice, twice}); len(dup) != 0 || len(res) != 1 || !errors.Is(res[0].Err, kerr.DuplicateResource) {
		t.Fatalf("altered twice: records %+v results %+v", dup, res)
	}
	if img, err = img.Replay(recs...); err != nil {
		t.Fatal(err)
	}
	if _, ok := img.ScramCredential(ScramSHA256, "alice"); ok {
		t.Fatal("alice's credential survived its deletion")
	}
	if _, err := img.Replay(&RemoveUserScramCredentialRecord{Name: "alice", Mechanism: 1}); err == nil {
		t.Fatal("removing a missing credential replayed")
	}
}

func TestScramNeedsMetadataVersion35IV2(t *testing.T) {
	img, err := EmptyImage().Replay(&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MetadataVersion33IV3})
	if err != nil {
		t.Fatal(err)
	}
	recs, results := img.AlterScramCredentials(nil, []ScramUpsertion{{User: "a", Mechanism: ScramSHA256, Iterations: 4096}})
	if len(recs) != 0 || len(results) != 1 || !errors.Is(results[0].Err, kerr.UnsupportedVersion) {
		t.Fatalf("records %+v results %+v", recs, results)
	}
}
