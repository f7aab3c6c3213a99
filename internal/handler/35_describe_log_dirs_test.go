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

	// Only a-1 asked for: b is still listed, with no partitions, as Kafka does.
	req := kmsg.NewPtrDescribeLogDirsRequest()
	req.Topics = []kmsg.DescribeLogDirsRequestTopic{{Topic: "a", Partitions: []int32{1, 9}}}
	resp = f.call(req, 1).(*kmsg.DescribeLogDirsResponse)
	topics := resp.Dirs[0].Topics
	if len(topics) != 2 || len(topics[0].Partitions) != 1 || topics[0].Partitions[0].Partition != 1 || len(topics[1].Partitions) != 0 {
		t.Fatalf("filtered %+v", topics)
	}
}
