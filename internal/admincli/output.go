package admincli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// table writes aligned columns, as Kafka's tools print their listings.
type table struct{ w *tabwriter.Writer }

func newTable(out io.Writer, header ...string) *table {
	t := &table{w: tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)}
	t.row(toAny(header)...)
	return t
}

func (t *table) row(cells ...any) {
	for i, c := range cells {
		if i > 0 {
			fmt.Fprint(t.w, "\t")
		}
		fmt.Fprint(t.w, c)
	}
	fmt.Fprintln(t.w)
}

func (t *table) flush() { t.w.Flush() }

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// joinInt32s prints replica lists as Kafka's tools do: 1,2,3.
func joinInt32s(ns []int32) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ",")
}

// resultErr names what failed with the broker's error and its message.
func resultErr(what string, err error, message string) error {
	if err == nil {
		return nil
	}
	if message != "" && !strings.Contains(err.Error(), message) {
		return fmt.Errorf("%s: %w: %s", what, err, message)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// failures collects per-resource errors: the others are still printed,
// and the command fails at the end.
type failures struct {
	errs []error
	err  io.Writer
}

func (f *failures) add(err error) {
	if err != nil {
		fmt.Fprintf(f.err, "error: %v\n", err)
		f.errs = append(f.errs, err)
	}
}

// keep records an error already reported on stderr.
func (f *failures) keep(err error) {
	if err != nil {
		f.errs = append(f.errs, err)
	}
}

// result is nil when all went well, else an error already reported.
func (f *failures) result() error {
	if len(f.errs) == 0 {
		return nil
	}
	return reportedError{errors.Join(f.errs...)}
}

// reportedError was printed on stderr as it happened: Run only sets the
// exit status.
type reportedError struct{ error }

func (r reportedError) Unwrap() error { return r.error }
