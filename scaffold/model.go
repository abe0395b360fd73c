package scaffold

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/pins"
)

// Project is everything opctl knows about a project: what the user decided,
// which the project file stores, and the hashes of the files opctl wrote,
// which the lock file stores.
type Project struct {
	// Format is the project file's version (projectFormat when written).
	Format int    `json:"format"`
	Name   string `json:"name"`
	Domain string `json:"domain,omitempty"`
	Repo   string `json:"repo,omitempty"`
	// Version is the project's version (SemVer, no v): the image tag is
	// v<version>, and the chart's version and appVersion follow it.
	Version  string        `json:"version,omitempty"`
	Style    string        `json:"style"`
	Versions pins.Versions `json:"versions"`
	// ResyncSeconds is how often the runtime re-syncs every object (styles
	// with Resync).
	ResyncSeconds int32 `json:"resyncSeconds,omitempty"`
	// Scope is where the operator sees the project's kinds: every
	// namespace, with a ClusterRole (ScopeCluster, written as nothing), or
	// the namespace it runs in alone, with a Role there (ScopeNamespace).
	Scope      string      `json:"scope,omitempty"`
	APIs       []api.API   `json:"apis,omitempty"`
	Decorators []Decorator `json:"decorators,omitempty"`
	// Watches react to existing objects of other kinds (styles with
	// Watches), beside the project's own kinds.
	Watches []Watch `json:"watches,omitempty"`
	// Generated maps each generated file to the SHA-256 of its content as
	// written, so hand edits are detected before they would be overwritten.
	// It is state, not intent: the lock file keeps it (LockFileName).
	Generated map[string]string `json:"-"`
	// Starters maps each file that is yours (starter code) to the SHA-256
	// of what opctl last wrote there, so the files you changed are known
	// (opctl migrate names them, opctl upgrade merges them). The lock file
	// keeps it.
	Starters map[string]string `json:"-"`
}

// DefaultResyncSeconds is how often a style that re-syncs does it, unless
// the project says otherwise.
const DefaultResyncSeconds = 60

// The scopes of a project (Project.Scope).
const (
	ScopeCluster   = "cluster"
	ScopeNamespace = "namespace"
)

// NamespaceScoped reports whether the operator sees the namespace it runs
// in alone (the runtime watches WATCH_NAMESPACE, which the Deployment sets
// to its own namespace) and holds Roles there instead of ClusterRoles.
func (p Project) NamespaceScoped() bool { return p.Scope == ScopeNamespace }

// Groups returns the distinct API groups in the order they were added.
func (p Project) Groups() []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range p.APIs {
		if !seen[a.Group] {
			seen[a.Group] = true
			out = append(out, a.Group)
		}
	}
	return out
}

// Decorator attaches children to existing resources of a kind (no CRD),
// for styles that decorate existing kinds.
type Decorator struct {
	// Name names the DecoratorController and the hook route.
	Name   string `json:"name"`
	Target Target `json:"target"`
	// Selector picks the targets by label; empty means every object.
	Selector map[string]string `json:"selector,omitempty"`
	Owns     []string          `json:"owns"`
}

// Watch reacts to existing objects of a kind (no CRD): for each object
// that matches, the style's generated handler calls a user-owned function
// with it and records an Event on the object.
type Watch struct {
	// Name names the handler, its user-owned function and file.
	Name   string `json:"name"`
	Target Target `json:"target"`
	// Namespace narrows the watch to one namespace; empty means all.
	Namespace string `json:"namespace,omitempty"`
	// Selector picks the objects by label; empty means every object.
	Selector map[string]string `json:"selector,omitempty"`
	// RBAC is access the watch's code needs beyond reading its target (a
	// label it patches on the objects it sees), as --rbac gives it.
	RBAC []string `json:"rbac,omitempty"`
}

// Ident is the watch's name as an identifier part in Go, Python and
// Ansible (secrets, db_creds), for file and role names.
func (w Watch) Ident() string { return strings.ReplaceAll(w.Name, "-", "_") }

// WatchIn is a watch of the project and where it looks.
type WatchIn struct {
	Watch
	// Where says in words which objects the watch sees: "in namespace
	// payments labelled sync=vault".
	Where string
}

// WatchIn is w with where it looks in this project.
func (p Project) WatchIn(w Watch) WatchIn {
	where := "in every namespace"
	switch {
	case w.Target.ClusterScoped():
		where = "(cluster-scoped)"
	case w.Namespace != "":
		where = "in namespace " + w.Namespace
	case p.NamespaceScoped():
		where = "in the operator's namespace"
	}
	if len(w.Selector) > 0 {
		where += " labelled " + SelectorText(w.Selector)
	}
	return WatchIn{Watch: w, Where: where}
}

// SelectorText is a label selector as --selector takes it: k=v,k2=v2.
func SelectorText(selector map[string]string) string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(selector)) {
		pairs = append(pairs, k+"="+selector[k])
	}
	return strings.Join(pairs, ",")
}

// WatchMessage is the message the starter handler of every style gives
// for an object: "handled Secret payments/db-password at resourceVersion
// 42" (the version shows which state of the object was handled).
func WatchMessage(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	var ref []string
	for _, k := range []string{"namespace", "name"} {
		if v, ok := meta[k].(string); ok {
			ref = append(ref, v)
		}
	}
	return fmt.Sprintf("handled %v %s at resourceVersion %v", obj["kind"], strings.Join(ref, "/"), meta["resourceVersion"])
}

// Target is the kind a decorator or a watch watches.
type Target struct {
	APIVersion string `json:"apiVersion"` // apps/v1, or v1 for core
	Kind       string `json:"kind"`
	Resource   string `json:"resource"` // plural, lower case
}

// Group is the target's API group, "" for the core group.
func (t Target) Group() string {
	group, _, grouped := strings.Cut(t.APIVersion, "/")
	if !grouped {
		return ""
	}
	return group
}

// Version is the version of the target's apiVersion.
func (t Target) Version() string {
	_, version, grouped := strings.Cut(t.APIVersion, "/")
	if !grouped {
		return t.APIVersion
	}
	return version
}

// ClusterScoped reports whether the target is a built-in cluster-scoped
// kind.
func (t Target) ClusterScoped() bool {
	return slices.Contains(ClusterScopedBuiltins, t.APIVersion+"/"+t.Kind)
}
