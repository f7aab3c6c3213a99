package handler

import (
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDescribeLogDirs(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("a", 2, nil)
	f.createTopic("b", 1, nil)
	f.produce("a", 1, 20, 0)

	// v5 (Kafka 4.4) adds IsCordoned; Karst has no cordoned.log.dirs.
	resp := f.call(kmsg.NewPtrDescribeLogDirsRequest(), 5).(*kmsg.DescribeLogDirsResponse)
	if resp.ErrorCode != 0 || len(resp.Dirs) != 1 {
		t.Fatalf("%+v", resp)
	}
	dir := resp.Dirs[0]
	if !filepath.IsAbs(dir.Dir) || dir.ErrorCode != 0 || dir.TotalBytes <= 0 || dir.UsableBytes <= 0 || dir.UsableBytes > dir.TotalBytes || dir.IsCordoned {
		t.Fatalf("dir %+v", dir)
	}
	if len(dir.Topics) != 2 || dir.Topics[0].Topic != "a" || len(dir.Topics[0].Partitions) != 2 || len(dir.Topics[1].Partitions) != 1 {
		t.Fatalf("topics %+v", dir.Topics)
	}
	a1 := dir.Topics[0].Partitions[1]
	if a1.Partition != 1 || a1.Size != f.log("a", 1).Size() || a1.Size == 0 || a1.OffsetLag != 0 || a1.IsFuture {
		t.Fatalf("a-1 %+v", a1)
	}

	// Only a-1 asked for: b is left out, as Kafka 4.4.0 answers (seen by
	// the differential suite), and a topic not here gives no entry.
	req := kmsg.NewPtrDescribeLogDirsRequest()
	req.Topics = []kmsg.DescribeLogDirsRequestTopic{{Topic: "a", Partitions: []int32{1, 9}}}
	resp = f.call(req, 1).(*kmsg.DescribeLogDirsResponse)
	topics := resp.Dirs[0].Topics
	if len(topics) != 1 || topics[0].Topic != "a" || len(topics[0].Partitions) != 1 || topics[0].Partitions[0].Partition != 1 {
		t.Fatalf("filtered %+v", topics)
	}
	req.Topics = []kmsg.DescribeLogDirsRequestTopic{{Topic: "missing", Partitions: []int32{0}}}
	resp = f.call(req, 1).(*kmsg.DescribeLogDirsResponse)
	if topics := resp.Dirs[0].Topics; len(topics) != 0 {
		t.Fatalf("an unknown topic asked for: %+v", topics)
	}
}
