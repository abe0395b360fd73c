// Command kubetypes writes scaffold/api/kubetypes.json: the schema of every
// Kubernetes type a field may name (api.KubeTypes), as controller-gen writes
// it for a field of that Go type, from the pinned k8s.io/api and
// controller-tools (both from the Go module proxy; controller-gen is built
// into .cache/). The schemas are Kubernetes' own, descriptions included, so
// a go project's controller-gen and opctl write the same CRD. Subtrees that
// several types share (a Container in PodSpec's three lists) are written
// once under "shared".
//
// Usage: go run ./hack/kubetypes [-check]   (make kubetypes)
// With -check it writes nothing and fails when the file is not what it
// would write.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/pins"
)

// sharedMin is the size in bytes of JSON from which a subtree met twice is
// shared: below it, a reference saves little.
const sharedMin = 400

func main() {
	check := flag.Bool("check", false, "fail when scaffold/api/kubetypes.json is not current; write nothing")
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "kubetypes:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	root, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	v := pins.DefaultVersions()
	controllerGen, err := goInstall(root, "sigs.k8s.io/controller-tools/cmd/controller-gen", v.ControllerTools)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "opctl-kubetypes-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	types := api.KubeTypes()
	if err := writeModule(dir, v.Kubernetes, types); err != nil {
		return err
	}
	if err := runIn(dir, "go", "mod", "tidy"); err != nil {
		return err
	}
	if err := runIn(dir, controllerGen, "crd", "paths=./...", "output:crd:dir="+filepath.Join(dir, "out")); err != nil {
		return err
	}
	crd, err := os.ReadFile(filepath.Join(dir, "out", "kubetypes.opctl.invalid_schemas.yaml"))
	if err != nil {
		return err
	}
	out, err := schemaFile(crd, types, v)
	if err != nil {
		return err
	}
	path := filepath.Join(root, "scaffold", "api", "kubetypes.json")
	if check {
		have, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(have, out) {
			return fmt.Errorf("%s is not what controller-gen %s writes for k8s.io/api %s: run make kubetypes", path, v.ControllerTools, v.Kubernetes)
		}
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}

// fieldName is the JSON name of the field of type number i.
func fieldName(i int) string { return fmt.Sprintf("t%d", i) }

// writeModule writes a Go module with one kind whose spec has a field of
// each type.
func writeModule(dir, kubernetes string, types []api.KubeType) error {
	imports := map[string]bool{}
	var fields strings.Builder
	for i, k := range types {
		imports[fmt.Sprintf("%s %q", k.GoAlias(), k.Package)] = true
		fmt.Fprintf(&fields, "\tT%d %s.%s `json:\"%s\"`\n", i, k.GoAlias(), k.GoName, fieldName(i))
	}
	var imps []string
	for imp := range imports {
		imps = append(imps, "\t"+imp)
	}
	if !imports[`metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"`] {
		imps = append(imps, "\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"")
	}
	src := "// +kubebuilder:object:generate=false\n// +groupName=kubetypes.opctl.invalid\npackage kubetypes\n\nimport (\n" +
		strings.Join(slices.Sorted(slices.Values(imps)), "\n") + "\n)\n\ntype Spec struct {\n" + fields.String() + "}\n\n" +
		"// +kubebuilder:object:root=true\ntype Schemas struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n\tSpec Spec `json:\"spec\"`\n}\n"
	mod := fmt.Sprintf("module opctl.invalid/kubetypes\n\ngo 1.26\n\nrequire (\n\tk8s.io/api %s\n\tk8s.io/apimachinery %s\n)\n", kubernetes, kubernetes)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "types.go"), []byte(src), 0o644)
}

// schemaFile is kubetypes.json from the CRD controller-gen wrote.
func schemaFile(crdYAML []byte, types []api.KubeType, v pins.Versions) ([]byte, error) {
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties struct {
							Spec struct {
								Properties map[string]any `json:"properties"`
							} `json:"spec"`
						} `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(crdYAML, &crd); err != nil {
		return nil, err
	}
	props := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties.Spec.Properties
	schemas := map[string]any{}
	for i, k := range types {
		s, ok := props[fieldName(i)]
		if !ok {
			return nil, fmt.Errorf("controller-gen wrote no schema for %s", k.Name)
		}
		schemas[k.Name] = s
	}
	counts := map[string]int{}
	for _, s := range schemas {
		count(s, counts)
	}
	shared := map[string]any{}
	types2 := map[string]any{}
	for name, s := range schemas {
		types2[name] = share(s, counts, shared)
	}
	return json.MarshalIndent(map[string]any{
		"kubernetes": v.Kubernetes, "controllerTools": v.ControllerTools,
		"types": types2, "shared": shared,
	}, "", " ")
}

// key is a subtree's key: the hash of its JSON, and its size.
func key(v any) (string, int) {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6]), len(b)
}

// count counts the objects of v by key.
func count(v any, counts map[string]int) {
	switch t := v.(type) {
	case map[string]any:
		if k, size := key(t); size >= sharedMin {
			counts[k]++
		}
		for _, x := range t {
			count(x, counts)
		}
	case []any:
		for _, x := range t {
			count(x, counts)
		}
	}
}

// share is v with each object met more than once replaced by a reference
// to it in shared ({"$ref": KEY}: no CRD schema has a $ref of its own).
func share(v any, counts map[string]int, shared map[string]any) any {
	switch t := v.(type) {
	case map[string]any:
		k, size := key(t)
		out := map[string]any{}
		for name, x := range t {
			out[name] = share(x, counts, shared)
		}
		if size >= sharedMin && counts[k] > 1 {
			shared[k] = out
			return map[string]any{"$ref": k}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = share(x, counts, shared)
		}
		return out
	}
	return v
}

// goInstall builds pkg at version into .cache/ once, as the tests of
// generated projects do, and returns the binary.
func goInstall(root, pkg, version string) (string, error) {
	name := filepath.Base(pkg)
	bin := filepath.Join(root, ".cache", name+"-"+version)
	if _, err := os.Stat(filepath.Join(bin, name)); err == nil {
		return filepath.Join(bin, name), nil
	}
	cmd := exec.Command("go", "install", pkg+"@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %v\n%s", pkg, version, err, out)
	}
	return filepath.Join(bin, name), nil
}

func runIn(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
