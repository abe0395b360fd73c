package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/naming"
	"github.com/opctl/opctl/scaffold/yamltext"
)

// ProjectFileName is the file at the project root that records every input.
const ProjectFileName = "opctl.yaml"

const projectFileHeader = "# The opctl project file: every input this project was generated from.\n" +
	"# opctl re-renders generated files from it; change it with opctl commands.\n"

// projectFormat is the version of the project file this opctl writes and
// reads; a newer file is refused rather than misread. Format 1 held the
// hashes of the files opctl wrote, which the lock file holds from format 2.
const projectFormat = 2

// MarshalProject renders the project file.
func MarshalProject(p Project) ([]byte, error) {
	p.Format = projectFormat
	b, err := yamltext.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append([]byte(projectFileHeader), b...), nil
}

// LoadProject reads the project file in dir; its style must be one of styles.
func LoadProject(dir string, styles Styles) (Project, error) {
	path := filepath.Join(dir, ProjectFileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Project{}, input.Errorf("%s not found: run opctl init first, or run this command in the project directory", path)
	}
	if err != nil {
		return Project{}, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return Project{}, input.Errorf("%s is empty: restore it from version control, or remove it and run opctl init to start over", path)
	}
	// A project file of format 1 holds the hashes too; any command that
	// writes the project moves them to the lock file.
	var file struct {
		Project
		Generated map[string]string `json:"generated,omitempty"`
		Starters  map[string]string `json:"starters,omitempty"`
	}
	if err := yaml.UnmarshalStrict(b, &file); err != nil {
		return Project{}, input.Errorf("%s is not a valid project file: %v", path, oneLine(err))
	}
	p := file.Project
	if p.Format > projectFormat {
		return Project{}, input.Errorf("%s: format %d is newer than this opctl reads (%d): upgrade opctl", path, p.Format, projectFormat)
	}
	locked, err := readLock(dir, &p)
	if err != nil {
		return Project{}, err
	}
	if !locked {
		p.Generated, p.Starters = file.Generated, file.Starters
	}
	if err := p.Validate(input.FileSource(path), styles); err != nil {
		return Project{}, err
	}
	p.Versions = p.Versions.WithDefaults()
	return p, nil
}

// oneLine keeps an error message on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// LoadAPIFile reads one API from a YAML file given to --from. It has the
// shape of an entry of "apis" in the project file; namespaced defaults to
// true.
func LoadAPIFile(path string) (api.API, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return api.API{}, input.Errorf("--from %s: %v", path, errors.Unwrap(err))
	}
	a := api.API{Namespaced: true}
	if err := yaml.UnmarshalStrict(b, &a); err != nil {
		return api.API{}, input.Errorf("--from %s: %v", path, oneLine(err))
	}
	return a, nil
}

// AddAPI returns the project with a new API, rejecting a kind that exists.
func (p Project) AddAPI(src input.Source, a api.API) (Project, error) {
	if err := api.ValidateAPI(src, p.Domain, a); err != nil {
		return p, err
	}
	if p.NamespaceScoped() && !a.Namespaced {
		return p, input.Errorf("%s: %s is cluster-scoped, and the project is namespace-scoped (scope: namespace in %s): its operator sees one namespace, and a cluster-scoped object is in none", src("namespaced"), a.Kind, ProjectFileName)
	}
	for _, old := range p.APIs {
		if old.Kind == a.Kind {
			// Kinds name controller files and modules in every style.
			return p, input.Invalid(src, "kind", a.Kind, "the project already has this kind (%s/%s); kind names are unique in a project (opctl edit api --kind %s changes it, and adds a version with --new-version)", old.FullGroup(p.Domain), old.Version, a.Kind)
		}
		if old.Group == a.Group && old.Plural == a.Plural {
			return p, input.Invalid(src, "plural", a.Plural, "group %s already has a kind with this plural (%s)", a.Group, old.Kind)
		}
		for _, n := range a.ShortNames {
			if slices.Contains(old.ShortNames, n) || n == old.Plural || n == old.Singular() {
				// kubectl would not know which kind the name means.
				return p, input.Invalid(src, "short-names", n, "already names %s in this project", old.Kind)
			}
		}
	}
	p.APIs = append(append([]api.API(nil), p.APIs...), a)
	return p, nil
}

// RemoveAPI returns the project without the kind (or, in a project of
// decorators, the decorator) named name, which src names for errors.
func (p Project) RemoveAPI(src input.Source, name string) (Project, error) {
	var names []string
	for i, a := range p.APIs {
		if a.Kind == name {
			p.APIs = append(append([]api.API(nil), p.APIs[:i]...), p.APIs[i+1:]...)
			return p, nil
		}
		names = append(names, a.Kind)
	}
	for i, d := range p.Decorators {
		if d.Name == name {
			p.Decorators = append(append([]Decorator(nil), p.Decorators[:i]...), p.Decorators[i+1:]...)
			return p, nil
		}
		names = append(names, d.Name)
	}
	for i, w := range p.Watches {
		if w.Name == name {
			p.Watches = append(append([]Watch(nil), p.Watches[:i]...), p.Watches[i+1:]...)
			return p, nil
		}
		names = append(names, w.Name)
	}
	if names == nil {
		return p, input.Invalid(src, "name", name, "the project has no kinds, decorators or watches yet")
	}
	return p, input.Invalid(src, "name", name, "the project has no such kind, decorator or watch (it has %s)", strings.Join(names, ", "))
}

