//go:build generated

package ansible_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/realcrds"
	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/styles/ansible"
)

// TestGeneratedProject runs the project's own make test: syntax check, the
// children rendered by the role's templates compared with the conformance cases,
// and ansible-lint; then again with a second kind owning every child kind.
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ansible-playbook and ansible-lint")
	}
	tools.RequireTools(t, "ansible and ansible-lint (Debian packages)", "ansible-playbook", "ansible-lint")
	dir := styletest.Seed(t, ansible.Style())
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test"), "All assertions passed")
	assert.Contains(t, styletest.CheckHandAddedCase(t, dir, "make", "test"), "(item=database/hand-added.yaml)")

	styletest.AddCache(t, dir, styletest.CacheFields("egressIPs:[]string", "when:string")...)
	styletest.AddCluster(t, dir)
	out := tools.ExecIn(t, dir, "make", "test")
	assert.Equal(t, 12, strings.Count(out, "All assertions passed"), "four assertions for each of the three kinds")
	readme, err := os.ReadFile(filepath.Join(dir, "roles/cache/README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "| `egressIPs` | `egress_i_ps` (lossy")
	assert.Contains(t, string(readme), "| `tags` | none: `tags` is reserved in Ansible")
	assert.Contains(t, string(readme), "| `when` | none: `when` is reserved in Ansible")

	// A kind that runs an existing playbook: make test syntax-checks it
	// through the playbooks opctl writes around it, and lints it.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "playbooks/backup.yml"), []byte(existingPlaybook), 0o644))
	styletest.MustRun(t, dir, "create", "api", "--group", "ops", "--version", "v1", "--kind", "Backup",
		"--field", "target:string:required", "--owns", "ConfigMap", "--playbook", "playbooks/backup.yml")
	out = tools.ExecIn(t, dir, "make", "test")
	assert.Contains(t, out, "playbook: playbooks/run-backup.yml")
	assert.NoDirExists(t, filepath.Join(dir, "roles/backup"), "no role for a kind that runs a playbook")
	// A broken playbook fails make test.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "playbooks/backup.yml"), []byte("- name: x\n  hosts: localhost\n  tasks:\n    - nosuch.module.here: {}\n"), 0o644))
	cmd := exec.Command("make", "test")
	cmd.Dir = dir
	assert.Error(t, cmd.Run(), "make test must fail on a broken playbook")
}

// TestGeneratedWatchProject: a watch of an existing kind passes the
// project's make test (its role skipping other namespaces, handle.yml's
// message checked, ansible-lint clean), and the test catches a handler
// that says something else.
func TestGeneratedWatchProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ansible-playbook and ansible-lint")
	}
	tools.RequireTools(t, "ansible and ansible-lint (Debian packages)", "ansible-playbook", "ansible-lint")
	dir := t.TempDir()
	styletest.MustRun(t, dir, "init", "--style", "ansible", "--name", "vault-sync", "--domain", "example.com", "--yes")
	styletest.MustRun(t, dir, "create", "api", "--target", "v1/Secret", "--namespace", "payments", "--selector", "sync=vault")
	out := tools.ExecIn(t, dir, "make", "test")
	assert.Contains(t, out, "playbook: playbooks/local-watch_secrets.yml")
	assert.Equal(t, 2, strings.Count(out, "All assertions passed"), "the other namespace skipped, the watch's message")
	assert.Contains(t, out, "skipping: [localhost]", "the role skips a Secret in another namespace")

	handle := filepath.Join(dir, "roles/watch_secrets/tasks/handle.yml")
	require.NoError(t, os.WriteFile(handle, []byte("---\n- name: Sync\n  ansible.builtin.set_fact:\n    opctl_message: synced\n"), 0o644))
	cmd := exec.Command("make", "test")
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	assert.Error(t, err, "the test must catch a changed message: %s", b)
	assert.Contains(t, string(b), "synced")
}

// TestEditedAPI: an optional field and an owned kind added with opctl
// edit api keep the user's changed code, and the project's tests pass.
func TestEditedAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Ansible tests")
	}
	assert.Contains(t, styletest.CheckEditKeepsUserCode(t, ansible.Style(), styletest.BuilderEdit{
		Path: "roles/database/templates/configmap.yaml.j2",
		Edits: [][2]string{
			{"  engine: {{ spec.engine | to_json }}\n", "  engine: {{ spec.engine | to_json }}\n  team: payments\n"},
			{"labels: {{ child_labels | to_json }}", "labels: {{ child_labels | combine({'team': 'payments'}) | to_json }}"},
		},
	}, "make", "test"), "All assertions passed")
}

// TestImportedCRDs: kinds taken from three real operators' CRDs
// (create api --from-crd) beside the seed example: the project's own
// tests, conformance cases included, pass.
func TestImportedCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ansible-playbook and ansible-lint")
	}
	dir := styletest.ImportedCRDs(t, ansible.Style(), realcrds.Few())
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test"), "All assertions passed")
}
