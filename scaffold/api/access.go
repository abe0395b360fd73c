package api

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/naming"
)

// AccessRule is access a kind's code needs beyond what its owned kinds
// give (a Secret it reads, a Deployment it scales), as --rbac gives it:
// RESOURCE[.GROUP][/SUBRESOURCE]:VERB,... (kubectl's resource.group).
type AccessRule struct {
	// Resource is the RBAC resource, with its subresource (pods/log).
	Resource, Group string
	Verbs           []string
}

// accessVerbs are the verbs an access rule may grant: the API's own,
// never a wildcard, so that the RBAC stays least privilege.
var accessVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

// accessRuleSyntax is how an access rule is written.
const accessRuleSyntax = "RESOURCE[.GROUP][/SUBRESOURCE]:VERB,... (secrets:get,list,watch or deployments.apps/scale:get,patch)"

// parseAccessRule reads one access rule.
func parseAccessRule(s string) (AccessRule, error) {
	target, verbs, found := strings.Cut(s, ":")
	if !found || verbs == "" {
		return AccessRule{}, fmt.Errorf("want %s", accessRuleSyntax)
	}
	r, err := parseAccessTarget(target)
	if err != nil {
		return r, err
	}
	for _, v := range strings.Split(verbs, ",") {
		switch {
		case v == "*":
			return r, fmt.Errorf("name the verbs the code uses (%s): a wildcard grants more than it needs", strings.Join(accessVerbs, ", "))
		case !slices.Contains(accessVerbs, v):
			return r, fmt.Errorf("verb %q: one of %s", v, strings.Join(accessVerbs, ", "))
		case slices.Contains(r.Verbs, v):
			return r, fmt.Errorf("verb %q listed twice", v)
		}
		r.Verbs = append(r.Verbs, v)
	}
	return r, nil
}

// parseAccessTarget reads RESOURCE[.GROUP][/SUBRESOURCE], the part of an
// access rule --remove-rbac names.
func parseAccessTarget(s string) (AccessRule, error) {
	name, sub, hasSub := strings.Cut(s, "/")
	resource, group, _ := strings.Cut(name, ".")
	switch {
	case naming.CheckPlural(resource) != nil:
		return AccessRule{}, fmt.Errorf("resource %q: a resource is lower-case letters and digits, plural (secrets), then .GROUP for a group other than the core one; want %s", resource, accessRuleSyntax)
	case group != "" && naming.CheckGroup(group) != nil:
		return AccessRule{}, fmt.Errorf("group %q: %v", group, naming.CheckGroup(group))
	case hasSub && naming.CheckPlural(sub) != nil:
		return AccessRule{}, fmt.Errorf("subresource %q: lower-case letters (status, scale, log)", sub)
	}
	if hasSub {
		resource += "/" + sub
	}
	return AccessRule{Resource: resource, Group: group}, nil
}

// target is the rule's RESOURCE[.GROUP][/SUBRESOURCE].
func (r AccessRule) target() string {
	resource, sub, hasSub := strings.Cut(r.Resource, "/")
	if r.Group != "" {
		resource += "." + r.Group
	}
	if hasSub {
		resource += "/" + sub
	}
	return resource
}

// String is the rule as --rbac and opctl.yaml write it.
func (r AccessRule) String() string { return r.target() + ":" + strings.Join(r.Verbs, ",") }

// AccessRules are the kind's access rules (checked with the kind).
func (a API) AccessRules() []AccessRule { return AccessRulesOf(a.RBAC) }

// AccessRulesOf are the access rules rbac writes (checked with
// ValidateAccessRules).
func AccessRulesOf(rbac []string) []AccessRule {
	var rules []AccessRule
	for _, s := range rbac {
		if r, err := parseAccessRule(s); err == nil {
			rules = append(rules, r)
		}
	}
	return rules
}

// validateAccess checks the kind's access rules.
func validateAccess(src input.Source, a API) error { return ValidateAccessRules(src, a.Kind, a.RBAC) }

// ValidateAccessRules checks the access rules of owner (a kind, a watch):
// each readable, and one per resource.
func ValidateAccessRules(src input.Source, owner string, rbac []string) error {
	var seen []string
	for _, s := range rbac {
		r, err := parseAccessRule(s)
		if err != nil {
			return input.Invalid(src, "rbac", s, "%v", err)
		}
		if slices.Contains(seen, r.target()) {
			return input.Invalid(src, "rbac", s, "%s has a rule for %s already: give its verbs in one rule", owner, r.target())
		}
		seen = append(seen, r.target())
	}
	return nil
}
