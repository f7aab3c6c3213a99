package server_test

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/karsttest"
)

// refused reports whether the broker closed c without answering an
// ApiVersions, or else checks the answer.
func refused(t *testing.T, c net.Conn, corr int32) bool {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-test", "1.0"
	c.Write(request(req, 3, corr, "t"))
	var one [1]byte
	_, err := io.ReadFull(c, one[:])
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return false
}

func TestBrokerEnforcesMaxConnectionsPerIPFromItsConfig(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("max.connections.per.ip", "1"))
	first := server.DialTest(t, b.Addr())
	apiVersionsOK(t, first, 1)
	if !refused(t, server.DialTest(t, b.Addr()), 2) {
		t.Fatal("a second connection from 127.0.0.1 was served with max.connections.per.ip=1")
	}
}

func TestIncrementalAlterConfigsChangesConnectionLimitsWhileRunning(t *testing.T) {
	b := karsttest.Start(t)
	admin := server.DialTest(t, b.Addr())
	alter := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeBroker, ""
	for name, value := range map[string]string{"max.connections.per.ip": "0", "max.connections.per.ip.overrides": "127.0.0.1:2"} {
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cfg.Name, cfg.Op, cfg.Value = name, kmsg.IncrementalAlterConfigOpSet, kmsg.StringPtr(value)
		res.Configs = append(res.Configs, cfg)
	}
	alter.Resources = append(alter.Resources, res)
	if _, err := admin.Write(request(alter, 1, 1, "t")); err != nil {
		t.Fatal(err)
	}
	frame := readFrame(t, admin)
	resp := kmsg.NewPtrIncrementalAlterConfigsResponse()
	resp.SetVersion(1)
	if err := resp.ReadFrom(frame[5:]); err != nil { // correlation id, empty tagged fields
		t.Fatal(err)
	}
	if code := resp.Resources[0].ErrorCode; code != 0 {
		t.Fatalf("IncrementalAlterConfigs: error %d: %v", code, resp.Resources[0].ErrorMessage)
	}

	// The limits apply soon after the commit: 127.0.0.1 may have two
	// connections, the admin one and one more.
	deadline := time.Now().Add(20 * time.Second)
	for corr := int32(2); ; corr++ {
		if time.Now().After(deadline) {
			t.Fatal("max.connections.per.ip.overrides 127.0.0.1:2 never applied")
		}
		second := server.DialTest(t, b.Addr())
		apiVersionsOK(t, second, corr)
		third := server.DialTest(t, b.Addr())
		if refused(t, third, corr) {
			break
		}
		second.Close()
		third.Close()
	}
}
