// Package version reports what a karst binary is: the release it was built
// as, the commit and time of its source, and the Go toolchain. Release
// builds stamp Version and Commit with -ldflags -X (scripts/release.sh);
// other builds fall back to what the Go toolchain records in the binary
// (the module version for `go install ...@vX`, the VCS stamp for a build
// in a checkout).
package version

import (
	"runtime"
	"runtime/debug"
)

// Stamped by the release build:
//
//	-X github.com/karst-broker/karst/internal/version.Version=v0.1.0
//	-X github.com/karst-broker/karst/internal/version.Commit=<sha>
//	-X github.com/karst-broker/karst/internal/version.Date=<RFC 3339>
//
// They are variables, not constants, because -X can only set variables.
var (
	Version string
	Commit  string
	Date    string
)

// KafkaRelease is the Apache Kafka release whose broker API version
// ranges the dispatch table serves (the reference the handlers are
// checked against).
const KafkaRelease = "4.4.0"

// Info describes one binary.
type Info struct {
	// Version is the release ("v0.1.0"), the module version of a
	// `go install`, or "devel" for an unstamped build.
	Version string
	// Commit is the source revision; "unknown" when the build recorded none.
	Commit string
	// Date is the commit time (or the stamped build date), RFC 3339; empty
	// when unknown.
	Date string
	// Modified is true when the build's working tree had uncommitted changes.
	Modified bool
	// GoVersion is the toolchain that built the binary.
	GoVersion string
	// Platform is GOOS/GOARCH.
	Platform string
}

// Get returns the stamped values, filled in from the build info the Go
// toolchain embedded where the stamp is missing.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(bi, Version, Commit, Date)
}

func fromBuildInfo(bi *debug.BuildInfo, version, commit, date string) Info {
	info := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		info.GoVersion = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.time":
				if info.Date == "" {
					info.Date = s.Value
				}
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	if info.Commit == "" {
		info.Commit = "unknown"
	}
	return info
}
