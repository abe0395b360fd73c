package scaffold

import (
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Access is what a style's runtime does against the API server; RBAC is
// derived from it so every rule is one the code uses.
type Access struct {
	Parent     []string // verbs on the custom resource
	Status     []string // verbs on <plural>/status
	Finalizers []string // verbs on <plural>/finalizers
	// Child returns the verbs used on an owned kind; nil when something
	// else (Metacontroller) writes the children.
	Child func(ChildKind) []string
	// Extra rules the runtime itself needs (events, CRD discovery ...).
	Extra []rbacv1.PolicyRule
	// Events are the verbs on core Events a watch's handler records with.
	Events []string
}

// watchVerbs are the verbs on a watch's target: it reads, never writes.
var watchVerbs = []string{"get", "list", "watch"}

// needsRole reports whether the runtime calls the API server at all.
func (a Access) needsRole() bool {
	return len(a.Parent)+len(a.Status)+len(a.Finalizers)+len(a.Extra) > 0 || a.Child != nil
}

// Names of the objects every style deploys; kustomize prefixes them with
// the project name.
const (
	serviceAccountName = "controller-manager"
	managerRoleName    = "manager-role"
)

// PolicyRules merges the access of every API into rules: one rule per API
// group and verb set, resources sorted, rules sorted by group.
func PolicyRules(p Project, acc Access) []rbacv1.PolicyRule {
	verbs := map[[2]string][]string{} // (group, resource) → verbs
	add := func(group, resource string, vs []string) {
		if len(vs) == 0 {
			return
		}
		key := [2]string{group, resource}
		for _, v := range vs {
			if !slices.Contains(verbs[key], v) {
				verbs[key] = append(verbs[key], v)
			}
		}
	}
	for _, a := range p.APIs {
		g := a.FullGroup(p.Domain)
		add(g, a.Plural, acc.Parent)
		add(g, a.Plural+"/status", acc.Status)
		add(g, a.Plural+"/finalizers", acc.Finalizers)
		for _, c := range a.OwnedKinds() {
			if acc.Child != nil {
				add(c.Group, c.Resource, acc.Child(c))
			}
		}
	}
	for _, w := range p.Watches {
		add(w.Target.Group(), w.Target.Resource, watchVerbs)
		add("", "events", acc.Events)
	}
	for _, r := range acc.Extra {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				add(g, res, r.Verbs)
			}
		}
	}
	type ruleKey struct{ group, verbs string }
	merged := map[ruleKey][]string{}
	for key, vs := range verbs {
		sorted := slices.Clone(vs)
		sort.Strings(sorted)
		rk := ruleKey{key[0], strings.Join(sorted, ",")}
		merged[rk] = append(merged[rk], key[1])
	}
	rules := make([]rbacv1.PolicyRule, 0, len(merged))
	for rk, resources := range merged {
		sort.Strings(resources)
		rules = append(rules, rbacv1.PolicyRule{
			APIGroups: []string{rk.group}, Resources: resources, Verbs: strings.Split(rk.verbs, ","),
		})
	}
	sort.Slice(rules, func(i, j int) bool {
		a, b := rules[i], rules[j]
		if a.APIGroups[0] != b.APIGroups[0] {
			return a.APIGroups[0] < b.APIGroups[0]
		}
		return strings.Join(a.Resources, ",") < strings.Join(b.Resources, ",")
	})
	return rules
}

// managerRBAC is the ClusterRole and binding for a controller that watches
// every namespace.
func managerRBAC(p Project, acc Access) []any {
	role := &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: managerRoleName, Labels: CommonLabels(p)},
		Rules:      PolicyRules(p, acc),
	}
	binding := &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "manager-rolebinding", Labels: CommonLabels(p)},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: managerRoleName},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccountName, Namespace: p.Namespace()}},
	}
	return []any{role, binding}
}

// leaderElectionRBAC lets the manager hold a Lease in its own namespace.
func leaderElectionRBAC(p Project) []any {
	role := &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: "leader-election-role", Labels: CommonLabels(p)},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"coordination.k8s.io"},
			Resources: []string{"leases"},
			Verbs:     []string{"create", "delete", "get", "list", "patch", "update", "watch"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "leader-election-rolebinding", Labels: CommonLabels(p)},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "leader-election-role"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccountName, Namespace: p.Namespace()}},
	}
	return []any{role, binding}
}

// kindRoles are the ClusterRoles for people (not the operator) working
// with a kind: admin, editor and viewer, each aggregated into Kubernetes'
// built-in role of that level (admin, edit, view), so a user bound to
// "edit" in a namespace can create the kind there.
func kindRoles(p Project, a API) []any {
	group := a.FullGroup(p.Domain)
	role := func(level, aggregateTo string, verbs, statusVerbs []string) *rbacv1.ClusterRole {
		labels := CommonLabels(p)
		labels["rbac.authorization.k8s.io/aggregate-to-"+aggregateTo] = "true"
		return &rbacv1.ClusterRole{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: a.Singular() + "-" + level + "-role", Labels: labels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{group}, Resources: []string{a.Plural}, Verbs: verbs},
				{APIGroups: []string{group}, Resources: []string{a.Plural + "/status"}, Verbs: statusVerbs},
			},
		}
	}
	read := []string{"get", "list", "watch"}
	write := []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	return []any{
		role("admin", "admin", slices.Sorted(slices.Values(append([]string{"deletecollection"}, write...))), []string{"get", "patch", "update"}),
		role("editor", "edit", write, []string{"get"}),
		role("viewer", "view", read, []string{"get"}),
	}
}

// KindRolesPath is the file of a kind's roles for people.
func KindRolesPath(a API) string { return "config/rbac/" + a.Singular() + "_roles.yaml" }
