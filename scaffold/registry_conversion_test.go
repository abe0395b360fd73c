package scaffold_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// A version renaming a field takes a conversion webhook: a style whose
// runtime serves one writes the CRD's conversion, any other refuses the
// project, saying why.
func TestRenamedFieldsConvertOrRefuse(t *testing.T) {
	for _, s := range styles.All() {
		if s.ExistingKinds {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			p, _, err := seedProject(t, s).AddVersion(input.FlagSource, "Database", "v2",
				api.APIEdit{Renames: []api.Rename{{From: "engine", To: "flavor"}}})
			require.NoError(t, err)
			err = p.Validate(input.FlagSource, styles.All())
			if s.CannotConvert != "" {
				assert.ErrorContains(t, err, s.CannotConvert)
				return
			}
			require.NoError(t, err)
			rt := s.Runtime(p)
			require.NotNil(t, rt.Conversion, "the runtime serves the conversion")
			tree, err := render.Project(p, s)
			require.NoError(t, err)
			crd, ok := tree.Get(render.CRDPath(p, p.APIs[0]))
			require.True(t, ok)
			assert.Contains(t, string(crd.Content), "    strategy: Webhook\n")
			assert.Contains(t, string(crd.Content), "path: "+rt.Conversion.Path(p.APIs[0].CRDName(p.Domain))+"\n")
		})
	}
}
