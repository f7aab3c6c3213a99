package bench

import (
	"testing"
	"time"
)

func TestCoarseClockAdvancesAndStaysClose(t *testing.T) {
	c := startCoarseClock()
	defer c.Stop()
	first := c.Now()
	if d := time.Since(first); d < -coarseClockTick || d > time.Second {
		t.Fatalf("coarse clock is %v away from time.Now", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !c.Now().After(first) {
		if time.Now().After(deadline) {
			t.Fatal("coarse clock did not advance in 5s")
		}
		time.Sleep(coarseClockTick)
	}
	if c.Since(time.Now().Add(time.Hour)) != 0 {
		t.Fatal("Since a future time is not 0")
	}
}
