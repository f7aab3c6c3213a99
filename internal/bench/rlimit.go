package bench

import "syscall"

// raiseOpenFiles lifts this process's soft RLIMIT_NOFILE toward want (up
// to the hard limit) so that it can hold thousands of sockets, and returns
// the soft limit now in force.
func raiseOpenFiles(want uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur >= want {
		return lim.Cur, nil
	}
	lim.Cur = min(want, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	return lim.Cur, nil
}
