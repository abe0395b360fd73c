package render

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/yamltext"
)

// E2EScriptPath is the project's end-to-end test on a real cluster
// (generated: it follows the kinds); PrerequisitesScriptPath installs what
// the cluster needs first.
const (
	E2EScriptPath           = "test/e2e/run.sh"
	PrerequisitesScriptPath = "test/e2e/prerequisites.sh"
)

//go:embed files/*.tmpl
var engineFiles embed.FS

type e2eData struct {
	Project       scaffold.Project
	Image         string
	Prerequisites []e2ePrerequisite
	Kinds         []e2eKind
	Decorators    []e2eDecorator
}

type e2ePrerequisite struct {
	CRD, Install, Setup string
}

type e2eKind struct {
	Kind, Sample, Resource, Name string
	Children                     []string // kind/name, as kubectl get takes them
}

type e2eDecorator struct {
	Name, Kind  string
	Object      string // YAML of an object the decorator selects
	Attachments []string
}

// addE2E renders test/e2e/run.sh, which checks on a real cluster what the
// e2e suite checks on its API server: each sample gets its children and
// Ready (each decorator's target its attachments).
func addE2E(p scaffold.Project, style scaffold.Style, t *machinery.Tree) error {
	d := e2eData{Project: p, Image: p.Image()}
	for _, pre := range Prerequisites(p, style) {
		// Indented, as the script runs it inside an if.
		setup := "  " + strings.ReplaceAll(pre.Setup(p.Versions), "\n", "\n  ")
		d.Prerequisites = append(d.Prerequisites, e2ePrerequisite{CRD: pre.CRD, Install: pre.Install, Setup: setup})
	}
	for _, a := range p.APIs {
		name := api.SampleName(a)
		k := e2eKind{Kind: a.Kind, Sample: SamplePath(p, a), Resource: a.Plural + "." + a.FullGroup(p.Domain), Name: name}
		for _, c := range a.OwnedKinds() {
			k.Children = append(k.Children, strings.ToLower(c.Kind)+"/"+name+"-"+c.Suffix())
		}
		d.Kinds = append(d.Kinds, k)
	}
	for _, dec := range p.Decorators {
		obj := e2eTarget(p, dec)
		b, err := yamltext.Marshal(obj)
		if err != nil {
			return err
		}
		name := obj["metadata"].(map[string]any)["name"].(string)
		e := e2eDecorator{Name: dec.Name, Kind: dec.Target.Kind, Object: string(b)}
		for _, o := range dec.Owns {
			e.Attachments = append(e.Attachments, strings.ToLower(o)+"/"+name+"-"+strings.ToLower(o))
		}
		d.Decorators = append(d.Decorators, e)
	}
	files, err := fs.Sub(engineFiles, "files")
	if err != nil {
		return err
	}
	r := NewRenderer(t, files)
	r.File(E2EScriptPath, "e2e.sh.tmpl", machinery.Generated, d)
	r.Chmod(E2EScriptPath, 0o755)
	r.File(PrerequisitesScriptPath, "prerequisites.sh.tmpl", machinery.Generated, d)
	r.Chmod(PrerequisitesScriptPath, 0o755)
	return r.Err()
}

// e2eTarget is an object of the decorator's target kind that its selector
// picks: workloads run the pinned child image.
func e2eTarget(p scaffold.Project, d scaffold.Decorator) map[string]any {
	labels := map[string]any{"app.kubernetes.io/name": "e2e-" + d.Name}
	for k, v := range d.Selector {
		labels[k] = v
	}
	obj := map[string]any{"apiVersion": d.Target.APIVersion, "kind": d.Target.Kind,
		"metadata": map[string]any{"name": "e2e-" + d.Name, "labels": labels}}
	switch d.Target.Kind {
	case "Deployment", "StatefulSet", "DaemonSet":
		pod := map[string]any{
			"metadata": map[string]any{"labels": labels},
			"spec": map[string]any{"containers": []any{map[string]any{
				"name": "main", "image": p.Versions.ChildImage, "command": []any{"sleep", "3600"},
				"ports": []any{map[string]any{"name": "http", "containerPort": 8080}},
			}}},
		}
		obj["spec"] = map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": pod}
	case "Service":
		obj["spec"] = map[string]any{"ports": []any{map[string]any{"port": 80}}}
	}
	return obj
}
