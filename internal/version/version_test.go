package version

import (
	"runtime/debug"
	"testing"
)

func TestStampWinsOverBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.9"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "2026-01-01T00:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	got := fromBuildInfo(bi, "v1.2.3", "def", "2026-12-02T00:00:00Z")
	if got.Version != "v1.2.3" || got.Commit != "def" || got.Date != "2026-12-02T00:00:00Z" || !got.Modified || got.GoVersion != "go1.26.8" {
		t.Fatalf("got %+v", got)
	}
}

func TestBuildInfoFillsAnUnstampedBuild(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.9"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "2026-01-01T00:00:00Z"}, {Key: "vcs.modified", Value: "false"},
	}}
	got := fromBuildInfo(bi, "", "", "")
	if got.Version != "v0.0.9" || got.Commit != "abc" || got.Date != "2026-01-01T00:00:00Z" || got.Modified {
		t.Fatalf("got %+v", got)
	}
}

func TestACheckoutBuildIsDevel(t *testing.T) {
	got := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "", "")
	if got.Version != "devel" || got.Commit != "unknown" || got.Date != "" {
		t.Fatalf("got %+v", got)
	}
	if got := fromBuildInfo(nil, "", "", ""); got.Version != "devel" || got.GoVersion == "" || got.Platform == "" {
		t.Fatalf("without build info: %+v", got)
	}
}
