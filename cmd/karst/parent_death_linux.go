package main

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// armParentDeathSignal asks the kernel for SIGTERM when the parent dies,
// which the broker handles as an ordinary graceful stop.
func armParentDeathSignal() error {
	return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
}
