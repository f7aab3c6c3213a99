package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// compactSurvivors checks a log whose broker was killed in the middle of a
// cleaner pass, as another broker serves it: what the pass had not yet
// swapped in is still the uncleaned log, so the served records may hold any
// written ones, but none that was never written at its offset, each key's
// latest value, and no older value of a key without the newer record (value
// or tombstone) that was written after it.
func compactSurvivors(ctx context.Context, bootstrap, recordsFile string, r *reporter) error {
	written, err := readWritten(recordsFile)
	if err != nil {
		return err
	}
	served, err := readServed(ctx, bootstrap)
	if err != nil {
		return err
	}
	at := map[string]WrittenRec{}
	latest := map[string]WrittenRec{}
	for _, w := range written {
		at[fmt.Sprintf("%d/%d", w.Partition, w.Offset)] = w
		if !w.Aborted {
			latest[fmt.Sprintf("%d/%s", w.Partition, w.Key)] = w
		}
	}
	r.check("served_offsets_ordered", func() error {
		last := map[int32]int64{}
		for _, s := range served {
			if prev, ok := last[s.partition]; ok && s.offset <= prev {
				return fmt.Errorf("partition %d served offset %d after %d", s.partition, s.offset, prev)
			}
			last[s.partition] = s.offset
		}
		return nil
	}())
	servedLine := map[string]bool{}
	var problems []string
	for _, s := range served {
		if s.control {
			continue
		}
		servedLine[s.line] = true
		w, ok := at[fmt.Sprintf("%d/%d", s.partition, s.offset)]
		if !ok || w.line() != s.line {
			problems = append(problems, fmt.Sprintf("served %q, written there: %q", s.line, w.line()))
		}
	}
	r.check("served_records_are_the_written_ones", joinProblems(problems))
	problems = nil
	for _, w := range latest {
		if !w.Null && !servedLine[w.line()] {
			problems = append(problems, "missing "+w.line())
		}
	}
	r.check("each_keys_latest_value_served", joinProblems(problems))
	problems = nil
	for _, s := range served {
		w, ok := at[fmt.Sprintf("%d/%d", s.partition, s.offset)]
		if s.control || !ok || w.Aborted {
			continue
		}
		l := latest[fmt.Sprintf("%d/%s", w.Partition, w.Key)]
		if l.Offset != w.Offset && !servedLine[l.line()] {
			problems = append(problems, fmt.Sprintf("older %s served without the newer %s", w.line(), l.line()))
		}
	}
	r.check("no_older_value_without_the_newer", joinProblems(problems))
	data := 0
	for _, s := range served {
		if !s.control {
			data++
		}
	}
	fmt.Printf("%d records written, %d served (%d of them markers), %d keys\n", len(written), len(served), len(served)-data, len(latest))
	return nil
}

// compactKill sends SIGKILL to the broker pid the moment a partition dir
// of the compacted topic holds a file of a cleaner pass in progress: a
// .swap file when at is "swap", else a .cleaned or .swap one. A .swap file
// lives only while the pass replaces the segments, so for it the dirs are
// read without a pause between reads.
func compactKill(ctx context.Context, dir string, pid int, at string) error {
	suffixes := []string{".cleaned", ".swap"}
	pause := 10 * time.Millisecond
	if at == "swap" {
		suffixes, pause = []string{".swap"}, 0
	}
	for {
		for p := int32(0); p < compactPartitions; p++ {
			part := fmt.Sprintf("%s-%d", compactTopic, p)
			entries, err := os.ReadDir(filepath.Join(dir, part))
			if err != nil {
				return err
			}
			for _, e := range entries {
				for _, s := range suffixes {
					if strings.HasSuffix(e.Name(), s) {
						if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
							return fmt.Errorf("kill %d: %w", pid, err)
						}
						fmt.Printf("killed %d on seeing %s/%s\n", pid, part, e.Name())
						return nil
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no %s file in %s-* in time", strings.Join(suffixes, " or "), compactTopic)
		case <-time.After(pause):
		}
	}
}
