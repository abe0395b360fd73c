package runtimecosts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The figures opctl decide shows are the document's table.
func TestMeasuredIsTheDocument(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", DocPath))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), Begin)
	require.True(t, ok, "%s: no %s", DocPath, Begin)
	table, _, ok := strings.Cut(rest, End)
	require.True(t, ok, "%s: no %s", DocPath, End)
	assert.Equal(t, Table(Measured()), strings.TrimPrefix(table, "\n"), "%s and measured.go disagree: run make bench-runtimes-doc", DocPath)
}

func TestLatestKeepsEachStylesLastRun(t *testing.T) {
	got := Latest([]Result{
		{Style: "b", N: 10, ReadySeconds: 1}, {Style: "b", N: 100}, {Style: "a", N: 10}, {Style: "a", N: 100},
		{Style: "b", N: 10, ReadySeconds: 2}, {Style: "z", N: 10},
	}, []string{"b", "a"})
	assert.Equal(t, []Result{{Style: "b", N: 10, ReadySeconds: 2}, {Style: "a", N: 10}, {Style: "a", N: 100}, {Style: "z", N: 10}}, got)
}

func TestSummary(t *testing.T) {
	results := []Result{
		{Style: "go", N: 10, Ready: 10, Changed: 10, ReadySeconds: 1},
		{Style: "go", N: 100, Ready: 100, Changed: 100, ReadySeconds: 2.5, CPUSeconds: 3, PeakRSSMiB: 40, RequestsPerObject: 4.2},
		{Style: "ansible", N: 100, Ready: 61, ReadySeconds: 600},
	}
	for style, want := range map[string]string{
		"go":      "N=100: all Ready in 2.5 s, 3 CPU-s, 40 MiB, 4.2 requests/object",
		"ansible": "N=100: 61 Ready within 600 s",
		"kopf":    "not measured",
	} {
		assert.Equal(t, want, Summary(results, style), style)
	}
}

func TestShortOf(t *testing.T) {
	results := []Result{
		{Style: "go", N: 100, Ready: 100, Changed: 100, ReadySeconds: 50},
		{Style: "go", N: 1000, Ready: 1000, Changed: 1000, ReadySeconds: 15},
		{Style: "kopf", N: 1000, Ready: 1000, Changed: 1000, ReadySeconds: 44.9},
		{Style: "shell", N: 1000, Ready: 1000, Changed: 1000, ReadySeconds: 45},
		{Style: "meta", N: 1000, Ready: 1000, Changed: 990, ReadySeconds: 500, ChangeSeconds: 600},
		{Style: "ansible", N: 1000, Ready: 80, ReadySeconds: 600.4},
	}
	for _, tt := range []struct{ style, runnerUp, want string }{
		{"go", "kopf", ""},
		{"kopf", "go", ""},
		{"shell", "go", "at N=1000, all Ready in 45 s, go's in 15 s"},
		{"shell", "unmeasured", ""},
		{"meta", "go", "at N=1000, all Ready in 500 s, but 990 followed a change within 600 s"},
		{"ansible", "meta", "at N=1000, 80 objects Ready within 600.4 s"},
		{"unmeasured", "go", ""},
	} {
		assert.Equal(t, tt.want, ShortOf(results, tt.style, tt.runnerUp), tt.style+" beside "+tt.runnerUp)
	}
}

func TestTableSaysWhatDidNotConverge(t *testing.T) {
	table := Table([]Result{{Style: "ansible", N: 1000, Date: "2026-12-05", Machine: "m", Ready: 612, ReadySeconds: 600}})
	assert.Contains(t, table, "Measured on 2026-12-05, m: ansible.\n")
	assert.Contains(t, table, "| ansible | 1000 | 612 of 1000 in 600 s | not tried | 0 s | 0 MiB | 0 | not measured |\n")
}

func TestParseSizes(t *testing.T) {
	for in, want := range map[string][]int{"": {10, 100, 1000}, "5": {5}, "10, 50": {10, 50}} {
		got, err := ParseSizes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"0", "100,10", "10,10", "ten", "10,"} {
		_, err := ParseSizes(in)
		assert.Error(t, err, in)
	}
}
