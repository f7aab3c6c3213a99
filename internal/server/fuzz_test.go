package server

import (
	"encoding/binary"
	"encoding/hex"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/handler"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
	"github.com/karst-broker/karst/internal/txn"
)

// requestFrame encodes req as a client would, without the size prefix.
func requestFrame(req kmsg.Request, version int16, flexibleHeader bool) []byte {
	req.SetVersion(version)
	var b []byte
	b = binary.BigEndian.AppendUint16(b, uint16(req.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, 77)
	b = binary.BigEndian.AppendUint16(b, 4)
	b = append(b, "fuzz"...)
	if flexibleHeader {
		b = append(b, 0)
	}
	return req.AppendTo(b)
}

// seedFrames are the frames franz-go's encoder writes for every served API
// at every served version, plus the exercise's literal bytes.
func seedFrames() [][]byte {
	var frames [][]byte
	for _, api := range handler.Table() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req := kmsg.RequestForKey(api.Key)
			if d, ok := req.(interface{ Default() }); ok {
				d.Default()
			}
			parseable(req)
			req.SetVersion(v)
			frames = append(frames, requestFrame(req, v, req.IsFlexible()))
		}
	}
	raw, _ := hex.DecodeString("0012674a4f74d28b00096b61666b612d636c69000a6b61666b612d636c6904302e3100")
	return append(frames, raw)
}

// parseable gives a default request the fields Kafka needs to parse it:
// an ACL filter's codes must not be UNKNOWN (0), else the connection closes.
func parseable(req kmsg.Request) {
	if d, ok := req.(*kmsg.DescribeACLsRequest); ok {
		d.ResourceType, d.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
		d.Operation, d.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	}
}

// fuzzBroker is a complete handler layer over a temporary data directory,
// with one topic so that data-path requests reach the logs.
func fuzzBroker(t testing.TB) *handler.Broker {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var store *metadata.Store
	mgr, err := storage.Open(t.TempDir(), func(string) klog.Config { return klog.DefaultConfig() }, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mgr.Close() })
	specs := func(img *metadata.Image) []storage.Spec {
		var out []storage.Spec
		for _, tp := range img.Topics() {
			for _, p := range tp.Partitions {
				out = append(out, storage.Spec{TopicPartition: klog.TopicPartition{Topic: tp.Name, Partition: p.ID}, TopicID: klog.TopicID(tp.ID)})
			}
		}
		return out
	}
	store, err = metadata.OpenStore(&metadata.MemoryLog{}, metadata.StoreOptions{
		Node:     metadata.Node{ID: 1, DefaultPartitions: 1, DefaultReplicationFactor: 1},
		OnCommit: func(_, next *metadata.Image, _ []metadata.Record) { mgr.Reconcile(specs(next)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateTopic(metadata.CreateTopicRequest{Name: "fuzz", NumPartitions: 2, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	return handler.NewBroker(handler.Options{ClusterID: "fuzz", NodeID: 1, Logger: logger,
		Advertised: []handler.Endpoint{{ListenerName: "PLAINTEXT", Host: "127.0.0.1", Port: 9092}},
		Metadata:   store, Storage: mgr,
		ProducerIDs: txn.NewProducerIDs(func() (int64, error) { return store.AllocateProducerIDs(1, 0) })})
}

func fuzzConn(t testing.TB) *conn {
	s := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.broker = fuzzBroker(t)
	// Work that would wait (a long-poll fetch, an fsync) completes at once,
	// as it does during shutdown, so one input cannot park the fuzzer.
	s.cancel()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return newConn(s, a, Listener{Name: "PLAINTEXT"})
}

// FuzzDispatch feeds arbitrary frames through header parsing, body
// decoding, the handlers and response encoding: none may panic, and every
// answer (a refused body gets none) must be a frame whose correlation id
// is the request's.
func FuzzDispatch(f *testing.F) {
	for _, fr := range seedFrames() {
		f.Add(fr)
	}
	c := fuzzConn(f)
	f.Fuzz(func(t *testing.T, frame []byte) {
		if len(frame) < 10 {
			return
		}
		panics := c.s.stats.PanicsRecovered.Load()
		p, ok := c.dispatch(frame)
		if c.s.stats.PanicsRecovered.Load() != panics {
			t.Fatal("handler panicked")
		}
		if !ok {
			return // refused: the connection would be closed
		}
		out := c.encode(nil, p)
		if p.outcome.NoResponse {
			return
		}
		if len(out) < 8 || int(binary.BigEndian.Uint32(out)) != len(out)-4 {
			t.Fatalf("malformed response frame % x", out)
		}
		if got := int32(binary.BigEndian.Uint32(out[4:])); got != p.correlationID {
			t.Fatalf("correlation id %d, want %d", got, p.correlationID)
		}
	})
}

func TestSeedFramesDecode(t *testing.T) {
	c := fuzzConn(t)
	for _, fr := range seedFrames() {
		p, ok := c.dispatch(fr)
		if !ok || (p.outcome.Response == nil && p.outcome.Later == nil && p.raw == nil && !p.outcome.NoResponse) {
			t.Fatalf("seed frame % x not answered", fr)
		}
	}
}
