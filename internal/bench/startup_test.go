package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"net"
	"os"
	"testing"
	"time"
)

// TestMain lets this test binary play a tiny broker for Startup: run with
// KARST_BENCH_FAKE_BROKER=ADDR it answers every ApiVersions on ADDR.
func TestMain(m *testing.M) {
	if addr := os.Getenv("KARST_BENCH_FAKE_BROKER"); addr != "" {
		fakeBroker(addr)
		return
	}
	os.Exit(m.Run())
}

func fakeBroker(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		os.Exit(3)
	}
	// Exit by itself if the test forgets it.
	time.AfterFunc(60*time.Second, func() { os.Exit(4) })
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(5)
		}
		go func() {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				frame, err := readFrame(r, nil, 1<<16)
				if err != nil || len(frame) < 8 {
					return
				}
				version := int16(binary.BigEndian.Uint16(frame[2:]))
				corr := int32(binary.BigEndian.Uint32(frame[4:]))
				resp := encodedAPIVersionsResponse(version, corr)
				if _, err := c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(resp))), resp...)); err != nil {
					return
				}
			}
		}()
	}
}

func freeLoopbackAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestStartupMeasuresAndStops(t *testing.T) {
	addr := freeLoopbackAddr(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("KARST_BENCH_FAKE_BROKER", addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := Startup(ctx, StartupConfig{Command: []string{self}, Addr: addr, Timeout: 20 * time.Second})
	t.Log(res.Line())
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if ms, ok := res.Float("startup_ms"); !ok || ms <= 0 {
		t.Errorf("startup_ms = %v", ms)
	}
	if _, ok := res.Int("rss_ready_kb"); !ok {
		t.Errorf("no rss_ready_kb: %s", res.Line())
	}
	// Stopped: nothing answers there any more.
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("the broker still listens after Startup returned")
	}
}

func TestStartupReportsEarlyExit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := Startup(ctx, StartupConfig{Command: []string{"/bin/false"}, Addr: freeLoopbackAddr(t), Timeout: 10 * time.Second})
	if res.Err() == nil {
		t.Fatalf("a command that exits was measured: %s", res.Line())
	}
}
