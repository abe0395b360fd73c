package golang

import (
	"math"
	"unicode/utf8"
)

// gofmtKeyPadding is the padding gofmt puts after each key: of a composite
// literal written one key: value a line, so that a template can write the
// literal as gofmt would and opctl need not run gofmt on it. It follows
// go/printer's exprList: values line up in a column after the longest key
// of a run of lines, and a run ends where a key is much longer or shorter
// than those before it in the run (keys over 40 characters, by the
// geometric mean).
func gofmtKeyPadding(keys []string) []int {
	pads := make([]int, len(keys))
	if len(keys) < 2 {
		return pads // a single entry is not aligned
	}
	const smallSize, threshold = 40, 2.5
	runStart, size, lnsum, count := 0, 0, 0.0, 0
	endRun := func(end int) {
		width := 0
		for _, k := range keys[runStart:end] {
			width = max(width, utf8.RuneCountInString(k))
		}
		for i := runStart; i < end; i++ {
			pads[i] = width - utf8.RuneCountInString(keys[i])
		}
		runStart = end
	}
	for i, k := range keys {
		prevSize := size
		size = len(k)
		if i > 0 {
			newRun := true
			if count == 0 || prevSize <= smallSize && size <= smallSize {
				newRun = false
			} else {
				ratio := float64(size) / math.Exp(lnsum/float64(count))
				newRun = threshold*ratio <= 1 || threshold <= ratio
			}
			if newRun {
				endRun(i)
				lnsum, count = 0, 0 // a new section starts the mean again
			}
		}
		lnsum += math.Log(float64(size))
		count++
	}
	endRun(len(keys))
	return pads
}
