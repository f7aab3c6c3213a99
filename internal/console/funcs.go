package console

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

var templateFuncs = template.FuncMap{
	"bytes":    humanBytes,
	"rate":     humanRate,
	"chart":    chart,
	"join":     joinInt32s,
	"duration": func(d time.Duration) string { return d.Round(time.Millisecond).String() },
	"time":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000 UTC") },
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func humanRate(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	case v >= 10 || v == 0:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func joinInt32s(ns []int32) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// Chart size in SVG user units.
const chartWidth, chartHeight = 600.0, 120.0

// chart draws s as an SVG line over the sampler's window: built from
// numbers only, so it is safe as HTML.
func chart(s series, window time.Duration) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %g %g" role="img" aria-label="%s">`, chartWidth, chartHeight, template.HTMLEscapeString(s.Name))
	if len(s.Points) > 0 {
		end := s.Points[len(s.Points)-1].At
		top := s.Max()
		if top == 0 {
			top = 1
		}
		b.WriteString(`<polyline fill="none" stroke="currentColor" stroke-width="2" points="`)
		for _, p := range s.Points {
			x := chartWidth * (1 - end.Sub(p.At).Seconds()/window.Seconds())
			y := chartHeight - 4 - (chartHeight-8)*p.Value/top
			fmt.Fprintf(&b, "%.1f,%.1f ", x, y)
		}
		b.WriteString(`"/>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
