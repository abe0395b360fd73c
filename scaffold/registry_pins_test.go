package scaffold_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
)

// TestPinsAreWhatTheFilesUse renders every golden project with each pin
// set to a marker of its own: the markers in a style's files are exactly
// EnginePins and the style's Pins, which its project file records.
func TestPinsAreWhatTheFilesUse(t *testing.T) {
	t.Parallel()
	var marked scaffold.Versions
	markers := map[string]string{}
	fields := reflect.ValueOf(&marked).Elem()
	for i := 0; i < fields.NumField(); i++ {
		key := scaffold.PinKey(fields.Type().Field(i))
		markers[key] = "PIN-" + key + "-PIN"
		fields.Field(i).SetString(markers[key])
	}
	used := map[string]map[string]bool{}
	styles := map[string]scaffold.Style{}
	for name, c := range goldenCases(t) {
		p := c.project
		p.Versions = marked
		tree, err := scaffold.Render(p, c.style)
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
		pins := append(slices.Clone(scaffold.EnginePins), style.Pins...)
		for _, pin := range pins {
			assert.Contains(t, markers, pin, "style %s: %s is no pin of Versions", name, pin)
		}
		var files []string
		for key := range used[name] {
			files = append(files, key)
		}
		slices.Sort(files)
		slices.Sort(pins)
		assert.Equal(t, pins, files, "style %s: the pins its files use (EnginePins and the style's Pins)", name)
	}
}
