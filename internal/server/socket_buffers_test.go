package server

import (
	"net"
	"syscall"
	"testing"
)

// sockopt reads an int socket option of c.
func sockopt(t *testing.T, c *net.TCPConn, opt int) int {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	if err := raw.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, opt) }); err != nil {
		t.Fatal(err)
	}
	if gerr != nil {
		t.Fatal(gerr)
	}
	return v
}

// acceptedPair returns the server side of a fresh loopback connection.
func acceptedPair(t *testing.T) *net.TCPConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc.(*net.TCPConn)
}

func TestSocketBufferSettingsAreApplied(t *testing.T) {
	// Linux reports twice what was set (it counts its bookkeeping), so
	// the check is "at least what was asked, and not the untouched value".
	const send, receive = 300_000, 200_000
	untouched := acceptedPair(t)
	defaultSend, defaultReceive := sockopt(t, untouched, syscall.SO_SNDBUF), sockopt(t, untouched, syscall.SO_RCVBUF)

	s := New(Config{SendBufferBytes: send, ReceiveBufferBytes: receive})
	nc := acceptedPair(t)
	s.setSocketBuffers(nc)
	if got := sockopt(t, nc, syscall.SO_SNDBUF); got < send || got == defaultSend {
		t.Errorf("SO_SNDBUF %d after asking for %d (default %d)", got, send, defaultSend)
	}
	if got := sockopt(t, nc, syscall.SO_RCVBUF); got < receive || got == defaultReceive {
		t.Errorf("SO_RCVBUF %d after asking for %d (default %d)", got, receive, defaultReceive)
	}

	// -1 (Kafka's "OS default") leaves the socket alone.
	s = New(Config{SendBufferBytes: -1, ReceiveBufferBytes: -1})
	nc = acceptedPair(t)
	s.setSocketBuffers(nc)
	if got := sockopt(t, nc, syscall.SO_SNDBUF); got != defaultSend {
		t.Errorf("SO_SNDBUF %d with -1, want the default %d", got, defaultSend)
	}
	if got := sockopt(t, nc, syscall.SO_RCVBUF); got != defaultReceive {
		t.Errorf("SO_RCVBUF %d with -1, want the default %d", got, defaultReceive)
	}
}
