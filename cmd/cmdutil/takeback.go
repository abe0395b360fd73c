package cmdutil

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
)

// TakeBack returns the project with kind taken back from the CRD in the
// file at path (relative to the project, or absolute; API.TakenBack), and
// the kind as it was. When the file is the kind's own CRD, what it holds
// now is taken, so opctl writes it again; and in a style whose types are
// code, a description there that is one of opctl's own doc comments
// (controller-gen wrote it from the types) is read as what opctl wrote
// (api.RestoreOwnDescriptions); the project returned records the file's
// hash as opctl's.
func TakeBack(env Env, p scaffold.Project, style scaffold.Style, kind, path string) (scaffold.Project, api.API, error) {
	i := slices.IndexFunc(p.APIs, func(a api.API) bool { return a.Kind == kind })
	if i < 0 {
		// Its error names the kinds there are.
		return p.TakeBackFrom(input.FlagSource, kind, api.API{})
	}
	a := p.APIs[i]
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(env.Dir, full)
	}
	crd, err := scaffold.LoadCRD(full, kind)
	if err != nil {
		return p, a, err
	}
	own := render.CRDPath(p, a)
	if rel, err := filepath.Rel(env.Dir, full); err == nil && filepath.ToSlash(rel) == own && p.Generated[own] != "" {
		b, err := os.ReadFile(full)
		if err != nil {
			return p, a, err
		}
		if style.TypesFile != nil {
			if err := restoreOwnDescriptions(p, style, a, crd); err != nil {
				return p, a, err
			}
		}
		p.Generated = maps.Clone(p.Generated)
		p.Generated[own] = machinery.ContentHash(b)
	}
	from, err := api.FromCRD(crd, a.Version, p.Domain)
	if err != nil {
		return p, a, input.Errorf("%s: %v", path, err)
	}
	return p.TakeBackFrom(input.FileSource(path), kind, from)
}

// restoreOwnDescriptions reads the descriptions in crd that are opctl's
// doc comments in the types it wrote for p as those of the CRD it wrote.
func restoreOwnDescriptions(p scaffold.Project, style scaffold.Style, a api.API, crd *apiextensionsv1.CustomResourceDefinition) error {
	previous, err := render.Project(p, style)
	if err != nil {
		return err
	}
	var code [][]byte
	for _, k := range p.APIs {
		if f, ok := previous.Get(style.TypesFile(p, k)); ok {
			code = append(code, f.Content)
		}
	}
	was, ok := previous.Get(render.CRDPath(p, a))
	if !ok {
		return nil
	}
	var wasCRD apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(was.Content, &wasCRD); err != nil {
		return fmt.Errorf("internal error: %s as opctl writes it: %w", was.Path, err)
	}
	api.RestoreOwnDescriptions(crd, &wasCRD, a.Version, api.CodeComments(code...))
	return nil
}
