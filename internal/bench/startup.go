package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// StartupConfig describes a broker to launch and where it will listen.
type StartupConfig struct {
	Command []string      // the broker's argv; it must be the broker itself, not a wrapper that forks
	Dir     string        // working directory ("" for ours)
	Addr    string        // host:port it listens on
	Timeout time.Duration // give up after this long (default 60s)
	Log     string        // file for the broker's stdout and stderr ("" discards)
	Settle  time.Duration // after the first answer, wait this long and report rss_settled_kb
}

// Startup launches the broker, measures the time from starting the process
// to its first answered ApiVersions on Addr (startup_ms), reads its RSS at
// that moment (rss_ready_kb), and then stops it: SIGTERM, then SIGKILL
// after 30 s. The address must be free before it starts.
func Startup(ctx context.Context, cfg StartupConfig) *Result {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	res := NewResult("startup")
	if len(cfg.Command) == 0 {
		res.Fail(errors.New("no broker command"))
		return res
	}
	if c, err := dialRaw(ctx, cfg.Addr); err == nil {
		c.Close()
		res.Fail(fmt.Errorf("something already listens on %s", cfg.Addr))
		return res
	}
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir = cfg.Dir
	// Its own process group, so that stopping it reaches what it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cfg.Log != "" {
		f, err := os.Create(cfg.Log)
		if err != nil {
			res.Fail(err)
			return res
		}
		defer f.Close()
		cmd.Stdout, cmd.Stderr = f, f
	}
	// exited closes when the process has been reaped; waitErr is then set.
	exited := make(chan struct{})
	var waitErr error
	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.Fail(err)
		return res
	}
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer stopProcess(cmd, exited)
	res.SetInt("pid", int64(cmd.Process.Pid))

	ready, err := waitForAPIVersions(ctx, cfg.Addr, start.Add(cfg.Timeout), exited)
	if err != nil {
		select {
		case <-exited:
			err = fmt.Errorf("%w (exit: %v)", err, waitErr)
		default:
		}
		res.Fail(err)
		return res
	}
	res.SetFloat("startup_ms", float64(ready.Sub(start).Microseconds())/1000)
	if rss, err := ReadRSS(cmd.Process.Pid); err == nil {
		res.SetInt("rss_ready_kb", rss)
	}
	if cfg.Settle > 0 {
		select {
		case <-time.After(cfg.Settle):
		case <-ctx.Done():
		}
		if rss, err := ReadRSS(cmd.Process.Pid); err == nil {
			res.SetInt("rss_settled_kb", rss)
		}
	}
	return res
}

// waitForAPIVersions polls addr, with a backoff from 1 ms to 20 ms, until
// an ApiVersions request there is answered, the process exits, or the
// deadline passes. It returns when the answer arrived.
func waitForAPIVersions(ctx context.Context, addr string, deadline time.Time, exited <-chan struct{}) (time.Time, error) {
	const version = 3
	backoff := time.Millisecond
	var last error
	for {
		attempt, cancel := context.WithDeadline(ctx, deadline)
		c, err := dialRaw(attempt, addr)
		if err == nil {
			c.conn.SetDeadline(deadline)
			err = c.roundTrip(apiVersionsRequest(version), version, 0)
			c.Close()
			if err == nil {
				cancel()
				return time.Now(), nil
			}
		}
		cancel()
		last = err
		select {
		case <-exited:
			return time.Time{}, fmt.Errorf("broker exited before answering; last attempt: %v", last)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(backoff):
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("no ApiVersions answer on %s in time; last attempt: %v", addr, last)
		}
		backoff = min(2*backoff, 20*time.Millisecond)
	}
}

// stopProcess ends a broker that Startup launched, and waits for it.
func stopProcess(cmd *exec.Cmd, exited <-chan struct{}) {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
		return
	case <-time.After(30 * time.Second):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-exited
}
