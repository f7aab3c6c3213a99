package handler

import (
	"context"
	"reflect"
	"sync"
	"time"
)

// A parked fetch waits on its partitions' append signals, the max wait and
// the server's context. Most fetches name a few partitions: a select
// statement with a fixed number of cases (nil channels for the unused ones
// never fire) serves them without the allocations of reflect.Select, which
// remains for larger fetches.
const waitCases = 8

// waitAny blocks until the append signal of one of the readable targets
// fires (true), or the wait or ctx ends (false).
func waitAny(ctx context.Context, targets []fetchTarget, wait time.Duration) bool {
	timer := startWaitTimer(wait)
	defer stopWaitTimer(timer)
	var s [waitCases]<-chan struct{}
	n := 0
	for i := range targets {
		if t := &targets[i]; t.part != nil {
			if n == len(s) {
				return waitAnyReflect(ctx, timer, targets)
			}
			s[n] = t.signal
			n++
		}
	}
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return false
	case <-s[0]:
	case <-s[1]:
	case <-s[2]:
	case <-s[3]:
	case <-s[4]:
	case <-s[5]:
	case <-s[6]:
	case <-s[7]:
	}
	return true
}

func waitAnyReflect(ctx context.Context, timer *time.Timer, targets []fetchTarget) bool {
	cases := make([]reflect.SelectCase, 0, len(targets)+2)
	cases = append(cases,
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)})
	for i := range targets {
		if t := &targets[i]; t.part != nil {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(t.signal)})
		}
	}
	chosen, _, _ := reflect.Select(cases)
	return chosen >= 2
}

// waitTimers reuses the timers of finished waits: a timer is three
// allocations, and a busy consumer parks several hundred times a second.
var waitTimers sync.Pool

func startWaitTimer(d time.Duration) *time.Timer {
	if t, ok := waitTimers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

// stopWaitTimer stops t and pools it. Since Go 1.23 a stopped timer's
// channel holds no stale tick; the drain covers asynctimerchan=1.
func stopWaitTimer(t *time.Timer) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	waitTimers.Put(t)
}
