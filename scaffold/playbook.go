package scaffold

import (
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

// PlaybookDir is where a kind's existing playbook must be: the image and
// make test take playbooks from there.
const PlaybookDir = "playbooks"

// validatePlaybook checks a kind's playbook against its style and where
// it may be.
func validatePlaybook(src Source, style Style, a API) error {
	if a.Playbook == "" {
		return nil
	}
	if !style.Playbooks {
		return invalid(src, "playbook", a.Playbook, "%s projects run their own code for each kind; no style but one with playbooks runs one", style.Name)
	}
	if len(a.Status) > 0 {
		return invalid(src, "status-field", a.Status[0].Name, "%s runs your playbook %s, which opctl does not change: set the status there (operator_sdk.util.k8s_status), or drop --playbook for a role with a status template", a.Kind, a.Playbook)
	}
	return ValidatePlaybookPath(src, a.Playbook)
}

// ValidatePlaybookPath checks a playbook's path: a .yml or .yaml file
// directly under playbooks/, whose name is not one opctl generates.
func ValidatePlaybookPath(src Source, p string) error {
	dir, file := path.Split(path.Clean(p))
	switch {
	case path.Clean(p) != p || dir != PlaybookDir+"/":
		return invalid(src, "playbook", p, "must be a file directly under %s/ (copy it there: the image and make test take playbooks from %s/)", PlaybookDir, PlaybookDir)
	case path.Ext(file) != ".yml" && path.Ext(file) != ".yaml":
		return invalid(src, "playbook", p, "must be a .yml or .yaml file")
	case strings.HasPrefix(file, "local-") || strings.HasPrefix(file, "run-"):
		return invalid(src, "playbook", p, "local-*.yml and run-*.yml are the playbooks opctl generates; rename yours")
	}
	return nil
}

// CheckPlaybook checks that content, the playbook at p, parses as a
// playbook: a YAML list of plays, each with hosts (or an import).
func CheckPlaybook(src Source, p string, content []byte) error {
	var plays []map[string]any
	if err := yaml.Unmarshal(content, &plays); err != nil {
		return invalid(src, "playbook", p, "is not a playbook (a YAML list of plays): %s", oneLine(err))
	}
	if len(plays) == 0 {
		return invalid(src, "playbook", p, "has no play")
	}
	for i, play := range plays {
		_, hosts := play["hosts"]
		_, imports := play["import_playbook"]
		_, fqImports := play["ansible.builtin.import_playbook"]
		if !hosts && !imports && !fqImports {
			return invalid(src, "playbook", p, "play %d has no hosts (the operator runs plays on localhost: hosts: localhost)", i+1)
		}
	}
	return nil
}

// PlaybookFor names the playbooks opctl writes around a kind's playbook:
// run-<kind>.yml (what the operator runs) and local-<kind>.yml (a run
// outside the operator).
func PlaybookFor(a API, prefix string) string {
	return fmt.Sprintf("%s/%s-%s.yml", PlaybookDir, prefix, a.Singular())
}
