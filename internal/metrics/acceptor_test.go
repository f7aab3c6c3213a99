package metrics

import (
	"testing"

	dto "github.com/prometheus/client_model/go"
)

func TestAcceptorBlockedTimeIsExportedPerListener(t *testing.T) {
	m := New()
	blocked := map[string]float64{"PLAINTEXT": 1.5, "INTERNAL": 0}
	m.WatchAcceptors([]string{"PLAINTEXT", "INTERNAL"}, func(l string) float64 { return blocked[l] })
	blocked["INTERNAL"] = 0.25 // read at scrape time
	got := byFirstLabel(t, m, "kafka_network_acceptor_blocked_seconds_total", (*dto.Metric).GetCounter)
	if got["PLAINTEXT"] != 1.5 || got["INTERNAL"] != 0.25 || len(got) != 2 {
		t.Fatalf("blocked seconds %v, want PLAINTEXT 1.5, INTERNAL 0.25", got)
	}
}
