package shelloperator

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/objpath"
)

// conversionBinding is a kubernetesCustomResourceConversion binding of a
// hook's --config: shell-operator chains its conversions, one version to
// the next and back, to convert between any two versions.
type conversionBinding struct {
	Name        string           `json:"name"`
	CRDName     string           `json:"crdName"`
	Conversions []conversionRule `json:"conversions"`
}

type conversionRule struct {
	FromVersion string `json:"fromVersion"`
	ToVersion   string `json:"toVersion"`
}

// shellConversion is the template data of a kind's conversion hook, its
// steps and its test.
type shellConversion struct {
	shellAPI
	Config string
	Steps  []shellStep
	Older  []shellOlder
	// Hub is the current version, which the API server stores.
	Hub string
	// Keeps: some step keeps the fields the next version removed.
	Keeps bool
}

// shellStep converts between a version and the next: up and down are the
// user's module's functions (Module, imported as Alias).
type shellStep struct {
	From, To, Module, Alias string
	// Up and Down are the renames of the step as jq, each an update of
	// the objects holding the field.
	Up, Down []string
	// Removed are the paths of the fields To lacks (api.ServedVersion) as
	// JSON, "" for none: their values stay in To's annotation Annotation.
	Removed, Annotation string
}

// shellOlder is an older version as the conversion test takes it: its
// cases converted up the steps to the hub (Up, pairs of versions), where
// MovedJSON (pairs of field names) must hold their values, and back.
type shellOlder struct {
	Version   string
	Up, Down  [][2]string
	MovedJSON string
}

// newShellConversion is the conversion of a kind whose versions convert.
func newShellConversion(p scaffold.Project, sa shellAPI) (shellConversion, error) {
	a := sa.API
	versions := []string{}
	for _, v := range a.Served {
		versions = append(versions, v.Name)
	}
	versions = append(versions, a.Version)
	c := shellConversion{shellAPI: sa, Hub: a.Version, Keeps: a.KeepsRemoved()}
	binding := conversionBinding{Name: a.Plural + "-conversion", CRDName: a.CRDName(p.Domain)}
	for i, v := range a.Served {
		from, to := v.Name, versions[i+1]
		binding.Conversions = append(binding.Conversions,
			conversionRule{sa.FullGroup + "/" + from, sa.FullGroup + "/" + to}, conversionRule{sa.FullGroup + "/" + to, sa.FullGroup + "/" + from})
		step := shellStep{From: from, To: to, Module: "lib/" + a.Plural + "/convert_" + from + "_" + to, Alias: from + "_" + to}
		for _, r := range v.Renames {
			step.Up = append(step.Up, jqRename(r.From, r.To))
			step.Down = append([]string{jqRename(r.To, r.From)}, step.Down...)
		}
		if len(v.Removed) > 0 {
			var paths [][]string
			for _, name := range v.Removed {
				paths = append(paths, api.Field{Name: name}.Path())
			}
			b, err := json.Marshal(paths)
			if err != nil {
				return c, err
			}
			step.Removed, step.Annotation = string(b), a.RemovedAnnotation(p.Domain, i)
		}
		c.Steps = append(c.Steps, step)
		older := shellOlder{Version: from}
		for j := i; j < len(a.Served); j++ {
			older.Up = append(older.Up, [2]string{versions[j], versions[j+1]})
			older.Down = append([][2]string{{versions[j+1], versions[j]}}, older.Down...)
		}
		moved := [][2]string{}
		for _, m := range a.Moved(i) {
			moved = append(moved, [2]string{m.From, m.To})
		}
		b, err := json.Marshal(moved)
		if err != nil {
			return c, err
		}
		older.MovedJSON = string(b)
		c.Older = append(c.Older, older)
	}
	cfg, err := json.MarshalIndent(struct {
		ConfigVersion string              `json:"configVersion"`
		Conversion    []conversionBinding `json:"kubernetesCustomResourceConversion"`
	}{"v1", []conversionBinding{binding}}, "", "  ")
	c.Config = string(cfg)
	return c, err
}

// jqRename is the jq that renames the spec field from to the last part of
// to, in every object holding it (each object of a list on the way).
func jqRename(from, to string) string {
	path := api.Field{Name: from}.Path()
	parent := ".spec | objects"
	for _, seg := range path[:len(path)-1] {
		key, list := strings.CutSuffix(seg, objpath.ListSuffix)
		if list {
			parent += " | " + jqGet(key) + " | arrays | .[] | objects"
		} else {
			parent += " | " + jqGet(key) + " | objects"
		}
	}
	newPath := api.Field{Name: to}.Path()
	return fmt.Sprintf("(%s) |= rename(%q; %q)", parent, path[len(path)-1], newPath[len(newPath)-1])
}

// jqGet reads the key of an object as jq does after a pipe: .name, or
// .["name"] for a keyword.
func jqGet(key string) string {
	if k := jqKey(key); strings.HasPrefix(k, "[") {
		return "." + k
	}
	return jqKey(key)
}

// addConversion adds the conversion hook of a kind whose versions convert
// (generated: its binding follows the versions), the user's module of each
// Step, and the test of the cases of the older versions.
func addConversion(p scaffold.Project, r *machinery.Renderer, sa shellAPI) error {
	c, err := newShellConversion(p, sa)
	if err != nil {
		return err
	}
	hook := "hooks/" + sa.Hook + "-convert.sh"
	r.File(hook, "hooks/convert.sh.tmpl", machinery.Generated, c)
	r.Chmod(hook, 0o755)
	for _, s := range c.Steps {
		r.File("hooks/"+s.Module+".jq", "hooks/convert_step.jq.tmpl", machinery.UserOwned, struct {
			shellConversion
			Step shellStep
		}{c, s})
	}
	test := "tests/test_conversion_" + sa.Plural + ".sh"
	r.File(test, "tests/test_conversion.sh.tmpl", machinery.Generated, c)
	r.Chmod(test, 0o755)
	return nil
}
