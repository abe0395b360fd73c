//go:build generated

package ansible_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/styles/ansible"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestGeneratedProject runs the project's own make test: syntax check, the
// children rendered by the role's filter compared with opctl's reference,
// and ansible-lint; then again with a second kind owning every child kind.
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ansible-playbook and ansible-lint")
	}
	styletest.RequireTools(t, "ansible and ansible-lint (Debian packages)", "ansible-playbook", "ansible-lint")
	dir := styletest.Seed(t, ansible.Style())
	assert.Contains(t, styletest.ExecIn(t, dir, "make", "test"), "All assertions passed")

	styletest.AddCache(t, dir, styletest.CacheFields("egressIPs:[]string")...)
	out := styletest.ExecIn(t, dir, "make", "test")
	assert.Equal(t, 9, strings.Count(out, "All assertions passed"), "four assertions for each of the two kinds, one for the spec values")
	readme, err := os.ReadFile(filepath.Join(dir, "roles/cache/README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "| `egressIPs` | `egress_i_ps` (lossy")
	assert.Contains(t, string(readme), "| `tags` | none: `tags` is reserved in Ansible")
}
