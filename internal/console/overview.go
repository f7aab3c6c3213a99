package console

import (
	"context"
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/procfs"
)

type overviewData struct {
	ClusterID  string
	Controller int32
	Brokers    []brokerRow
	Topics     int
	Partitions int
	Groups     int
	Uptime     time.Duration
	Goroutines int
	RSS        int64 // 0: not known on this system
	Throughput []series
	Latency    []series
	Window     time.Duration
	Every      time.Duration
}

type brokerRow struct {
	ID   int32
	Host string
	Port int32
	Rack string
}

func (s *Server) overview(ctx context.Context, k *kafka, _ *http.Request, p *page) error {
	p.Title = "Broker"
	d := overviewData{Uptime: time.Since(s.started).Round(time.Second), Goroutines: runtime.NumGoroutine(),
		RSS: residentBytes(), Throughput: s.samples.throughput(), Latency: s.samples.latency(),
		Window: s.samples.every * time.Duration(s.samples.keep-1), Every: s.samples.every}
	p.Data = &d
	md, err := k.admin.Metadata(ctx)
	if err != nil {
		return err
	}
	d.ClusterID, d.Controller = md.Cluster, md.Controller
	for _, b := range md.Brokers {
		rack := ""
		if b.Rack != nil {
			rack = *b.Rack
		}
		d.Brokers = append(d.Brokers, brokerRow{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: rack})
	}
	for _, t := range md.Topics {
		d.Topics++
		d.Partitions += len(t.Partitions)
	}
	groups, err := k.admin.ListGroups(ctx)
	d.Groups = len(groups)
	return err
}

// residentBytes is the broker process's resident set, where procfs can
// read it (Linux), else 0.
func residentBytes() int64 {
	self, err := procfs.Self()
	if err != nil {
		return 0
	}
	st, err := self.Stat()
	if err != nil {
		return 0
	}
	return int64(st.ResidentMemory())
}

// reloadSeconds is the page's ?refresh=N, bounded to 1..3600 seconds.
func reloadSeconds(r *http.Request) int {
	n, ok := intParam(r, "refresh")
	if !ok || n < 1 {
		return 0
	}
	return int(min(n, 3600))
}
