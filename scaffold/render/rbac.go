package render

import (
	"maps"
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opctl/opctl/inflect"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
)

// Names of the objects every style deploys; kustomize prefixes them with
// the project name.
const (
	serviceAccountName = "controller-manager"
	managerRoleName    = "manager-role"
)

// ManagerRules merges the access of every API and watch into rules: the
// cluster-wide ones first, then those of each namespace a watch is narrowed
// to (when the runtime watches it there only), by namespace. Each holds one
// rule per API group and verb set, resources sorted, rules sorted by group,
// then the runtime's rules for named objects. In a namespace-scoped
// project, every rule on namespaced resources is the operator's namespace's.
func ManagerRules(p scaffold.Project, acc scaffold.Access) []scaffold.ScopedRules {
	scopes := map[string]ruleSet{"": {}}
	add := func(ns, group, resource string, verbs []string) {
		switch {
		case clusterResource(group, resource):
			ns = ""
		case p.NamespaceScoped():
			ns = p.Namespace()
		}
		if scopes[ns] == nil {
			scopes[ns] = ruleSet{}
		}
		scopes[ns].add(group, resource, verbs)
	}
	for _, a := range p.APIs {
		g := a.FullGroup(p.Domain)
		add("", g, a.Plural, acc.Parent)
		add("", g, a.Plural+"/status", acc.Status)
		add("", g, a.Plural+"/finalizers", acc.Finalizers)
		for _, c := range a.OwnedKinds() {
			if acc.Child != nil {
				add("", c.Group, c.Resource, acc.Child(c))
			}
		}
		for _, r := range a.AccessRules() {
			add("", r.Group, r.Resource, r.Verbs)
		}
	}
	for _, w := range p.Watches {
		ns := ""
		if acc.WatchesInNamespace {
			ns = w.Namespace
		}
		add(ns, w.Target.Group(), w.Target.Resource, scaffold.WatchVerbs)
		for _, r := range api.AccessRulesOf(w.RBAC) {
			add(ns, r.Group, r.Resource, r.Verbs)
		}
		add(ns, acc.EventsGroup, "events", acc.Events)
	}
	// A rule for named objects stays as it is, after the merged ones.
	var named []rbacv1.PolicyRule
	for _, r := range acc.Extra {
		if len(r.ResourceNames) > 0 {
			named = append(named, r)
			continue
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				add("", g, res, r.Verbs)
			}
		}
	}
	var out []scaffold.ScopedRules
	for _, ns := range slices.Sorted(maps.Keys(scopes)) {
		rules := scopes[ns].rules()
		if ns == "" {
			rules = append(rules, named...)
		}
		if len(rules) > 0 {
			out = append(out, scaffold.ScopedRules{Namespace: ns, Rules: rules})
		}
	}
	return out
}

// clusterResource reports whether group/resource (or one of its
// subresources) is a built-in cluster-scoped kind's: its rules stay in the
// ClusterRole, whatever the project's scope.
func clusterResource(group, resource string) bool {
	resource, _, _ = strings.Cut(resource, "/")
	// The reviews an authenticating server (the go manager's metrics
	// filter) creates are cluster-wide: a Role cannot grant them.
	if group+"/"+resource == "authentication.k8s.io/tokenreviews" || group+"/"+resource == "authorization.k8s.io/subjectaccessreviews" {
		return true
	}
	for _, t := range scaffold.ClusterScopedBuiltins {
		i := strings.LastIndex(t, "/")
		target := scaffold.Target{APIVersion: t[:i], Kind: t[i+1:]}
		if target.Group() == group && strings.ToLower(inflect.Pluralize(target.Kind)) == resource {
			return true
		}
	}
	return false
}

// ruleSet collects verbs by (API group, resource).
type ruleSet map[[2]string][]string

func (s ruleSet) add(group, resource string, vs []string) {
	key := [2]string{group, resource}
	for _, v := range vs {
		if !slices.Contains(s[key], v) {
			s[key] = append(s[key], v)
		}
	}
}

// rules merges the resources of a group that share their verbs into one
// rule.
func (s ruleSet) rules() []rbacv1.PolicyRule {
	type ruleKey struct{ group, verbs string }
	merged := map[ruleKey][]string{}
	for key, vs := range s {
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

// managerRBAC is the ClusterRole and binding of the operator, and a Role
// and binding in each namespace it has rules of its own in (kubebuilder's
// controller-gen names them alike).
func managerRBAC(p scaffold.Project, acc scaffold.Access) []any {
	var out []any
	for _, scope := range ManagerRules(p, acc) {
		ns := scope.Namespace
		if ns == p.Namespace() {
			// The operator's own: left unset, kustomize's namespace and
			// the chart's release namespace put it there, as they do its
			// ServiceAccount (a Role set apart would keep kustomize from
			// prefixing its binding's subject).
			ns = ""
		}
		out = append(out, roleAndBinding(p, scope.Namespace == "", ns, managerRoleName, "manager-rolebinding", scope.Rules)...)
	}
	return out
}

// roleAndBinding is a Role of rules in namespace (the project's when
// empty) and its binding to the operator's ServiceAccount, or with
// cluster a ClusterRole and ClusterRoleBinding.
func roleAndBinding(p scaffold.Project, cluster bool, namespace, role, binding string, rules []rbacv1.PolicyRule) []any {
	kind := "Role"
	if cluster {
		kind = "ClusterRole"
	}
	typed := func(kind string) metav1.TypeMeta {
		return metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: kind}
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: CommonLabels(p)}
	}
	ref := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: kind, Name: role}
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccountName, Namespace: p.Namespace()}}
	if cluster {
		return []any{&rbacv1.ClusterRole{TypeMeta: typed(kind), ObjectMeta: meta(role), Rules: rules},
			&rbacv1.ClusterRoleBinding{TypeMeta: typed(kind + "Binding"), ObjectMeta: meta(binding), RoleRef: ref, Subjects: subjects}}
	}
	return []any{&rbacv1.Role{TypeMeta: typed(kind), ObjectMeta: meta(role), Rules: rules},
		&rbacv1.RoleBinding{TypeMeta: typed(kind + "Binding"), ObjectMeta: meta(binding), RoleRef: ref, Subjects: subjects}}
}

// leaderElectionRBAC lets the manager hold a Lease in its own namespace,
// and record the Event client-go's leader election writes there when it
// takes the lease.
func leaderElectionRBAC(p scaffold.Project) []any {
	return roleAndBinding(p, false, "", "leader-election-role", "leader-election-rolebinding", []rbacv1.PolicyRule{{
		APIGroups: []string{"coordination.k8s.io"},
		Resources: []string{"leases"},
		Verbs:     []string{"create", "delete", "get", "list", "patch", "update", "watch"},
	}, {
		APIGroups: []string{""},
		Resources: []string{"events"},
		Verbs:     []string{"create", "patch"},
	}})
}

// kindRoles are the ClusterRoles for people (not the operator) working
// with a kind: admin, editor and viewer, each aggregated into Kubernetes'
// built-in role of that level (admin, edit, view), so a user bound to
// "edit" in a namespace can create the kind there.
func kindRoles(p scaffold.Project, a api.API) []any {
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
func KindRolesPath(a api.API) string { return "config/rbac/" + a.Singular() + "_roles.yaml" }
