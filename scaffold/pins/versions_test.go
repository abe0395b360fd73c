package pins

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPinNoteApplies(t *testing.T) {
	for _, tc := range []struct {
		reaches, from, to string
		want              bool
	}{
		{"6.0.0", "3.2.0", "6.5.0", true},
		{"6.0.0", "6.0.0", "6.5.0", false},      // already past it
		{"6.0.0", "2.4.0", "5.4.4", false},      // not there yet
		{"v0.26.0", "v0.25.3", "v0.26.0", true}, // exactly to it
		{"13", ">=11,<13", ">=13,<14", true},
		{"26", ">=25,<26", ">=26,<27", true},
		{"5", "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2", "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1", true},
		{"5", "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1", "actions/checkout@0000000000000000000000000000000000000000 # v7.1.0", false},
		{"trixie", "golang:1.26.8-bookworm", "golang:1.26.8-trixie", true},
		{"trixie", "golang:1.26.8-trixie", "golang:1.27.0-trixie", false},
		{"debian13", "gcr.io/distroless/static-debian12:nonroot", "gcr.io/distroless/static-debian13:nonroot", true},
		{"", "v1.36.0", "v1.37.2", true},
		{"", "v1.37.2", "v1.37.2", false},
	} {
		got := Note{Reaches: tc.reaches}.Applies(tc.from, tc.to)
		assert.Equal(t, tc.want, got, "%q: %s -> %s", tc.reaches, tc.from, tc.to)
	}
}

// A note's release is one Applies can compare: a version, or a word the
// default pin contains.
func TestPinNotesAreForReleases(t *testing.T) {
	defaults := DefaultVersions()
	for key, source := range Sources() {
		for _, n := range source.Notes {
			pin := defaults.Pin(key)
			if n.Reaches != "" && releaseNumbers(n.Reaches) == nil {
				assert.Contains(t, pin, n.Reaches, "%s: the note is for a word the pin does not contain", key)
			}
			if releaseNumbers(n.Reaches) != nil {
				assert.NotNil(t, releaseNumbers(Release(pin)), "%s: %q has no version to compare with the note's", key, pin)
			}
			assert.NotEmpty(t, n.Text, key)
		}
	}
}
