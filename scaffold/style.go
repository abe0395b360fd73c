package scaffold

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/naming"
	"github.com/opctl/opctl/scaffold/pins"
)

// Style is one way to implement the operator. The CRD, RBAC shape and the
// hardened Deployment are shared; a style says what its runtime accesses,
// how it runs, and which code files it adds. Each style is a package under
// scaffold/styles; scaffold itself names none of them.
type Style struct {
	Name    string
	Summary string
	// Checklist is the style's comparison row and the points each
	// checklist answer gives it (the Style field is filled from Name).
	Checklist checklist.Profile
	// ExistingKinds: the style decorates existing kinds (create api
	// --target) instead of adding new ones with a CRD.
	ExistingKinds bool
	// Watches: besides its own kinds, the style reacts to existing kinds
	// (create api --target, a Watch): a generated handler calls a
	// user-owned function with each object.
	Watches bool
	// ModulePath: the project needs a Go module path (init --repo).
	ModulePath bool
	// TypesFile, when set, is the file of a kind's types when they are
	// code of the team's (go's api/<version>/<kind>_types.go, as in
	// kubebuilder), from which the project's own tool writes the CRD (make
	// manifests); opctl generate takes a kind back from its CRD when that
	// tool wrote it again. Once the team changed the types' code (not only
	// comments), the code opctl wrote from them and the kind's conformance
	// cases that code reconciles are kept as they are
	// (machinery.File.KeptWith).
	TypesFile func(p Project, a api.API) string
	// Resync: the runtime re-syncs every object periodically (init
	// --resync-seconds).
	Resync bool
	// CheckName holds the style's own rule for the project's name, beyond
	// ValidateProjectName's (a Python style's package must not shadow a
	// module the project imports), if it has one.
	CheckName func(name string) error
	// Access drives the manager ClusterRole.
	Access Access
	// Webhooks: the runtime serves admission webhooks (its Runtime sets
	// Webhook when a kind asks for admission); a style without them gets
	// ValidatingAdmissionPolicies, which cannot default.
	Webhooks bool
	// CannotConvert says why the style's runtime cannot serve a CRD
	// conversion webhook, which a kind needs once a version renames a
	// field (API.Converts); "" when it can.
	CannotConvert string
	// CannotScopeNamespace says why the style's runtime cannot watch one
	// namespace alone (Project.Scope); "" when it can.
	CannotScopeNamespace string
	// CanonicalValues: the code reads the spec into typed fields, so a
	// quantity or a duration reaches the children in its canonical form
	// (1000m as 1, 90m as 1h30m0s), not as written.
	CanonicalValues bool
	// Ownership is how the children are owned and what becomes of one the
	// code no longer wants; Finalizers is when a deletion waits for the
	// operator. opctl migrate reports where two styles differ.
	Ownership, Finalizers string
	// ConformanceTest runs the project's conformance cases alone through
	// its code (opctl verify): a recipe line its Makefile's make runs in
	// the project's directory, with the Makefile's variables (the
	// interpreter a Python project's tests pick, $(PYTHON), say).
	ConformanceTest string
	// KindOptions are the settings the style adds to a kind (API.Options).
	KindOptions []KindOption
	// Pins are the versions the style's files use besides the engine's, by
	// their keys in the project file, which records only those
	// (RecordedPins; TestPinsAreWhatTheFilesUse holds them to the files).
	Pins []string
	// LeaderElection adds a Role for a Lease in the operator namespace.
	LeaderElection bool
	Runtime        func(Project) Runtime
	// Manifests returns extra manifests by file path under config/; each
	// joins the kustomization of its directory.
	Manifests func(Project) map[string][]any
	// Files renders the style's code files into the tree.
	Files func(Project, *machinery.Tree) error
	// CI is how the project's CI workflow tests it.
	CI func(Project) CI
	// Prerequisite is what the cluster needs before the operator deploys
	// (test/e2e/run.sh checks it), if anything.
	Prerequisite *api.Prerequisite
}

// KindOption is a setting of a kind that a style adds to the model: a
// flag of create api (--NAME) and a key of the kind in the project file.
type KindOption struct {
	Name, Usage string
	// Validate checks a kind's value. files is the project's directory
	// when the value comes from create api, whose files the value may
	// name; nil when the project file is read: the value alone is checked.
	Validate func(src input.Source, a api.API, value string, files fs.FS) error
	// RunsInstead: the kind runs what the value names instead of the
	// style's code, so its conformance cases (opctl's starter children)
	// say nothing of it: opctl verify does not run them, and opctl migrate
	// to a style without the option names what to port.
	RunsInstead bool
}

// KindOption is the style's option of a kind named name.
func (s Style) KindOption(name string) (KindOption, bool) {
	for _, o := range s.KindOptions {
		if o.Name == name {
			return o, true
		}
	}
	return KindOption{}, false
}

// RecordedPins are the versions a project of the style records: the
// engine's and the style's Pins.
func (s Style) RecordedPins() []string { return append(pins.Engine(), s.Pins...) }

// Styles is a registry: every style opctl can scaffold, in the order help
// shows; the order also breaks checklist ties.
type Styles []Style

// Check refuses a registry the commands could not serve: a style without
// a name, summary, runtime or files, one with kinds of its own but no
// conformance test, a name given twice, or checklist profiles Recommend
// could not score.
func (ss Styles) Check() error {
	seen := map[string]bool{}
	for i, s := range ss {
		switch {
		case s.Name == "":
			return fmt.Errorf("style registry: style %d has no name", i+1)
		case seen[s.Name]:
			return fmt.Errorf("style registry: %q is registered twice", s.Name)
		case s.Summary == "" || s.Runtime == nil || s.Files == nil || s.CI == nil:
			return fmt.Errorf("style registry: %q needs a summary, a runtime, its files and its CI", s.Name)
		case !s.ExistingKinds && s.ConformanceTest == "":
			return fmt.Errorf("style registry: %q has kinds of its own and needs a conformance test", s.Name)
		}
		seen[s.Name] = true
	}
	return checklist.CheckProfiles(ss.Profiles())
}

// Profiles are the checklist profiles of every style, in registry order.
func (ss Styles) Profiles() []checklist.Profile {
	var out []checklist.Profile
	for _, s := range ss {
		p := s.Checklist
		p.Style = s.Name
		p.WithoutCRD = s.ExistingKinds || s.Watches
		out = append(out, p)
	}
	return out
}

// Names lists the names of every style.
func (ss Styles) Names() []string {
	var names []string
	for _, s := range ss {
		names = append(names, s.Name)
	}
	return names
}

// Lookup finds a style by name.
func (ss Styles) Lookup(name string) (Style, error) {
	for _, s := range ss {
		if s.Name == name {
			return s, nil
		}
	}
	return Style{}, fmt.Errorf("unknown style (styles: %s)", strings.Join(ss.Names(), ", "))
}

// ValidateName checks a project name for the style: Kubernetes' rules
// (validateProjectName), then the style's own.
func (s Style) ValidateName(src input.Source, name string) error {
	if err := naming.ValidateProjectName(src, name); err != nil {
		return err
	}
	if s.CheckName != nil {
		if err := s.CheckName(name); err != nil {
			return input.Invalid(src, "name", name, "%v", err)
		}
	}
	return nil
}
