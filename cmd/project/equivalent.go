package project

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
)

// equivalentCommand is the command line that writes p into dir as
// interactive init would, without a question: what a user who declines
// the write can run later. ok is false when flags cannot say all of it (a
// field with two rules).
func equivalentCommand(dir string, p scaffold.Project, style scaffold.Style) (string, bool) {
	init := []string{"opctl", "init", "--style", p.Style}
	if p.Domain != "" {
		init = append(init, "--domain", p.Domain)
	}
	init = append(init, "--name", p.Name)
	if style.ModulePath {
		init = append(init, "--repo", p.Repo)
	}
	if style.Resync && p.ResyncSeconds != scaffold.DefaultResyncSeconds {
		init = append(init, "--resync-seconds", strconv.FormatInt(int64(p.ResyncSeconds), 10))
	}
	if p.Scope != "" {
		init = append(init, "--scope", p.Scope)
	}
	init = append(init, "--yes", dir)
	lines := []string{shellJoin(init)}
	var create []string
	for _, a := range p.APIs {
		create = []string{"opctl", "create", "api", "--group", a.Group, "--version", a.Version, "--kind", a.Kind}
		if a.Plural != cmdutil.Pluralize(a.Kind) {
			create = append(create, "--plural", a.Plural)
		}
		if !a.Namespaced {
			create = append(create, "--namespaced=false")
		}
		for _, f := range a.Fields {
			spec, ok := f.Spec()
			if !ok {
				return "", false
			}
			create = append(create, "--field", spec)
		}
		for _, f := range a.Status {
			spec, ok := f.Spec()
			if !ok {
				return "", false
			}
			create = append(create, "--status-field", spec)
		}
		if a.ScaleReplicas != "" {
			create = append(create, "--scale-replicas", a.ScaleReplicas)
		}
		if len(a.Owns) > 0 {
			create = append(create, "--owns", strings.Join(a.Owns, ","))
		}
	}
	for _, d := range p.Decorators {
		create = []string{"opctl", "create", "api", "--target", d.Target.APIVersion + "/" + d.Target.Kind}
		if len(d.Selector) > 0 {
			create = append(create, "--selector", scaffold.SelectorText(d.Selector))
		}
		if d.Name != d.Target.Resource {
			create = append(create, "--name", d.Name)
		}
		create = append(create, "--owns", strings.Join(d.Owns, ","))
	}
	if create != nil {
		lines = append(lines, "cd "+shellQuote(filepath.Clean(dir))+" && "+shellJoin(create))
	}
	return strings.Join(lines, "\n"), true
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,@%+-]+$`)

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return strings.Join(quoted, " ")
}
