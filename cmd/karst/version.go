package main

import (
	"fmt"
	"io"
	"os"

	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/version"
)

const versionUsage = `usage: karst version

Print the release, the source commit and its time, the Go toolchain and
platform, and the protocol level: the Apache Kafka release whose broker API
version ranges Karst serves and how many APIs the dispatch table holds.
`

func versionMain(args []string) int {
	if status, done := argumentsNone("version", versionUsage, args); done {
		return status
	}
	writeVersion(os.Stdout, version.Get(), len(handler.Table()))
	return 0
}

// writeVersion prints one "field: value" line each, so scripts can grep a
// field and people can read it.
func writeVersion(w io.Writer, info version.Info, apiCount int) {
	commit := info.Commit
	if info.Modified {
		commit += " (modified)"
	}
	fmt.Fprintf(w, "karst %s\n", info.Version)
	fmt.Fprintf(w, "commit:   %s\n", commit)
	if info.Date != "" {
		fmt.Fprintf(w, "date:     %s\n", info.Date)
	}
	fmt.Fprintf(w, "go:       %s %s\n", info.GoVersion, info.Platform)
	fmt.Fprintf(w, "protocol: Apache Kafka %s (%d APIs)\n", version.KafkaRelease, apiCount)
}
