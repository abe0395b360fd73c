package scaffold

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

func shellOperatorStyle() Style {
	return Style{
		Name:    "shell-operator",
		Summary: "bash hooks run by shell-operator: small automations for shell and kubectl teams",
		Access: Access{
			Parent: []string{"get", "list", "watch"},
			Status: []string{"patch"},
			// CreateOrUpdate gets the child, then creates or merge-patches it.
			Child: func(ChildKind) []string { return []string{"create", "get", "patch"} },
		},
		Runtime: func(Project) Runtime {
			return Runtime{
				Env:           []corev1.EnvVar{{Name: "LOG_TYPE", Value: "json"}},
				Ports:         []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9115, Protocol: corev1.ProtocolTCP}},
				HealthPort:    9115,
				LivenessPath:  "/metrics",
				ReadinessPath: "/metrics",
				WritableDirs:  []string{"/tmp"},
			}
		},
		Files: shellOperatorFiles,
	}
}

// shellAPI is the template data of one kind in the shell-operator style.
type shellAPI struct {
	API
	FullGroup string
	Hook      string // hook file name without .sh: 10-databases
	OwnsJSON  string
}

// HookName numbers hooks in steps of ten, in the order kinds were added.
func HookName(i int, a API) string { return fmt.Sprintf("%02d-%s", 10*(i+1), a.Plural) }

func shellOperatorFiles(p Project, t *Tree) error {
	d := struct {
		Project Project
		V       Versions
	}{p, p.Versions}
	r := renderer{style: "shell-operator", tree: t}
	r.file("Dockerfile", "Dockerfile.tmpl", UserOwned, d)
	r.file("Makefile", "Makefile.tmpl", UserOwned, d)
	r.file("README.md", "README.md.tmpl", UserOwned, d)
	r.file(".gitignore", "gitignore.tmpl", UserOwned, d)
	r.file("hooks/lib/reconcile.sh", "hooks/lib/reconcile.sh.tmpl", UserOwned, d)
	r.file("hooks/lib/reconcile.jq", "hooks/lib/reconcile.jq.tmpl", UserOwned, d)
	r.file("tests/test_hooks.sh", "tests/test_hooks.sh.tmpl", UserOwned, d)
	r.chmod("tests/test_hooks.sh", 0o755)
	for i, a := range p.APIs {
		var owns []string
		for _, c := range a.OwnedKinds() {
			owns = append(owns, c.Kind)
		}
		ownsJSON, _ := json.Marshal(append([]string{}, owns...))
		sa := shellAPI{API: a, FullGroup: a.FullGroup(p.Domain), Hook: HookName(i, a), OwnsJSON: string(ownsJSON)}
		r.file("hooks/"+sa.Hook+".sh", "hooks/hook.sh.tmpl", UserOwned, sa)
		r.chmod("hooks/"+sa.Hook+".sh", 0o755)
		if r.err == nil {
			r.err = addHookFixtures(p, a, sa.Hook, t)
		}
	}
	return r.err
}

// fixtureNow is the clock the hook tests run with.
const fixtureNow = "2025-01-01T00:00:00Z"

// addHookFixtures writes binding contexts for the hook and the operations
// the reference implementation (children.go) expects from it.
func addHookFixtures(p Project, a API, hook string, t *Tree) error {
	sample, err := BuildSample(p.Domain, a)
	if err != nil {
		return err
	}
	object := func(name, uid string, generation int64, reconciledAt int64) map[string]any {
		o := map[string]any{"apiVersion": sample["apiVersion"], "kind": sample["kind"], "spec": sample["spec"],
			"metadata": map[string]any{"name": name, "namespace": "default", "uid": uid, "generation": generation}}
		if reconciledAt > 0 {
			reconciled := copyMap(o)
			reconciled["metadata"] = map[string]any{"generation": reconciledAt}
			o["status"] = StatusPatch(reconciled, "2024-12-01T00:00:00Z")
		}
		return roundTrip(o)
	}
	first := object(a.Singular()+"-sample", "00000000-0000-4000-8000-000000000001", 1, 0)
	second := object(a.Singular()+"-other", "00000000-0000-4000-8000-000000000002", 2, 2)
	changed := object(a.Singular()+"-sample", "00000000-0000-4000-8000-000000000001", 2, 1)
	item := func(o map[string]any) map[string]any { return map[string]any{"object": o, "filterResult": o["spec"]} }
	event := func(watch string, o map[string]any) map[string]any {
		return map[string]any{"binding": a.Plural, "type": "Event", "watchEvent": watch, "object": o, "filterResult": o["spec"]}
	}
	cases := []struct {
		name     string
		contexts []map[string]any
		objects  []map[string]any // what the hook must reconcile, in order
	}{
		{"synchronization", []map[string]any{{"binding": a.Plural, "type": "Synchronization",
			"objects": []any{item(first), item(second)}}}, []map[string]any{first, second}},
		{"added", []map[string]any{event("Added", first)}, []map[string]any{first}},
		{"modified", []map[string]any{event("Modified", changed)}, []map[string]any{changed}},
		// Several queued contexts in one run: the last copy of an object wins,
		// a Deleted event needs nothing, the drift-check schedule covers its snapshot.
		{"combined", []map[string]any{event("Added", first), event("Deleted", second), event("Modified", changed),
			{"binding": a.Plural + "-drift-check", "type": "Schedule",
				"snapshots": map[string]any{a.Plural: []any{item(second)}}}}, []map[string]any{changed, second}},
	}
	for _, c := range cases {
		var ops []any
		for _, o := range c.objects {
			for _, child := range DesiredChildren(p, a, o) {
				ops = append(ops, map[string]any{"operation": "CreateOrUpdate", "object": child})
			}
			if st := StatusPatch(o, fixtureNow); st != nil {
				meta := o["metadata"].(map[string]any)
				ops = append(ops, map[string]any{"operation": "MergePatch", "apiVersion": o["apiVersion"], "kind": o["kind"],
					"namespace": meta["namespace"], "name": meta["name"], "subresource": "status",
					"mergePatch": map[string]any{"status": st}})
			}
		}
		if ops == nil {
			ops = []any{}
		}
		for path, v := range map[string]any{
			"tests/fixtures/" + hook + "--" + c.name + ".json": c.contexts,
			"tests/expected/" + hook + "--" + c.name + ".json": ops,
		} {
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return err
			}
			if err := t.Add(File{Path: path, Content: append(b, '\n')}); err != nil {
				return err
			}
		}
	}
	return nil
}

// roundTrip normalises an object through JSON, as a file would hold it.
func roundTrip(o map[string]any) map[string]any {
	b, _ := json.Marshal(o)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
