//go:build generated

package scaffold_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/render"
)

// TestBundlesPassOLMValidation: every golden project's make bundle writes
// an OLM bundle that the operator framework's validators (operator-
// framework/api: what operator-sdk bundle validate runs, and its good
// practices) pass without an error or a warning. Its CSV installs the
// Deployment kubectl kustomize config/ gives, with the image IMG, and
// grants the rules config/ binds to its ServiceAccount; bundle.Dockerfile
// labels the image with the bundle's annotations, channels as CHANNELS
// says. A project whose webhooks OLM cannot serve gets none, and make
// bundle says why. With webhooks, the CSV defines each of config/'s, and the
// Deployment reads OLM's certificate instead of cert-manager's.
func TestBundlesPassOLMValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make and kubectl kustomize")
	}
	tools.RequireTools(t, "make and kubectl, whose kustomize builds config/", "make", "kubectl")
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tree := c.render(t)
			dir := writeTree(t, tree)
			const img = "registry.example.com/team/operator:v9.9.9"
			cmd := exec.Command("make", "bundle", "IMG="+img, "CHANNELS=candidate,stable")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if _, ok := tree.Get(render.CSVPath(c.project)); !ok {
				require.Error(t, err, "make bundle without a bundle: %s", out)
				assert.Contains(t, string(out), "OLM cannot serve")
				return
			}
			require.NoError(t, err, "make bundle: %s", out)

			bundle, err := manifests.GetBundleFromDir(filepath.Join(dir, "bundle"))
			require.NoError(t, err)
			validators := validation.DefaultBundleValidators.WithValidators(validation.GoodPracticesValidator)
			for _, result := range validators.Validate(append(bundle.ObjectsToValidate(), bundle)...) {
				for _, e := range result.Errors {
					t.Errorf("%s: %s", result.Name, e)
				}
				for _, w := range result.Warnings {
					t.Errorf("%s: warning: %s", result.Name, w)
				}
			}
			assert.Equal(t, []string{"candidate", "stable"}, bundle.Channels)
			assert.Equal(t, "candidate", bundle.DefaultChannel)
			assert.Len(t, bundle.V1CRDs, len(c.project.APIs), "the bundle has the project's CRDs")

			kustomized, err := exec.Command("kubectl", "kustomize", filepath.Join(dir, "config")).Output()
			require.NoError(t, err)
			objs := styletest.DecodeObjects(t, kustomized)
			install := bundle.CSV.Spec.InstallStrategy.StrategySpec
			require.Len(t, install.DeploymentSpecs, 1)
			var deployment appsv1.Deployment
			fromUnstructured(t, find(t, objs, "Deployment", install.DeploymentSpecs[0].Name), &deployment)
			deployment.Spec.Template.Spec.Containers[0].Image = img
			csvSpec := install.DeploymentSpecs[0].Spec.DeepCopy()
			// OLM mounts a webhook server's certificate where controller-
			// runtime reads one: cert-manager's goes, and a server reading
			// another directory is pointed there.
			pod, csvPod := &deployment.Spec.Template.Spec, &csvSpec.Template.Spec
			notCertManagers := func(name string) bool { return name != "webhook-certs" }
			pod.Volumes = filter(pod.Volumes, func(v corev1.Volume) bool { return notCertManagers(v.Name) })
			pod.Containers[0].VolumeMounts = filter(pod.Containers[0].VolumeMounts, func(m corev1.VolumeMount) bool { return notCertManagers(m.Name) })
			csvPod.Containers[0].Env = filter(csvPod.Containers[0].Env, func(e corev1.EnvVar) bool { return e.Value != olmCertDir })
			checkWebhooks(t, objs, pod.Containers[0], bundle.CSV.Spec.WebhookDefinitions)
			assert.Equal(t, deployment.Spec, *csvSpec, "the CSV's Deployment is config/'s")
			assert.Equal(t, img, bundle.CSV.Annotations["containerImage"])

			sa := deployment.Spec.Template.Spec.ServiceAccountName
			var clusterRules, rules []rbacv1.PolicyRule
			for _, o := range objs {
				switch o.GetKind() {
				case "ClusterRoleBinding", "RoleBinding":
					var binding rbacv1.RoleBinding
					fromUnstructured(t, o, &binding)
					if !slices.ContainsFunc(binding.Subjects, func(s rbacv1.Subject) bool { return s.Name == sa }) {
						continue
					}
					var role rbacv1.ClusterRole
					fromUnstructured(t, find(t, objs, binding.RoleRef.Kind, binding.RoleRef.Name), &role)
					if o.GetKind() == "ClusterRoleBinding" {
						clusterRules = append(clusterRules, role.Rules...)
					} else {
						rules = append(rules, role.Rules...)
					}
				}
			}
			var csvClusterRules, csvRules []rbacv1.PolicyRule
			for _, p := range install.ClusterPermissions {
				assert.Equal(t, sa, p.ServiceAccountName)
				csvClusterRules = append(csvClusterRules, p.Rules...)
			}
			for _, p := range install.Permissions {
				assert.Equal(t, sa, p.ServiceAccountName)
				csvRules = append(csvRules, p.Rules...)
			}
			assert.ElementsMatch(t, clusterRules, csvClusterRules, "clusterPermissions are the rules config/ binds cluster-wide")
			assert.ElementsMatch(t, rules, csvRules, "permissions are the rules config/ binds in a namespace")

			dockerfile, err := os.ReadFile(filepath.Join(dir, "bundle.Dockerfile"))
			require.NoError(t, err)
			annotations, err := os.ReadFile(filepath.Join(dir, "bundle/metadata/annotations.yaml"))
			require.NoError(t, err)
			var meta struct{ Annotations map[string]string }
			require.NoError(t, yaml.Unmarshal(annotations, &meta))
			labels := map[string]string{}
			for _, m := range regexp.MustCompile(`(?m)^LABEL (\S+)=(\S+)$`).FindAllStringSubmatch(string(dockerfile), -1) {
				labels[m[1]] = m[2]
			}
			assert.Equal(t, meta.Annotations, labels, "bundle.Dockerfile's labels are the bundle's annotations")
			assert.Regexp(t, `(?m)^FROM scratch\n(LABEL .*\n)+COPY bundle/manifests /manifests/\nCOPY bundle/metadata /metadata/\n\z`, string(dockerfile))
		})
	}
}

