// Package realcrds fetches the CRDs of well-known operators, as their
// releases ship them, for the tests that take kinds from them
// (create api --from-crd): from the operators' modules on the Go module
// proxy, at test time, into the repository's cache directory (.cache/,
// git-ignored), never into the repository.
package realcrds

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// CRD is one operator's CRD: the module that ships it, the file, and the
// kind in it.
type CRD struct {
	// Domain is what the operator does: certificates, autoscaling...
	Domain  string
	Module  string
	Version string
	Path    string
	Kind    string
}

// Name is the CRD's name in tests and the docs' table.
func (c CRD) Name() string { return c.Kind }

// All are the CRDs the tests take kinds from, one or two per domain.
func All() []CRD {
	return []CRD{
		{"certificates", "github.com/cert-manager/cert-manager", "v1.19.1", "deploy/crds/cert-manager.io_certificates.yaml", "Certificate"},
		{"autoscaling", "github.com/kedacore/keda/v2", "v2.17.2", "config/crd/bases/keda.sh_scaledobjects.yaml", "ScaledObject"},
		{"databases", "github.com/mongodb/mongodb-kubernetes-operator", "v0.13.0", "config/crd/bases/mongodbcommunity.mongodb.com_mongodbcommunity.yaml", "MongoDBCommunity"},
		{"databases", "github.com/k8ssandra/cass-operator", "v1.23.0", "config/crd/bases/cassandra.datastax.com_cassandradatacenters.yaml", "CassandraDatacenter"},
		{"messaging", "github.com/rabbitmq/cluster-operator/v2", "v2.14.0", "config/crd/bases/rabbitmq.com_rabbitmqclusters.yaml", "RabbitmqCluster"},
		{"secrets", "github.com/external-secrets/external-secrets", "v1.3.2", "config/crds/bases/external-secrets.io_externalsecrets.yaml", "ExternalSecret"},
		{"backup", "github.com/vmware-tanzu/velero", "v1.18.3", "config/crd/v1/bases/velero.io_backups.yaml", "Backup"},
		{"monitoring", "github.com/prometheus-operator/prometheus-operator", "v0.85.0", "example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml", "ServiceMonitor"},
		{"delivery", "github.com/fluxcd/kustomize-controller", "v1.6.0", "config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml", "Kustomization"},
		{"delivery", "github.com/argoproj/argo-rollouts", "v1.8.3", "manifests/crds/rollout-crd.yaml", "Rollout"},
		{"service mesh", "istio.io/api", "v1.32.0", "kubernetes/customresourcedefinitions.gen.yaml", "VirtualService"},
		{"machine learning", "github.com/kubeflow/training-operator", "v1.9.0", "manifests/base/crds/kubeflow.org_pytorchjobs.yaml", "PyTorchJob"},
		{"policy", "github.com/kyverno/kyverno", "v1.19.1", "config/crds/kyverno/kyverno.io_clusterpolicies.yaml", "ClusterPolicy"},
	}
}

// Few are the CRDs the slower styles' project tests take (each kind's
// cases run one by one there): a database's (pod templates, Kubernetes
// types, long group names), a mesh route's (oneOf, maps of objects) and a
// delivery's (durations, lists of objects).
func Few() []CRD {
	var out []CRD
	for _, c := range All() {
		switch c.Kind {
		case "MongoDBCommunity", "VirtualService", "Kustomization":
			out = append(out, c)
		}
	}
	return out
}

// Fetch downloads the CRDs' modules (once: the cache keeps them) and
// returns each CRD's file, by kind.
func Fetch(t testing.TB, crds []CRD) map[string]string {
	t.Helper()
	out := map[string]string{}
	cache := filepath.Join(repoRoot(t), ".cache", "crdmods")
	for _, c := range crds {
		cmd := exec.Command("go", "mod", "download", "-json", c.Module+"@"+c.Version)
		cmd.Dir = t.TempDir() // outside any module: the version given is the one taken
		cmd.Env = append(os.Environ(), "GOMODCACHE="+cache, "GOFLAGS=-mod=mod")
		b, err := cmd.Output()
		require.NoError(t, err, "go mod download %s@%s (the Go module proxy must be reachable): %s", c.Module, c.Version, b)
		var m struct{ Dir string }
		require.NoError(t, json.Unmarshal(b, &m))
		out[c.Kind] = filepath.Join(m.Dir, c.Path)
		require.FileExists(t, out[c.Kind])
	}
	return out
}

// repoRoot is the directory of opctl's go.mod, wherever the test runs.
func repoRoot(t testing.TB) string {
	t.Helper()
	b, err := exec.Command("go", "env", "GOMOD").Output()
	require.NoError(t, err)
	return filepath.Dir(strings.TrimSpace(string(b)))
}
