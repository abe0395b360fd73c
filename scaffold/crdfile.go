package scaffold

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
)

// documentSeparator splits a YAML stream into its documents.
var documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// LoadCRD reads the CRD of kind (any, when the file has one) from a YAML
// file of CRDs given to --from-crd, as an operator's release ships them.
func LoadCRD(path, kind string) (*apiextensionsv1.CustomResourceDefinition, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, input.Errorf("--from-crd %s: %v", path, errors.Unwrap(err))
	}
	var found []*apiextensionsv1.CustomResourceDefinition
	for _, doc := range documentSeparator.Split(string(b), -1) {
		if len(bytes.TrimSpace([]byte(doc))) == 0 {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal([]byte(doc), &crd); err != nil {
			return nil, input.Errorf("--from-crd %s: %v", path, oneLine(err))
		}
		if crd.Kind == "CustomResourceDefinition" {
			found = append(found, &crd)
		}
	}
	var kinds []string
	for _, crd := range found {
		if crd.Spec.Names.Kind == kind || kind == "" && len(found) == 1 {
			return crd, nil
		}
		kinds = append(kinds, crd.Spec.Names.Kind)
	}
	switch {
	case len(found) == 0:
		return nil, input.Errorf("--from-crd %s: the file has no CustomResourceDefinition", path)
	case kind == "":
		return nil, input.Errorf("--from-crd %s: the file has the CRDs of %s: name one with --kind", path, strings.Join(slices.Sorted(slices.Values(kinds)), ", "))
	}
	return nil, input.Errorf("--kind %s: %s has no CRD of it (it has %s)", kind, path, strings.Join(slices.Sorted(slices.Values(kinds)), ", "))
}

// LoadCRDFile takes a kind back from a CRD in a file (LoadCRD), in version
// (the storage version when ""), for a project of domain.
func LoadCRDFile(path, kind, version, domain string) (api.API, error) {
	crd, err := LoadCRD(path, kind)
	if err != nil {
		return api.API{}, err
	}
	a, err := api.FromCRD(crd, version, domain)
	if err != nil {
		return api.API{}, input.Errorf("--from-crd %s: %v", path, err)
	}
	return a, nil
}