// olmCertDir is where OLM mounts a webhook server's certificate.
const olmCertDir = "/tmp/k8s-webhook-server/serving-certs"

// checkWebhooks: every webhook of config/ is defined in the CSV, by
// Name, rules and path, and every CRD's conversion; OLM's Service sends
// port 443 where config/'s webhook Services do.
func checkWebhooks(t *testing.T, objs []*unstructured.Unstructured, container corev1.Container, defs []operatorsv1alpha1.WebhookDescription) {
	t.Helper()
	byName := map[string]operatorsv1alpha1.WebhookDescription{}
	for _, d := range defs {
		byName[d.GenerateName] = d
		assert.Equal(t, int32(443), d.ContainerPort, "%s", d.GenerateName)
		require.NotNil(t, d.TargetPort, "%s", d.GenerateName)
		assert.True(t, slices.ContainsFunc(container.Ports, func(p corev1.ContainerPort) bool { return p.ContainerPort == d.TargetPort.IntVal }),
			"%s: targetPort %s is a port of the operator's container", d.GenerateName, d.TargetPort)
	}
	for _, o := range objs {
		switch o.GetKind() {
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			var c admissionregistrationv1.ValidatingWebhookConfiguration // the fields both have
			fromUnstructured(t, o, &c)
			for _, w := range c.Webhooks {
				d, ok := byName[w.Name]
				if !assert.True(t, ok, "the CSV defines the webhook %s", w.Name) {
					continue
				}
				assert.Equal(t, strings.TrimSuffix(o.GetKind(), "Configuration"), strings.Replace(string(d.Type), "Admission", "", 1), "%s", w.Name)
				assert.Equal(t, w.Rules, d.Rules, "%s", w.Name)
				assert.Equal(t, w.ClientConfig.Service.Path, d.WebhookPath, "%s", w.Name)
			}
		case "CustomResourceDefinition":
			var crd apiextensionsv1.CustomResourceDefinition
			fromUnstructured(t, o, &crd)
			if crd.Spec.Conversion == nil || crd.Spec.Conversion.Webhook == nil {
				continue
			}
			found := slices.ContainsFunc(defs, func(d operatorsv1alpha1.WebhookDescription) bool {
				return d.Type == operatorsv1alpha1.ConversionWebhook && slices.Contains(d.ConversionCRDs, crd.Name) &&
					*d.WebhookPath == *crd.Spec.Conversion.Webhook.ClientConfig.Service.Path
			})
			assert.True(t, found, "the CSV defines the conversion of %s", crd.Name)
		}
	}
}

func filter[T any](items []T, keep func(T) bool) []T {
	var out []T
	for _, i := range items {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}

// find is the object of kind named name, which config/ must have.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("kubectl kustomize config/ gives no %s %s", kind, name)
	return nil
}

func fromUnstructured(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into))
}
