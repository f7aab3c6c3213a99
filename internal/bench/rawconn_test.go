package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestAPIVersionsRequestPatch(t *testing.T) {
	req := apiVersionsRequest(3)
	patchCorrelationID(req, 0x01020304)
	if size := binary.BigEndian.Uint32(req); int(size) != len(req)-4 {
		t.Fatalf("size prefix %d, frame %d", size, len(req)-4)
	}
	if key, ver := binary.BigEndian.Uint16(req[4:]), binary.BigEndian.Uint16(req[6:]); key != 18 || ver != 3 {
		t.Fatalf("key %d version %d", key, ver)
	}
	if !bytes.Equal(req[8:12], []byte{1, 2, 3, 4}) {
		t.Fatalf("correlation id bytes % x", req[8:12])
	}
}

func TestReadFrameBounds(t *testing.T) {
	for _, in := range [][]byte{
		{0, 0, 0, 3, 1, 2, 3},    // below a header
		{0xff, 0xff, 0xff, 0xff}, // negative
		{0, 0x20, 0, 0},          // 2 MiB > max
		{0, 0, 0, 8, 1},          // truncated
		{},
	} {
		if _, err := readFrame(bytes.NewReader(in), nil, maxResponseFrame); err == nil {
			t.Errorf("readFrame(% x) accepted", in)
		}
	}
	frame, err := readFrame(bytes.NewReader([]byte{0, 0, 0, 6, 0, 0, 0, 7, 0, 35}), nil, maxResponseFrame)
	if err != nil {
		t.Fatal(err)
	}
	if corr, code, err := apiVersionsHead(frame); err != nil || corr != 7 || code != 35 {
		t.Fatalf("head = %d %d %v", corr, code, err)
	}
}

func encodedAPIVersionsResponse(version int16, corr int32) []byte {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = version
	resp.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 18, MinVersion: 0, MaxVersion: 4}}
	body := resp.AppendTo(nil)
	frame := binary.BigEndian.AppendUint32(nil, uint32(corr))
	return append(frame, body...)
}

func TestDecodeAPIVersions(t *testing.T) {
	for v := int16(0); v <= 4; v++ {
		frame := encodedAPIVersionsResponse(v, 9)
		resp, err := decodeAPIVersions(frame, v)
		if err != nil || len(resp.ApiKeys) != 1 {
			t.Fatalf("v%d: %v %+v", v, err, resp)
		}
	}
}

func FuzzReadAPIVersionsResponse(f *testing.F) {
	for v := int16(0); v <= 4; v++ {
		fr := encodedAPIVersionsResponse(v, 1)
		f.Add(append(binary.BigEndian.AppendUint32(nil, uint32(len(fr))), fr...), v)
	}
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 1}, int16(3))
	f.Fuzz(func(t *testing.T, in []byte, version int16) {
		frame, err := readFrame(bytes.NewReader(in), nil, 1<<16)
		if err != nil {
			return
		}
		_, _, _ = apiVersionsHead(frame)
		_, _ = decodeAPIVersions(frame, version&7)
	})
}

// A broker that answers out of order must fail the run, not be counted.
func TestPipelineDetectsWrongCorrelationID(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		for {
			frame, err := readFrame(r, nil, 1<<16)
			if err != nil {
				return
			}
			version := int16(binary.BigEndian.Uint16(frame[2:]))
			corr := int32(binary.BigEndian.Uint32(frame[4:]))
			if corr >= 5 { // from the sixth pipelined request on, a wrong id
				corr += 100
			}
			resp := encodedAPIVersionsResponse(version, corr)
			c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(resp))), resp...))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := APIVersions(ctx, APIVersionsConfig{Addr: ln.Addr().String(), Window: 4, Requests: 100, Duration: 5 * time.Second})
	if res.Err() == nil || !strings.Contains(res.Err().Error(), "correlation id") {
		t.Fatalf("wrong correlation ids not reported: %s", res.Line())
	}
	if n, _ := res.Int("requests"); n != 5 {
		t.Errorf("counted %d requests, want the 5 answered right", n)
	}
}
