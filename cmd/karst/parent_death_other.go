//go:build !linux

package main

import (
	"errors"
	"runtime"
)

// armParentDeathSignal fails where the kernel has no parent-death signal;
// under go run there the broker keeps running after go run is killed.
func armParentDeathSignal() error {
	return errors.New(exitWithParentEnv + " needs Linux, not " + runtime.GOOS)
}
