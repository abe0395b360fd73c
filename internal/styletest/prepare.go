//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
)

// FakePrepare writes, in place of the starter's prepare step of the
// project in dir, a call to url (a fake feature store) that fails with
// the answer while it is not 200 OK.
type FakePrepare func(t *testing.T, dir, url string)

// CheckPrepare proves the imperative step before the children (the
// article's TrainingJob: call the feature store, then create the Job),
// with the project's own RBAC: while the external API fails, the
// TrainingJob is Ready=False with reason PrepareFailed and the API's
// answer, and has no Job; once the API answers, the retry creates the Job
// and Ready turns True.
func CheckPrepare(t *testing.T, cluster *Cluster, style scaffold.Style, run Runner, fake FakePrepare) {
	t.Run("a failing step before the children holds them and is retried", func(t *testing.T) {
		ctx := context.Background()
		c := cluster.Client
		var up atomic.Bool
		store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if !up.Load() {
				http.Error(w, "feature store warming up", http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte(`{"features": "v3"}`))
		}))
		defer store.Close()

		dir := initNamed(t, style, style.Name+"-training")
		MustRun(t, dir, "create", "api", "--group", "ml", "--version", "v1", "--kind", "TrainingJob",
			"--field", "dataset:string:required", "--owns", "Job")
		fake(t, dir, store.URL)
		p, _ := cluster.installCRD(t, dir)
		cluster.applyRBAC(t, dir)
		ns := "e2e-" + style.Name + "-training"
		cluster.CreateNamespace(t, ns, false)
		a := p.APIs[0]
		job := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": a.FullGroup(p.Domain) + "/" + a.Version, "kind": a.Kind,
			"metadata": map[string]any{"name": "resnet", "namespace": ns},
			"spec":     map[string]any{"dataset": "s3://images/train"}}}
		require.NoError(t, c.Create(ctx, job))

		defer run(t, dir, cluster.ServiceAccountKubeconfig(t, p.Namespace(), p.Name+"-controller-manager"), cluster.AdminKubeconfig(t)).Stop()
		readyIs := func(status, reason string) func() (bool, error) {
			return func() (bool, error) {
				if err := c.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
					return false, err
				}
				cond := readyCondition(job)
				return cond != nil && cond["status"] == status && cond["reason"] == reason, nil
			}
		}
		WaitFor(t, "Ready=False with reason PrepareFailed", readyIs("False", "PrepareFailed"))
		assert.Contains(t, readyCondition(job)["message"], "503", "the message says what the external API answered")
		children := a.OwnedKinds()
		require.Len(t, children, 1)
		jobKey := client.ObjectKey{Namespace: ns, Name: "resnet-" + children[0].Suffix()}
		err := c.Get(ctx, jobKey, &batchv1.Job{})
		assert.True(t, apierrors.IsNotFound(err), "no Job before the external step succeeds: %v", err)

		up.Store(true)
		WaitFor(t, "the Job once the feature store answers", func() (bool, error) {
			err := c.Get(ctx, jobKey, &batchv1.Job{})
			return err == nil, client.IgnoreNotFound(err)
		})
		WaitFor(t, "Ready=True", readyIs("True", "Reconciled"))
		checkOutdatedJob(t, c, job, jobKey, "dataset", "s3://images/train-v2")
	})
}

// checkOutdatedJob: a change of obj's spec (field set to value) that would
// give its Job (at jobKey) another spec leaves the Job as it is, as no
// style replaces a Job, which may be running, and makes obj Ready=False
// with reason ChildOutdated naming the Job; once the Job is deleted, it is
// made again from the new spec, and obj is Ready.
func checkOutdatedJob(t *testing.T, c client.Client, obj *unstructured.Unstructured, jobKey client.ObjectKey, field, value string) {
	t.Helper()
	ctx := context.Background()
	env := func(j *batchv1.Job) map[string]string {
		out := map[string]string{}
		for _, e := range j.Spec.Template.Spec.Containers[0].Env {
			out[e.Name] = e.Value
		}
		return out
	}
	var before batchv1.Job
	require.NoError(t, c.Get(ctx, jobKey, &before))
	variable := "SPEC_" + strings.ToUpper(field)
	require.NotEqual(t, value, env(&before)[variable], "the Job's %s before the change", variable)
	updateSpec(t, c, obj, func(spec map[string]any) { spec[field] = value })
	WaitFor(t, "Ready=False with reason ChildOutdated", func() (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return false, err
		}
		cond := readyCondition(obj)
		return cond != nil && cond["status"] == "False" && cond["reason"] == render.OutdatedReason &&
			fmt.Sprint(cond["observedGeneration"]) == fmt.Sprint(obj.GetGeneration()), nil
	})
	assert.Contains(t, readyCondition(obj)["message"], "Job "+jobKey.Name, "the message names the Job")
	var kept batchv1.Job
	require.NoError(t, c.Get(ctx, jobKey, &kept))
	assert.Equal(t, before.UID, kept.UID, "the Job is not replaced")
	assert.Equal(t, env(&before), env(&kept), "the Job is not changed")

	require.NoError(t, c.Delete(ctx, &kept, client.PropagationPolicy(metav1.DeletePropagationBackground)))
	WaitFor(t, "the Job made again from the new spec, and Ready", func() (bool, error) {
		var again batchv1.Job
		if err := c.Get(ctx, jobKey, &again); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return false, err
		}
		cond := readyCondition(obj)
		return again.UID != before.UID && env(&again)[variable] == value && cond != nil && cond["status"] == "True", nil
	})
}

// EditFile replaces the one occurrence of old in the file at path, failing
// the test when the generated code no longer has it once.
func EditFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(b), old), "%s changed: %q is not in it once", path, old)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644))
}
