package log

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// BenchmarkSyncManyFiles is one round of group commit over n partitions:
// 10 KiB appended to each of n files, then every file made durable at once,
// each by its own goroutine (as each log's flusher does), fsyncing alone or
// through a DirSyncer. It touches the disk: run it on the disk the broker
// uses, on a quiet machine.
func BenchmarkSyncManyFiles(b *testing.B) {
	for _, n := range []int{1, 4, 16, 256} {
		for _, shared := range []bool{false, true} {
			name := fmt.Sprintf("files=%d/fsync-each", n)
			if shared {
				name = fmt.Sprintf("files=%d/dir-syncer", n)
			}
			b.Run(name, func(b *testing.B) { benchmarkSyncRound(b, n, shared) })
		}
	}
}

func benchmarkSyncRound(b *testing.B, n int, shared bool) {
	dir := b.TempDir()
	var syncer *DirSyncer
	if shared {
		var err error
		if syncer, err = NewDirSyncer(dir); err != nil {
			b.Fatal(err)
		}
		defer syncer.Close()
	}
	files := make([]*os.File, n)
	for i := range files {
		f, err := os.Create(filepath.Join(dir, fmt.Sprint(i)))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		files[i] = f
	}
	chunk := make([]byte, 10<<10)
	b.SetBytes(int64(n * len(chunk)))
	b.ResetTimer()
	for range b.N {
		for _, f := range files {
			if _, err := f.Write(chunk); err != nil {
				b.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for _, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := syncer.Sync(f); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
}
