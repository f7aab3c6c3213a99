package log

import (
	"cmp"
	"slices"
	"time"
)

// OffsetsBefore answers ListOffsets v0 as Kafka 0.8 to 3.x did
// (UnifiedLog.legacyFetchOffsetsBefore): each segment stands for its base
// offset (never below the log start offset) at the time its file was last
// modified, and the log end offset for now when the last segment holds
// data. latest (-1) starts from the newest entry, earliest (-2) from the
// oldest, any other timestamp from the newest entry modified at or before
// it; up to maxOffsets offsets are answered from there towards older ones,
// newest first. A consumer's answer (replica id -1) never goes past the
// high watermark: an offset above it is replaced by the high watermark.
func (l *Log) OffsetsBefore(timestamp int64, maxOffsets int32, consumer bool) []int64 {
	l.mu.RLock()
	type entry struct{ offset, modified int64 }
	entries := make([]entry, 0, len(l.segments)+1)
	start := l.logStartOffset.Load()
	for _, s := range l.segments {
		modified := s.created.UnixMilli()
		if st, err := s.log.Stat(); err == nil {
			modified = st.ModTime().UnixMilli()
		}
		entries = append(entries, entry{max(s.baseOffset, start), modified})
	}
	if n := len(l.segments); n > 0 && l.segments[n-1].size.Load() > 0 {
		entries = append(entries, entry{l.logEndOffset.Load(), time.Now().UnixMilli()})
	}
	hw := l.highWatermark.Load()
	l.mu.RUnlock()

	from := len(entries) - 1
	switch timestamp {
	case -1:
	case -2:
		from = 0
	default:
		for from >= 0 && entries[from].modified > timestamp {
			from--
		}
	}
	out := make([]int64, 0, max(min(int(maxOffsets), from+1), 0))
	for i := from; i >= 0 && len(out) < int(maxOffsets); i-- {
		out = append(out, entries[i].offset)
	}
	slices.SortFunc(out, func(a, b int64) int { return cmp.Compare(b, a) })
	if consumer && len(out) > 0 && out[0] > hw {
		for len(out) > 0 && out[0] > hw {
			out = out[1:]
		}
		out = append([]int64{hw}, out...)
	}
	return out
}
