package scaffold_test

import (
	"bytes"
	"errors"
	"go/format"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// FuzzField: whatever --field spec the parser and the model validation
// accept must render in every style: a CRD the API server's validation
// accepts (Render checks it), Go as gofmt writes it, YAML that parses. A refusal
// must be an input.Error (exit 2), never an internal error.
func FuzzField(f *testing.F) {
	for _, seed := range []string{
		"engine:string:enum=mysql,postgres:required", "replicas:int32:min=1:max=5:default=1",
		"storage:quantity:default=10Gi", "ttl:duration:default=1h", "since:datetime:default=2025-01-01T00:00:00Z",
		"tags:[]string", "labels:map[string]string", "backup.schedule:string:pattern=^@(daily|hourly)$",
		"name:string:minLength=1:maxLength=8:default=x", "on:bool:default=true:column", "size:int64:min=-5",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		field, err := api.ParseField(spec)
		if err != nil {
			requireInputError(t, spec, err)
			return
		}
		api := api.API{Group: "fuzz", Version: "v1", Kind: "Fuzz", Plural: "fuzzes", Namespaced: true, Fields: []api.Field{field}, Owns: []string{"ConfigMap"}}
		for _, style := range styles.All() {
			if style.ExistingKinds {
				continue // no API
			}
			p, err := newProject(style, "fuzz").AddAPI(input.FlagSource, api)
			if err != nil {
				requireInputError(t, spec, err)
				return
			}
			tree, err := render.Project(p, style)
			if err != nil {
				requireInputError(t, spec, err)
				return
			}
			for _, file := range tree.Files() {
				switch {
				case strings.HasSuffix(file.Path, ".go"):
					// The templates write gofmt's layout: opctl does not run it.
					formatted, err := format.Source(file.Content)
					if err != nil {
						t.Fatalf("--field %q: %s (%s) does not parse: %v", spec, file.Path, style.Name, err)
					}
					if !bytes.Equal(formatted, file.Content) {
						t.Fatalf("--field %q: %s (%s) is not as gofmt writes it:\n%s", spec, file.Path, style.Name, file.Content)
					}
				// Helm templates are YAML only once Helm renders them
				// (registry_helm_test.go).
				case strings.HasSuffix(file.Path, ".yaml") && !strings.HasPrefix(file.Path, render.ChartDir+"/templates/"):
					for _, doc := range bytes.Split(file.Content, []byte("\n---\n")) {
						var v any
						if err := yaml.Unmarshal(doc, &v); err != nil {
							t.Fatalf("--field %q: %s (%s) is not YAML: %v", spec, file.Path, style.Name, err)
						}
					}
				}
			}
		}
	})
}

func requireInputError(t *testing.T, spec string, err error) {
	t.Helper()
	var inputErr *input.Error
	if !errors.As(err, &inputErr) {
		t.Fatalf("--field %q: internal error instead of an input error: %v", spec, err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("--field %q: error is not one line: %q", spec, err)
	}
}
