//go:build e2e

package ansible_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/ansible"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// its role run with ansible-playbook as the Ansible operator runs it
// (runRole), then a kind that runs an existing playbook and a watch of
// Secrets, then the fault checks with runRole.
func TestE2E(t *testing.T) {
	styletest.E2E(t, ansible.Style(), runRole, checkPlaybookKind, func(t *testing.T, cluster *styletest.Cluster, _ string) {
		styletest.CheckWatch(t, cluster, ansible.Style(), runRole)
	}, styletest.E2EFaults(ansible.Style(), styletest.Imitation(runRole), false))
}

// checkPlaybookKind adds a kind that runs an existing playbook (create api
// --playbook) to the seed project and runs the project as the operator
// would: the playbook's ConfigMap appears with the spec's value, the kind
// gets Ready, and a further pass changes nothing.
func checkPlaybookKind(t *testing.T, cluster *styletest.Cluster, _ string) {
	t.Run("a kind runs an existing playbook", func(t *testing.T) {
		ctx := context.Background()
		c := cluster.Client
		dir := styletest.Seed(t, ansible.Style())
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "playbooks"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "playbooks/backup.yml"), []byte(existingPlaybook), 0o644))
		styletest.MustRun(t, dir, "create", "api", "--group", "ops", "--version", "v1", "--kind", "Backup",
			"--field", "target:string:required", "--owns", "ConfigMap", "--playbook", "playbooks/backup.yml")
		p, err := scaffold.LoadProject(dir, styles.All())
		require.NoError(t, err)
		_, err = envtest.InstallCRDs(cluster.Config, envtest.CRDInstallOptions{Paths: []string{filepath.Join(dir, render.CRDPath(p, p.APIs[1]))}})
		require.NoError(t, err)
		ns := "e2e-ansible-playbook"
		cluster.CreateNamespace(t, ns, false)
		backup := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": p.APIs[1].FullGroup(p.Domain) + "/v1", "kind": "Backup",
			"metadata": map[string]any{"name": "nightly", "namespace": ns}, "spec": map[string]any{"target": "db-0"}}}
		require.NoError(t, c.Create(ctx, backup))

		operator := runRole(t, dir, cluster.AdminKubeconfig(t), "")
		defer operator.Stop()
		styletest.WaitFor(t, "the playbook's ConfigMap", func() (bool, error) {
			var cm corev1.ConfigMap
			err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nightly-backup"}, &cm)
			return err == nil && cm.Data["target"] == "db-0", client.IgnoreNotFound(err)
		})
		styletest.WaitFor(t, "the Backup to be Ready", func() (bool, error) {
			if err := c.Get(ctx, client.ObjectKeyFromObject(backup), backup); err != nil {
				return false, err
			}
			conditions, _, _ := unstructured.NestedSlice(backup.Object, "status", "conditions")
			for _, cond := range conditions {
				if m := cond.(map[string]any); m["type"] == "Ready" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		operator.Stop()
	})
}
