package ansible

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
)

// playbookDir is where a kind's existing playbook must be: the image and
// make test take playbooks from there.
const playbookDir = "playbooks"

// PlaybookOption lets a kind run an existing playbook (create api
// --playbook) instead of a generated role.
func PlaybookOption() scaffold.KindOption {
	return scaffold.KindOption{
		Name:        "playbook",
		Usage:       "an existing playbook under playbooks/ to run for the kind instead of a generated role",
		Validate:    validatePlaybook,
		RunsInstead: true,
	}
}

// playbookOf is the playbook a kind runs, "" when it runs its role.
func playbookOf(a api.API) string { return a.Options["playbook"] }

// validatePlaybook checks a kind's playbook: where it may be, that the
// kind sets no status of its own there, and, given the project's files,
// that it is a playbook.
func validatePlaybook(src input.Source, a api.API, p string, files fs.FS) error {
	if len(a.Status) > 0 {
		return input.Invalid(src, "status-field", a.Status[0].Name, "%s runs your playbook %s, which opctl does not change: set the status there (operator_sdk.util.k8s_status), or drop --playbook for a role with a status template", a.Kind, p)
	}
	dir, file := path.Split(path.Clean(p))
	switch {
	case path.Clean(p) != p || dir != playbookDir+"/":
		return input.Invalid(src, "playbook", p, "must be a file directly under %s/ (copy it there: the image and make test take playbooks from %s/)", playbookDir, playbookDir)
	case path.Ext(file) != ".yml" && path.Ext(file) != ".yaml":
		return input.Invalid(src, "playbook", p, "must be a .yml or .yaml file")
	case strings.HasPrefix(file, "local-") || strings.HasPrefix(file, "run-"):
		return input.Invalid(src, "playbook", p, "local-*.yml and run-*.yml are the playbooks opctl generates; rename yours")
	}
	if files == nil {
		return nil
	}
	content, err := fs.ReadFile(files, p)
	if errors.Is(err, fs.ErrNotExist) {
		return input.Invalid(src, "playbook", p, "no such file in the project")
	} else if err != nil {
		return err
	}
	return checkPlaybook(src, p, content)
}

// checkPlaybook checks that content, the playbook at p, parses as a
// playbook: a YAML list of plays, each with hosts (or an import).
func checkPlaybook(src input.Source, p string, content []byte) error {
	var plays []map[string]any
	if err := yaml.Unmarshal(content, &plays); err != nil {
		return input.Invalid(src, "playbook", p, "is not a playbook (a YAML list of plays): %s", strings.Join(strings.Fields(err.Error()), " "))
	}
	if len(plays) == 0 {
		return input.Invalid(src, "playbook", p, "has no play")
	}
	for i, play := range plays {
		_, hosts := play["hosts"]
		_, imports := play["import_playbook"]
		_, fqImports := play["ansible.builtin.import_playbook"]
		if !hosts && !imports && !fqImports {
			return input.Invalid(src, "playbook", p, "play %d has no hosts (the operator runs plays on localhost: hosts: localhost)", i+1)
		}
	}
	return nil
}

// playbookFor names the playbooks opctl writes around a kind's playbook:
// run-<kind>.yml (what the operator runs) and local-<kind>.yml (a run
// outside the operator).
func playbookFor(a api.API, prefix string) string {
	return fmt.Sprintf("%s/%s-%s.yml", playbookDir, prefix, a.Singular())
}
