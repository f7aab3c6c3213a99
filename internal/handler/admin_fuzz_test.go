package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// adminKeys are the APIs of the admin handlers.
var adminKeys = []int16{21, 23, 32, 33, 35, 37, 44, 60, 75, 43, 45, 46, 55, 64}

// TestAdminHandlersAnswerDefaultRequests runs every admin API at every
// served version on a default (empty) request: each must answer, and the
// answer must encode at that version.
func TestAdminHandlersAnswerDefaultRequests(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 2, nil)
	for _, key := range adminKeys {
		api := Lookup(key)
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req := kmsg.RequestForKey(key)
			if d, ok := req.(interface{ Default() }); ok {
				d.Default()
			}
			resp := f.call(req, v)
			resp.SetVersion(v)
			if len(resp.AppendTo(nil)) == 0 {
				t.Errorf("%s v%d: empty encoding", api.Name, v)
			}
		}
	}
}

// FuzzAdminHandlers decodes arbitrary request bodies for the admin APIs
// and runs them: no input may panic, and every answer must encode.
func FuzzAdminHandlers(f *testing.F) {
	for i, key := range adminKeys {
		api := Lookup(key)
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req := kmsg.RequestForKey(key)
			if d, ok := req.(interface{ Default() }); ok {
				d.Default()
			}
			req.SetVersion(v)
			f.Add(uint8(i), v, req.AppendTo(nil))
		}
	}
	seed := kmsg.NewPtrDescribeTopicPartitionsRequest()
	seed.Topics = []kmsg.DescribeTopicPartitionsRequestTopic{{Topic: "t"}}
	seed.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: "t", Partition: 1}
	seed.SetVersion(0)
	f.Add(uint8(8), int16(0), seed.AppendTo(nil))

	f.Fuzz(func(t *testing.T, which uint8, version int16, body []byte) {
		key := adminKeys[int(which)%len(adminKeys)]
		api := Lookup(key)
		if !api.Supports(version) {
			return
		}
		req := kmsg.RequestForKey(key)
		req.SetVersion(version)
		if err := req.ReadFrom(body); err != nil {
			return
		}
		if cp, ok := req.(*kmsg.CreatePartitionsRequest); ok {
			cp.ValidateOnly = true // creating thousands of partition logs per input is not the point
		}
		fx := newAdminFixture(t, nil)
		fx.createTopic("t", 2, nil)
		fx.produce("t", 0, 3, 0)
		resp := fx.call(req, version)
		resp.SetVersion(version)
		_ = resp.AppendTo(nil)
	})
}
