package ansible

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
)

func TestValidatePlaybook(t *testing.T) {
	files := fstest.MapFS{
		"playbooks/site.yml":  {Data: []byte("- name: site\n  hosts: localhost\n  tasks: []\n")},
		"playbooks/vars.yml":  {Data: []byte("target: x\n")},
		"playbooks/tasks.yml": {Data: []byte("- name: a task\n  ansible.builtin.debug: {}\n")},
		"playbooks/empty.yml": {Data: []byte("[]\n")},
		"playbooks/all.yml":   {Data: []byte("- ansible.builtin.import_playbook: site.yml\n")},
	}
	status := []api.Field{{Name: "endpoint", Type: api.TypeString}}
	for _, tc := range []struct {
		playbook string
		status   []api.Field
		files    bool
		want     string // "" when valid
	}{
		{"playbooks/site.yml", nil, true, ""},
		{"playbooks/all.yml", nil, true, ""},
		{"playbooks/missing.yml", nil, false, ""}, // the project file alone: the path is checked, not the file
		{"playbooks/site.yml", status, true, `--status-field "endpoint": Database runs your playbook playbooks/site.yml, which opctl does not change: ` +
			`set the status there (operator_sdk.util.k8s_status), or drop --playbook for a role with a status template`},
		{"site.yml", nil, true, `--playbook "site.yml": must be a file directly under playbooks/`},
		{"playbooks/../site.yml", nil, true, `--playbook "playbooks/../site.yml": must be a file directly under playbooks/`},
		{"playbooks/site.txt", nil, true, `--playbook "playbooks/site.txt": must be a .yml or .yaml file`},
		{"playbooks/run-x.yml", nil, true, `--playbook "playbooks/run-x.yml": local-*.yml and run-*.yml are the playbooks opctl generates`},
		{"playbooks/missing.yml", nil, true, `--playbook "playbooks/missing.yml": no such file in the project`},
		{"playbooks/vars.yml", nil, true, `--playbook "playbooks/vars.yml": is not a playbook (a YAML list of plays)`},
		{"playbooks/empty.yml", nil, true, `--playbook "playbooks/empty.yml": has no play`},
		{"playbooks/tasks.yml", nil, true, `--playbook "playbooks/tasks.yml": play 1 has no hosts`},
	} {
		a := api.API{Kind: "Database", Status: tc.status}
		var fsys fs.FS // nil: the project file alone
		if tc.files {
			fsys = files
		}
		err := validatePlaybook(input.FlagSource, a, tc.playbook, fsys)
		if tc.want == "" {
			assert.NoError(t, err, tc.playbook)
			continue
		}
		if assert.Error(t, err, tc.playbook) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

// A kind's playbook is a key of its own in the project file, as it was
// before styles had options, and reads back as the kind's option.
func TestPlaybookKeyRoundTrips(t *testing.T) {
	a := api.API{Group: "ops", Version: "v1", Kind: "Backup", Plural: "backups", Namespaced: true, Options: map[string]string{"playbook": "playbooks/backup.yml"}}
	b, err := a.MarshalJSON()
	assert.NoError(t, err)
	assert.Contains(t, string(b), `"playbook":"playbooks/backup.yml"`)
	var back api.API
	assert.NoError(t, back.UnmarshalJSON(b))
	assert.Equal(t, a, back)
	assert.Equal(t, "playbooks/backup.yml", playbookOf(back))
}
