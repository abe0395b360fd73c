// Package linechart draws the benchmark charts under docs/ as SVG line
// charts, one line per style.
package linechart

import (
	"fmt"
	"io"
	"math"
	"sort"
)

// Chart is what Write draws: each series' points (x, y), labelled axes,
// either of them logarithmic.
type Chart struct {
	XLabel, YLabel string
	Series         map[string][][2]float64
	LogX, LogY     bool
}

// Write draws c as SVG.
func Write(out io.Writer, c Chart) error {
	if len(c.Series) == 0 {
		return fmt.Errorf("no points to draw")
	}
	minX, maxX, minY, maxY := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, pts := range c.Series {
		for _, p := range pts {
			minX, maxX, minY, maxY = min(minX, p[0]), max(maxX, p[0]), min(minY, p[1]), max(maxY, p[1])
		}
	}
	const w, h, pad = 480.0, 300.0, 50.0
	scale := func(v, lo, hi float64, log bool) float64 {
		if !log {
			return v / hi
		}
		if hi <= lo {
			return 1
		}
		return (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
	}
	x := func(v float64) float64 { return pad + scale(v, minX, maxX, c.LogX)*(w-2*pad) }
	y := func(v float64) float64 { return h - pad - scale(v, minY, maxY, c.LogY)*(h-2*pad) }
	fmt.Fprintf(out, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(out, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(out, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", pad, h-pad, w-pad, h-pad)
	fmt.Fprintf(out, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", pad, pad, pad, h-pad)
	fmt.Fprintf(out, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", w/2, h-12, c.XLabel)
	fmt.Fprintf(out, `<text x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">%s</text>`+"\n", h/2, h/2, c.YLabel)
	if c.LogY {
		fmt.Fprintf(out, `<text x="%.0f" y="%.0f" text-anchor="end">%g</text>`+"\n", pad-4, h-pad, minY)
	}
	fmt.Fprintf(out, `<text x="%.0f" y="%.0f" text-anchor="end">%.0f</text>`+"\n", pad-4, pad+4, maxY)
	if c.LogX {
		fmt.Fprintf(out, `<text x="%.0f" y="%.0f" text-anchor="middle">%g</text>`+"\n", pad, h-pad+16, minX)
	}
	fmt.Fprintf(out, `<text x="%.0f" y="%.0f" text-anchor="middle">%.0f</text>`+"\n", w-pad, h-pad+16, maxX)
	colours := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}
	var names []string
	for s := range c.Series {
		names = append(names, s)
	}
	sort.Strings(names)
	for i, s := range names {
		pts := c.Series[s]
		sort.Slice(pts, func(a, b int) bool { return pts[a][0] < pts[b][0] })
		path := ""
		for j, p := range pts {
			cmd := "L"
			if j == 0 {
				cmd = "M"
			}
			path += fmt.Sprintf("%s%.1f %.1f ", cmd, x(p[0]), y(p[1]))
			fmt.Fprintf(out, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(p[0]), y(p[1]), colours[i%len(colours)])
		}
		fmt.Fprintf(out, `<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", path, colours[i%len(colours)])
		fmt.Fprintf(out, `<text x="%.0f" y="%.0f" fill="%s">%s</text>`+"\n", pad+10, pad+16*float64(i+1), colours[i%len(colours)], s)
	}
	fmt.Fprintln(out, "</svg>")
	return nil
}
