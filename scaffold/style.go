package scaffold

import (
	"fmt"
	"strings"
)

// Style is one way to implement the operator. The CRD, RBAC shape and the
// hardened Deployment are shared; a style says what its runtime accesses,
// how it runs, and which code files it adds.
type Style struct {
	Name    string
	Summary string
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
