//go:build e2e

package styletest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
)

// Target is what a check (the bench, the fault checks) makes objects of in
// a namespace of its own, and how it knows they converged.
type Target struct {
	// Object is copied into the namespace, each copy named apart.
	Object *unstructured.Unstructured
	// Change is a spec change the objects' children follow.
	Change func(spec map[string]any)
	// Converged counts the objects of ns that have converged: after
	// Change when changed.
	Converged func(ctx context.Context, c client.Client, ns string, changed bool) (int, error)
	// ChildKind and ChildLabels select the children made for the objects,
	// one each, owned by it.
	ChildKind   schema.GroupVersionKind
	ChildLabels map[string]string
}

// Install installs a project for a check and creates ns for its objects.
// It gives what to make there, and start, which starts the project's
// runtime for as long as the t it is given runs (a fault check starts it
// again after killing it).
type Install func(t *testing.T, cluster *Cluster, ns string) (target Target, start func(t *testing.T) *Process)

// seeded installs the seed project of style, whose runtime start starts:
// its Databases, each with its ConfigMap.
func seeded(style scaffold.Style, start RealRuntime) Install {
	return func(t *testing.T, cluster *Cluster, ns string) (Target, func(t *testing.T) *Process) {
		dir, p, kubeconfig, sample := seedIn(t, cluster, style, ns)
		return seedTarget(sample, p.Name), func(t *testing.T) *Process {
			return start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster)
		}
	}
}

// object is a copy of the target's object named name in ns, changed when
// changed.
func (target Target) object(ns, name string, changed bool) *unstructured.Unstructured {
	obj := target.Object.DeepCopy()
	obj.SetName(name)
	obj.SetNamespace(ns)
	if changed {
		// A spec of JSON values, as read: it is set back as it is.
		_ = changeIn(obj, target.Change)
	}
	return obj
}

// children lists the children made in ns.
func (target Target) children(ctx context.Context, c client.Client, ns string) ([]unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(target.ChildKind.GroupVersion().WithKind(target.ChildKind.Kind + "List"))
	err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels(target.ChildLabels))
	return list.Items, err
}

// seedTarget: a Database has converged when it is Ready and its ConfigMap
// (labelled as managed by the project) holds its spec.version.
func seedTarget(sample *unstructured.Unstructured, project string) Target {
	return Target{Object: sample, Change: func(spec map[string]any) { spec["version"] = "changed" },
		ChildKind:   corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		ChildLabels: map[string]string{"app.kubernetes.io/managed-by": project},
		Converged: func(ctx context.Context, c client.Client, ns string, changed bool) (int, error) {
			version, _, _ := unstructured.NestedString(sample.Object, "spec", "version")
			if changed {
				version = "changed"
			}
			var maps corev1.ConfigMapList
			if err := c.List(ctx, &maps, client.InNamespace(ns)); err != nil {
				return 0, err
			}
			following := map[string]bool{}
			for _, cm := range maps.Items {
				following[cm.Name] = cm.Data["version"] == version
			}
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(sample.GroupVersionKind())
			if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
				return 0, err
			}
			n := 0
			for i := range list.Items {
				if obj := &list.Items[i]; readyNow(obj) && following[obj.GetName()+"-configmap"] {
					n++
				}
			}
			return n, nil
		}}
}

// seedIn installs the seed project of style and a namespace ns for its
// objects, and returns the project's directory, the manager's kubeconfig and
// the sample Database in ns. No Database is left elsewhere: where the CRD
// was installed already (the fault checks of make test-e2e, after the
// others), the runtime started next would reconcile those too and each
// check would measure them as well.
func seedIn(t *testing.T, cluster *Cluster, style scaffold.Style, ns string) (dir string, p scaffold.Project, kubeconfig string, sample *unstructured.Unstructured) {
	dir = Seed(t, style)
	p, _, kubeconfig = cluster.installProject(t, dir)
	cluster.CreateNamespace(t, ns, false)
	sample = ReadObjects(t, filepath.Join(dir, render.SamplePath(p, p.APIs[0])))[0]
	sample.SetNamespace(ns)
	// The API server deletes a collection in one namespace at a time; a
	// CRD made just now may not be served yet, and holds no Database.
	left := &unstructured.UnstructuredList{}
	left.SetGroupVersionKind(sample.GroupVersionKind())
	require.NoError(t, client.IgnoreNotFound(cluster.Client.List(context.Background(), left)), "the Databases left by earlier checks")
	for i := range left.Items {
		require.NoError(t, client.IgnoreNotFound(cluster.Client.Delete(context.Background(), &left.Items[i])), "a Database left by an earlier check")
	}
	return dir, p, kubeconfig, sample
}
