package scaffold

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/opctl/opctl/scaffold/api"
)

// Access is what a style's runtime does against the API server; RBAC is
// derived from it so every rule is one the code uses.
type Access struct {
	Parent     []string // verbs on the custom resource
	Status     []string // verbs on <plural>/status
	Finalizers []string // verbs on <plural>/finalizers
	// Child returns the verbs used on an owned kind; nil when something
	// else (Metacontroller) writes the children.
	Child func(api.ChildKind) []string
	// Extra rules the runtime itself needs (events, CRD discovery ...).
	Extra []rbacv1.PolicyRule
	// Events are the verbs on Events a watch's handler records with, of
	// API group EventsGroup ("" for core, or events.k8s.io).
	Events      []string
	EventsGroup string
	// WatchesInNamespace says the runtime lists and watches the target of
	// a watch narrowed to one namespace in that namespace only, so the
	// watch's rules go to a Role there instead of the ClusterRole.
	WatchesInNamespace bool
}

// WatchVerbs are the verbs on a watch's target: it reads, never writes.
var WatchVerbs = []string{"get", "list", "watch"}

// NeedsRole reports whether the runtime calls the API server at all.
func (a Access) NeedsRole() bool {
	return len(a.Parent)+len(a.Status)+len(a.Finalizers)+len(a.Extra) > 0 || a.Child != nil
}

// ScopedRules are the rules the operator needs in one namespace, or in
// every namespace when Namespace is empty.
type ScopedRules struct {
	Namespace string
	Rules     []rbacv1.PolicyRule
}
