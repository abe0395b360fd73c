// Package naming holds the rules for the names a project is made of: its
// own name and version, the Go module, the domain, and each API group,
// version, kind and resource, as Kubernetes and Go accept them.
package naming

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/mod/module"

	"github.com/opctl/opctl/scaffold/input"
)

// The patterns of names, compiled on first use: DNSSubdomain and DNSLabel
// as Kubernetes defines them, LowerCamel for a field, NonNameRE for what a
// resource name cannot hold.
var (
	DNSSubdomain = LazyRegexp(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	DNSLabel     = LazyRegexp(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	versionRE    = LazyRegexp(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	upperCamel   = LazyRegexp(`^[A-Z][a-zA-Z0-9]*$`)
	LowerCamel   = LazyRegexp(`^[a-z][a-zA-Z0-9]*$`)
	pluralRE     = LazyRegexp(`^[a-z][a-z0-9]*$`)
	NonNameRE    = LazyRegexp(`[^a-z0-9]+`)
	semVer       = LazyRegexp(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
)

// LazyRegexp compiles on first use, so commands that never validate (opctl
// version) do not pay for it at start-up.
func LazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// ValidateProjectName checks the project name used for labels and images.
func ValidateProjectName(src input.Source, name string) error {
	if len(name) > 63 || !DNSLabel().MatchString(name) {
		return input.Invalid(src, "name", name, "must be a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters)")
	}
	return nil
}

// ValidateVersion checks the project version: SemVer without a v, as a
// chart's version must be.
func ValidateVersion(src input.Source, version string) error {
	if version != "" && !semVer().MatchString(version) {
		return input.Invalid(src, "version", version, "must be a SemVer version such as 0.1.0 or 1.2.0-rc.1 (no v)")
	}
	return nil
}

// ValidateRepo checks a Go module path, as go.mod's module line takes it.
func ValidateRepo(src input.Source, repo string) error {
	if err := module.CheckPath(repo); err != nil {
		return input.Invalid(src, "repo", repo, "is not a Go module path (e.g. example.com/db-operator): %v", errors.Unwrap(err))
	}
	return nil
}

// ValidateDomain checks the project domain.
func ValidateDomain(src input.Source, domain string) error {
	if domain == "" || len(domain) > 253 || !DNSSubdomain().MatchString(domain) {
		return input.Invalid(src, "domain", domain, "must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')")
	}
	return nil
}

// CheckGroup checks an API group without the domain.
func CheckGroup(group string) error {
	if group == "" || !DNSSubdomain().MatchString(group) {
		return fmt.Errorf("must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')")
	}
	return nil
}

// CheckVersion checks an API version.
func CheckVersion(version string) error {
	if !versionRE().MatchString(version) {
		return fmt.Errorf("must look like v1, v1alpha1 or v2beta3")
	}
	return nil
}

// CheckKind checks a kind name.
func CheckKind(kind string) error {
	if len(kind) > 63 || !upperCamel().MatchString(kind) {
		return fmt.Errorf("must be UpperCamelCase (e.g. Database), at most 63 characters")
	}
	return nil
}

// builtinKinds are kinds Kubernetes itself serves (or reserves, like List
// and Status): a custom kind of the same name, in whatever group, makes
// kubectl ambiguous and clashes in clients.
var builtinKinds = strings.Fields(`List Status Pod Service ConfigMap Secret Namespace Node Event Endpoints
	ServiceAccount PersistentVolume PersistentVolumeClaim Deployment StatefulSet DaemonSet ReplicaSet Job CronJob
	Ingress NetworkPolicy Role RoleBinding ClusterRole ClusterRoleBinding HorizontalPodAutoscaler
	CustomResourceDefinition`)

// CheckNewKind checks the kind of a new API: a kind name that is not one
// Kubernetes already has.
func CheckNewKind(kind string) error {
	if err := CheckKind(kind); err != nil {
		return err
	}
	if slices.Contains(builtinKinds, kind) {
		return fmt.Errorf("Kubernetes has a kind of this name: choose another, or decorate the existing kind (a style that decorates existing kinds)")
	}
	return nil
}

// CheckPlural checks a resource name.
func CheckPlural(plural string) error {
	if len(plural) > 63 || !pluralRE().MatchString(plural) {
		return fmt.Errorf("must be lower-case letters and digits, starting with a letter")
	}
	return nil
}

// UpperFirst upper-cases the first letter: "storage" → "Storage".
func UpperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// GoField is the Go name of a field of JSON name json: its words (split
// at underscores) each upper-cased first, as kubebuilder users name them
// (pg_hba → PgHba, storageClass → StorageClass).
func GoField(json string) string {
	var b strings.Builder
	for _, word := range strings.Split(json, "_") {
		b.WriteString(UpperFirst(word))
	}
	if out := b.String(); out != "" && out[0] >= 'A' && out[0] <= 'Z' {
		return out
	}
	return "X" + b.String()
}
