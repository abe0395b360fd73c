package scaffold_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
)

// TestPinsAreWhatTheFilesUse renders every golden project with each pin
// set to a marker of its own: the markers in a style's files are exactly
// its RecordedPins, which its project file records.
func TestPinsAreWhatTheFilesUse(t *testing.T) {
	t.Parallel()
	var markers map[string]string
	b, err := json.Marshal(pins.DefaultVersions())
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &markers))
	for key := range markers {
		markers[key] = "PIN-" + key + "-PIN"
	}
	var marked pins.Versions
	b, err = json.Marshal(markers)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &marked))
	used := map[string]map[string]bool{}
	styles := map[string]scaffold.Style{}
	for name, c := range goldenCases(t) {
		p := c.project
		p.Versions = marked
		tree, err := render.Project(p, c.style)
		require.NoError(t, err, name)
		styles[c.style.Name] = c.style
		if used[c.style.Name] == nil {
			used[c.style.Name] = map[string]bool{}
		}
		for _, f := range tree.Files() {
			for key, marker := range markers {
				if f.Path != scaffold.ProjectFileName && strings.Contains(string(f.Content), marker) {
					used[c.style.Name][key] = true
				}
			}
		}
	}
	for name, style := range styles {
		pins := style.RecordedPins()
		for _, pin := range pins {
			assert.Contains(t, markers, pin, "style %s: %s is no pin of Versions", name, pin)
		}
		var files []string
		for key := range used[name] {
			files = append(files, key)
		}
		slices.Sort(files)
		slices.Sort(pins)
		assert.Equal(t, pins, files, "style %s: the pins its files use (RecordedPins)", name)
	}
}
