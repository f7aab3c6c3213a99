// Package check holds the sarama interop checks: produce, a consumer group that commits and a
// fresh member that resumes there, and ClusterAdmin calls, each printed as a PASS or FAIL line
// that ../run.sh reads. One source serves every sarama version: each version's module under
// ../ builds it against the sarama release it pins.
package check

import (
	"fmt"
	"strings"
	"time"
)

// checks counts and prints named checks, as the other generation suites do:
// "PASS name (ms)" or "FAIL name (ms): reason".
type checks struct {
	passed, failed int
}

func (c *checks) run(name string, body func() error) bool {
	start := time.Now()
	err := body()
	ms := time.Since(start).Milliseconds()
	if err == nil {
		c.passed++
		fmt.Printf("PASS %s (%d ms)\n", name, ms)
		return true
	}
	c.failed++
	fmt.Printf("FAIL %s (%d ms): %s\n", name, ms, strings.ReplaceAll(err.Error(), "\n", " "))
	return false
}

// notRun counts a check whose precondition failed as failed, so that every version reports the
// same set of checks.
func (c *checks) notRun(name, because string) {
	c.failed++
	fmt.Printf("FAIL %s (0 ms): not run, %s\n", name, because)
}
