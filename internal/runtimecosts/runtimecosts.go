// Package runtimecosts holds what each style costs in its real runtime, as
// `make bench-runtimes` measured it: the results, their table in
// docs/runtime-costs.md, and the figures `opctl decide` shows.
package runtimecosts

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Result is one style's measure at one N: N objects of its seed kind made
// at once, then a spec change to all of them, then a minute alone.
type Result struct {
	Style   string `json:"style"`
	N       int    `json:"n"`
	Date    string `json:"date"`
	Machine string `json:"machine"`
	// Ready objects within the limit, and the seconds until the last was.
	Ready        int     `json:"ready"`
	ReadySeconds float64 `json:"readySeconds"`
	// Changed: objects whose children followed the change, and when the
	// last did (none measured unless all were Ready).
	Changed       int     `json:"changed"`
	ChangeSeconds float64 `json:"changeSeconds"`
	// CPUSeconds and PeakRSSMiB are the runtime's processes' over both.
	CPUSeconds float64 `json:"cpuSeconds"`
	PeakRSSMiB float64 `json:"peakRSSMiB"`
	// RequestsPerObject: the runtime's API requests over both, per object.
	RequestsPerObject float64 `json:"requestsPerObject"`
	// WritesPerMinute: the runtime's writes in the minute after the last
	// object followed the change (its Lease's renewals left out).
	WritesPerMinute float64 `json:"writesPerMinute"`
}

// Converged: every object was Ready and followed the change.
func (r Result) Converged() bool { return r.Ready == r.N && r.Changed == r.N }

// Latest keeps each style's last run (a run measures increasing N, so a
// result whose N is not above the one before starts a new one), ordered
// by style as given in order (others after, by name), then by N.
func Latest(results []Result, order []string) []Result {
	runs := map[string][]Result{}
	for _, r := range results {
		run := runs[r.Style]
		if len(run) > 0 && r.N <= run[len(run)-1].N {
			run = nil
		}
		runs[r.Style] = append(run, r)
	}
	rank := map[string]int{}
	for i, s := range order {
		rank[s] = i + 1
	}
	var names []string
	for s := range runs {
		if rank[s] == 0 {
			rank[s] = len(order) + 1
		}
		names = append(names, s)
	}
	sort.Slice(names, func(i, j int) bool {
		if rank[names[i]] != rank[names[j]] {
			return rank[names[i]] < rank[names[j]]
		}
		return names[i] < names[j]
	})
	var out []Result
	for _, s := range names {
		out = append(out, runs[s]...)
	}
	return out
}

// Table is the markdown table of results, preceded by the dates and
// machines they were taken on and the styles measured on each.
func Table(results []Result) string {
	var b strings.Builder
	var when []string
	styles := map[string][]string{}
	for _, r := range results {
		on := r.Date + ", " + r.Machine
		if styles[on] == nil {
			when = append(when, on)
		}
		if !slices.Contains(styles[on], r.Style) {
			styles[on] = append(styles[on], r.Style)
		}
	}
	for _, on := range when {
		fmt.Fprintf(&b, "Measured on %s: %s.\n", on, strings.Join(styles[on], ", "))
	}
	b.WriteString("\n| style | N | all Ready | change followed | CPU | peak RSS | API requests per object | writes in the minute after |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", r.Style, r.N,
			reached(r.Ready, r.N, r.ReadySeconds), changed(r), num(r.CPUSeconds)+" s", num(r.PeakRSSMiB)+" MiB",
			num(r.RequestsPerObject), idle(r))
	}
	return b.String()
}

// Summary is one style's figures in a line for `opctl decide`: at the
// largest N measured, or "not measured".
func Summary(results []Result, style string) string {
	r, ok := largest(results, style)
	if !ok {
		return "not measured"
	}
	if r.Ready < r.N {
		return fmt.Sprintf("N=%d: %d Ready within %s s", r.N, r.Ready, num(r.ReadySeconds))
	}
	return fmt.Sprintf("N=%d: all Ready in %s s, %s CPU-s, %s MiB, %s requests/object", r.N,
		num(r.ReadySeconds), num(r.CPUSeconds), num(r.PeakRSSMiB), num(r.RequestsPerObject))
}

// Slower is the ratio of the times to Ready above which a style's figures
// fall short of the runner-up's (ShortOf).
const Slower = 3

// ShortOf says where a style's figures at the largest N measured fall
// short: not every object Ready (or following the change) within the
// bench's limit, or all Ready but Slower times or more the runner-up's
// time at that N; "" when they do not, or the style was not measured.
func ShortOf(results []Result, style, runnerUp string) string {
	r, ok := largest(results, style)
	if !ok {
		return ""
	}
	switch {
	case r.Ready < r.N:
		return fmt.Sprintf("at N=%d, %d objects Ready within %s s", r.N, r.Ready, num(r.ReadySeconds))
	case r.Changed < r.N:
		return fmt.Sprintf("at N=%d, all Ready in %s s, but %d followed a change within %s s", r.N, num(r.ReadySeconds), r.Changed, num(r.ChangeSeconds))
	}
	if other, ok := largest(results, runnerUp); ok && other.N == r.N && other.Converged() && r.ReadySeconds >= Slower*other.ReadySeconds {
		return fmt.Sprintf("at N=%d, all Ready in %s s, %s's in %s s", r.N, num(r.ReadySeconds), runnerUp, num(other.ReadySeconds))
	}
	return ""
}

// largest is the style's result at the largest N measured.
func largest(results []Result, style string) (Result, bool) {
	var last *Result
	for i := range results {
		if results[i].Style == style && (last == nil || results[i].N > last.N) {
			last = &results[i]
		}
	}
	if last == nil {
		return Result{}, false
	}
	return *last, true
}

func reached(done, n int, seconds float64) string {
	if done == n {
		return num(seconds) + " s"
	}
	return fmt.Sprintf("%d of %d in %s s", done, n, num(seconds))
}

func changed(r Result) string {
	if r.Ready < r.N {
		return "not tried"
	}
	return reached(r.Changed, r.N, r.ChangeSeconds)
}

func idle(r Result) string {
	if !r.Converged() {
		return "not measured"
	}
	return num(r.WritesPerMinute)
}

// ParseSizes parses the N to measure: a comma-separated list of
// increasing counts, 10,100,1000 when empty.
func ParseSizes(v string) ([]int, error) {
	if v == "" {
		v = "10,100,1000"
	}
	var sizes []int
	for _, s := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || (len(sizes) > 0 && n <= sizes[len(sizes)-1]) {
			return nil, fmt.Errorf("%q: want increasing positive counts, as 10,100,1000", v)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// num prints a figure without a trailing zero fraction.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// DocPath is the document holding the table, between Begin and End, from
// the repository root.
const DocPath = "docs/runtime-costs.md"

// Begin and End mark the generated table in DocPath.
const (
	Begin = "<!-- BEGIN make bench-runtimes-doc -->"
	End   = "<!-- END make bench-runtimes-doc -->"
)
