package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// startCPUProfile profiles the load tool itself into path (nothing when
// path is empty); the returned function stops and closes it.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// loadToolGCPercent is the load tool's GOGC unless the environment sets
// one. The tool allocates a fresh buffer per fetch response (franz-go
// reads each into a new slice) and churns through record structs; at
// GOGC=100 the consumer spent a quarter of its CPU zeroing fresh heap and
// another sixth in GC, CPU the broker beside it could have had. Its memory
// is not what a run measures (-pid samples the broker's RSS), and a child
// started by the startup mode keeps its own GOGC.
const loadToolGCPercent = 400

func loadToolGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(loadToolGCPercent)
	}
}
