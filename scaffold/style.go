package scaffold

import (
	"fmt"
	"strings"

	"github.com/opctl/opctl/checklist"
)

// Style is one way to implement the operator. The CRD, RBAC shape and the
// hardened Deployment are shared; a style says what its runtime accesses,
// how it runs, and which code files it adds.
type Style struct {
	Name    string
	Summary string
	// Checklist is the style's comparison row and the points each
	// checklist answer gives it (the Style field is filled from Name).
	Checklist checklist.Profile
	// ExistingKinds: the style decorates existing kinds (create api
	// --target) instead of adding new ones with a CRD.
	ExistingKinds bool
	// ModulePath: the project needs a Go module path (init --repo).
	ModulePath bool
	// Resync: the runtime re-syncs every object periodically (init
	// --resync-seconds).
	Resync bool
	// Access drives the manager ClusterRole.
	Access Access
	// LeaderElection adds a Role for a Lease in the operator namespace.
	LeaderElection bool
	Runtime        func(Project) Runtime
	// Manifests returns extra manifests by file path under config/; each
	// joins the kustomization of its directory.
	Manifests func(Project) map[string][]any
	// Files renders the style's code files into the tree.
	Files func(Project, *Tree) error
}

// Styles returns every style opctl can scaffold, in the order help shows.
func Styles() []Style {
	return []Style{goStyle(), kopfStyle(), metacontrollerStyle(), metacontrollerDecoratorStyle(), shellOperatorStyle(), ansibleStyle()}
}

// Profiles are the checklist profiles of every style, in registry order.
func Profiles() []checklist.Profile {
	var out []checklist.Profile
	for _, s := range Styles() {
		p := s.Checklist
		p.Style = s.Name
		out = append(out, p)
	}
	return out
}

// StyleNames lists the names of every style.
func StyleNames() []string {
	var names []string
	for _, s := range Styles() {
		names = append(names, s.Name)
	}
	return names
}

// LookupStyle finds a style by name.
func LookupStyle(name string) (Style, error) {
	for _, s := range Styles() {
		if s.Name == name {
			return s, nil
		}
	}
	return Style{}, fmt.Errorf("unknown style (styles: %s)", strings.Join(StyleNames(), ", "))
}
