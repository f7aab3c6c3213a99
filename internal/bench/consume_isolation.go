package bench

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// isolationOpt is the fetch option for a consumer's isolation.level:
// read_uncommitted (the default, also for "") reads up to the high
// watermark; read_committed reads up to the last stable offset and drops
// aborted records, which is what a transactional pipeline's consumer pays.
func isolationOpt(level string) (kgo.Opt, error) {
	switch level {
	case "", "read_uncommitted":
		return kgo.FetchIsolationLevel(kgo.ReadUncommitted()), nil
	case "read_committed":
		return kgo.FetchIsolationLevel(kgo.ReadCommitted()), nil
	}
	return nil, fmt.Errorf("isolation %q: want read_uncommitted or read_committed", level)
}
