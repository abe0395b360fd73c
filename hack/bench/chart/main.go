// Command chart turns `go test -bench RenderKinds` output (stdin) into an
// SVG line chart of render time against the number of kinds (stdout).
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"github.com/opctl/opctl/hack/bench/linechart"
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
	}
	if len(series) == 0 {
		return fmt.Errorf("no BenchmarkRenderKinds lines on stdin")
	}
	return linechart.Write(out, linechart.Chart{XLabel: "kinds (20 fields each)", YLabel: "render time (ms)", Series: series})
}