// Validate checks a whole project, as loaded from its file.
func (p Project) Validate(src input.Source, styles Styles) error {
	style, err := styles.Lookup(p.Style)
	if err != nil {
		if err := naming.ValidateProjectName(src, p.Name); err != nil {
			return err
		}
		return input.Invalid(src, "style", p.Style, "%v", err)
	}
	if err := style.ValidateName(src, p.Name); err != nil {
		return err
	}
	// A project decorating existing kinds adds no API group: its domain
	// is optional.
	if p.Domain != "" || !style.ExistingKinds {
		if err := naming.ValidateDomain(src, p.Domain); err != nil {
			return err
		}
	}
	if err := naming.ValidateVersion(src, p.Version); err != nil {
		return err
	}
	if err := validateScope(src, p.Scope, style, styles); err != nil {
		return err
	}
	switch {
	case style.ModulePath && p.Repo == "":
		return input.Errorf("%s: the %s style needs the Go module path (e.g. example.com/%s)", src("repo"), style.Name, p.Name)
	case style.ExistingKinds && len(p.APIs) > 0:
		return input.Errorf("%s: %s projects decorate existing kinds; they have decorators, not apis", src("apis"), p.Style)
	case !style.ExistingKinds && len(p.Decorators) > 0:
		return input.Errorf("%s: %s projects add their own kinds; they have apis, not decorators", src("decorators"), p.Style)
	case !style.Watches && len(p.Watches) > 0:
		return input.Errorf("%s: %s projects cannot watch existing kinds", src("watches"), p.Style)
	}
	if style.ModulePath {
		if err := naming.ValidateRepo(src, p.Repo); err != nil {
			return err
		}
	}
	// Each kind and decorator is added again, by the rules flags meet.
	rebuilt := p
	rebuilt.APIs, rebuilt.Decorators, rebuilt.Watches = nil, nil, nil
	for _, a := range p.APIs {
		if rebuilt, err = rebuilt.AddAPI(src, a); err != nil {
			return fmt.Errorf("api %s: %w", a.Kind, err)
		}
		if err := validateAdmission(src, style, a); err != nil {
			return fmt.Errorf("api %s: %w", a.Kind, err)
		}
		if a.Converts() && style.CannotConvert == "" && style.Runtime(p).Conversion == nil {
			return fmt.Errorf("internal error: the %s style's runtime does not say how it serves the conversion of %s", style.Name, a.Kind)
		}
		if a.Converts() && style.CannotConvert != "" {
			var can []string
			for _, s := range styles {
				if s.CannotConvert == "" && !s.ExistingKinds {
					can = append(can, s.Name)
				}
			}
			flag, asked := a.Conversion()
			return input.Errorf("%s: %s %s, which takes a conversion webhook, and %s projects cannot serve one: %s; without one, a version may differ only by fields with defaults (None conversion), or opctl migrate --to %s makes a project that converts",
				src(flag), a.Kind, asked, style.Name, style.CannotConvert, strings.Join(can, " or "))
		}
		if err := ValidateOptions(src, style, styles, a, nil); err != nil {
			return fmt.Errorf("api %s: %w", a.Kind, err)
		}
	}
	for _, d := range p.Decorators {
		if rebuilt, err = rebuilt.AddDecorator(src, d); err != nil {
			return fmt.Errorf("decorator %s: %w", d.Name, err)
		}
	}
	for _, w := range p.Watches {
		if rebuilt, err = rebuilt.AddWatch(src, w); err != nil {
			return fmt.Errorf("watch %s: %w", w.Name, err)
		}
	}
	return nil
}

// validateScope checks a project's scope against its style's runtime.
func validateScope(src input.Source, scope string, style Style, styles Styles) error {
	switch scope {
	case "":
		return nil
	case ScopeNamespace:
	default:
		return input.Invalid(src, "scope", scope, "must be %s (the default) or %s", ScopeCluster, ScopeNamespace)
	}
	if style.CannotScopeNamespace == "" {
		return nil
	}
	var can []string
	for _, s := range styles {
		if s.CannotScopeNamespace == "" && !s.ExistingKinds {
			can = append(can, s.Name)
		}
	}
	return input.Invalid(src, "scope", scope, "%s projects cannot watch one namespace alone: %s; %s can", style.Name, style.CannotScopeNamespace, strings.Join(can, ", "))
}
