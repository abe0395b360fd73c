//go:build e2e

package styletest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest/seed"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// CheckWatch proves a watch of an existing kind (create api --target) in
// a project of style, its handler run by run with the project's own RBAC:
// the project watches Secrets labelled sync=vault in one namespace (the
// article's "sync a Secret to the external secret manager"). A matching
// Secret there gets the starter handler's Event, again when it changes;
// neither a matching Secret in another namespace nor an unlabelled one in
// the namespace gets any.
func CheckWatch(t *testing.T, cluster *Cluster, style scaffold.Style, run Runner) {
	t.Run("a watch hands each matching existing object to the user's code", func(t *testing.T) {
		ctx := context.Background()
		c := cluster.Client
		dir := initNamed(t, style, style.Name+"-watch")
		watched, unwatched := "e2e-"+style.Name+"-watched", "e2e-"+style.Name+"-unwatched"
		MustRun(t, dir, "create", "api", "--target", "v1/Secret", "--namespace", watched, "--selector", "sync=vault")
		cluster.CreateNamespace(t, watched, false)
		cluster.CreateNamespace(t, unwatched, false)
		cluster.applyRBAC(t, dir)
		p, err := scaffold.LoadProject(dir, styles.All())
		require.NoError(t, err)

		secret := func(ns, name string, labels map[string]string) *corev1.Secret {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
				StringData: map[string]string{"password": "s3cret"}}
			require.NoError(t, c.Create(ctx, s))
			return s
		}
		vault := map[string]string{"sync": "vault"}
		elsewhere := secret(unwatched, "db-password", vault)
		unlabelled := secret(watched, "plain", nil)
		matching := secret(watched, "db-password", vault)

		defer run(t, dir, cluster.ServiceAccountKubeconfig(t, p.Namespace(), p.Name+"-controller-manager"), cluster.AdminKubeconfig(t)).Stop()
		handled := func(s *corev1.Secret) ([]corev1.Event, error) {
			var events corev1.EventList
			err := c.List(ctx, &events, client.InNamespace(s.Namespace), client.MatchingFields{"involvedObject.uid": string(s.UID)})
			return events.Items, err
		}
		// The starter's message names the object's resourceVersion: which
		// state of it the user's code was handed.
		handledAt := func(resourceVersion string) func() (bool, error) {
			want := scaffold.WatchMessage(map[string]any{"kind": "Secret",
				"metadata": map[string]any{"namespace": watched, "name": matching.Name, "resourceVersion": resourceVersion}})
			return func() (bool, error) {
				events, err := handled(matching)
				for _, e := range events {
					if e.Reason == render.WatchHandledReason && e.Type == corev1.EventTypeNormal && e.Message == want {
						return true, nil
					}
				}
				return false, err
			}
		}
		WaitFor(t, "the Event of the handled Secret", handledAt(matching.ResourceVersion))
		matching.StringData = map[string]string{"password": "rotated"}
		require.NoError(t, c.Update(ctx, matching))
		WaitFor(t, "the Event of the changed Secret", handledAt(matching.ResourceVersion))
		for _, s := range []*corev1.Secret{elsewhere, unlabelled} {
			events, err := handled(s)
			require.NoError(t, err)
			assert.Empty(t, events, "%s/%s is not watched", s.Namespace, s.Name)
		}
		if !style.Access.WatchesInNamespace {
			t.Logf("the %s runtime lists the watch's target in every namespace: its ClusterRole reads Secrets everywhere", style.Name)
			return
		}
		// Least privilege: the operator, which has just done its work,
		// may read Secrets in the watched namespace and nowhere else.
		cluster.assertMayList(t, p, "", "secrets", map[string]bool{watched: true, unwatched: false})
	})
}

// assertMayList asserts whether, in each namespace, the API server lets
// the operator of p list the resource of group.
func (c *Cluster) assertMayList(t *testing.T, p scaffold.Project, group, resource string, namespaces map[string]bool) {
	t.Helper()
	for ns, want := range namespaces {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + p.Namespace() + ":" + p.Name + "-controller-manager",
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + p.Namespace()},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Group: group, Resource: resource},
		}}
		require.NoError(t, c.Client.Create(context.Background(), review))
		assert.Equal(t, want, review.Status.Allowed, "may the operator list %s in namespace %s", resource, ns)
	}
}

// initNamed is a new project of style named name, as the seed's init makes
// it otherwise.
func initNamed(t *testing.T, style scaffold.Style, name string) string {
	dir := t.TempDir()
	args := seed.Init(style.Name, style.ModulePath)
	for i := range args[:len(args)-1] {
		switch args[i] {
		case "--name":
			args[i+1] = name
		case "--repo":
			args[i+1] = "example.com/" + name
		}
	}
	MustRun(t, dir, args...)
	return dir
}
