//go:build e2e

package ansible_test

import (
	"testing"

	"github.com/opctl/opctl/scaffold/styles/ansible"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// its role run with ansible-playbook as the Ansible operator runs it
// (runRole).
func TestE2E(t *testing.T) {
	styletest.E2E(t, ansible.Style(), runRole)
}
