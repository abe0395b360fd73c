// Command chart turns `go test -bench RenderKinds` output (stdin) into an
// SVG line chart of render time against the number of kinds (stdout).
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
)

var line = regexp.MustCompile(`^BenchmarkRenderKinds/([\w-]+)/kinds=(\d+)-\d+\s+\d+\s+([\d.]+) ns/op`)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	series := map[string][][2]float64{} // style → (kinds, ms)
	maxKinds, maxMS := 0.0, 0.0
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		kinds, _ := strconv.ParseFloat(m[2], 64)
		ns, _ := strconv.ParseFloat(m[3], 64)
		ms := ns / 1e6
		series[m[1]] = append(series[m[1]], [2]float64{kinds, ms})
		maxKinds, maxMS = max(maxKinds, kinds), max(maxMS, ms)
	}
	if len(series) == 0 {
		return fmt.Errorf("no BenchmarkRenderKinds lines on stdin")
	}
	const w, h, pad = 480.0, 300.0, 50.0
	x := func(k float64) float64 { return pad + k/maxKinds*(w-2*pad) }
	y := func(ms float64) float64 { return h - pad - ms/maxMS*(h-2*pad) }
	fmt.Fprintf(out, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(out, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(out, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", pad, h-pad, w-pad, h-pad)
	fmt.Fprintf(out, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", pad, pad, pad, h-pad)
	fmt.Fprintf(out, `<text x="%.0f" y="%.0f" text-anchor="middle">kinds (20 fields each)</text>`+"\n", w/2, h-12)
	fmt.Fprintf(out, `<text x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">render time (ms)</text>`+"\n", h/2, h/2)
	fmt.Fprintf(out, `<text x="%.0f" y="%.0f" text-anchor="end">%.0f</text>`+"\n", pad-4, pad+4, maxMS)
	fmt.Fprintf(out, `<text x="%.0f" y="%.0f" text-anchor="middle">%.0f</text>`+"\n", w-pad, h-pad+16, maxKinds)
	colours := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}
	var styles []string
	for s := range series {
		styles = append(styles, s)
	}
	sort.Strings(styles)
	for i, s := range styles {
		pts := series[s]
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
