package decorator

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles/hookserver"
)

// One DecoratorController per decorator: its target narrowed by the
// selector when there is one, its attachments the kinds it owns.
func TestDecoratorControllers(t *testing.T) {
	web := scaffold.Decorator{Name: "deployments", Target: scaffold.Target{APIVersion: "apps/v1", Kind: "Deployment", Resource: "deployments"},
		Selector: map[string]string{"app-type": "web"}, Owns: []string{"Service"}}
	all := scaffold.Decorator{Name: "statefulsets", Target: scaffold.Target{APIVersion: "apps/v1", Kind: "StatefulSet", Resource: "statefulsets"}, Owns: []string{"Service", "PodDisruptionBudget"}}
	files := manifests(scaffold.Project{Name: "web-decorator", ResyncSeconds: 30, Decorators: []scaffold.Decorator{web, all}})
	assert.Len(t, files, 3, "the hook Service and a controller per decorator")
	require.Contains(t, files, hookserver.ServicePath)

	dc := files["config/metacontroller/deployments.yaml"][0].(*decoratorController)
	assert.Equal(t, "deployments", dc.Name)
	require.Len(t, dc.Spec.Resources, 1)
	assert.Equal(t, hookserver.ResourceRule{APIVersion: "apps/v1", Resource: "deployments"}, dc.Spec.Resources[0].ResourceRule)
	assert.Equal(t, &metav1.LabelSelector{MatchLabels: map[string]string{"app-type": "web"}}, dc.Spec.Resources[0].LabelSelector)
	assert.Equal(t, int32(30), dc.Spec.ResyncPeriodSeconds)
	assert.Equal(t, "http://web-decorator-hook.web-decorator-system/sync/deployments", dc.Spec.Hooks.Sync.Webhook.URL)
	assert.Equal(t, []hookserver.ChildResourceRule{{ResourceRule: hookserver.ResourceRule{APIVersion: "v1", Resource: "services"}, UpdateStrategy: hookserver.UpdateStrategy{Method: "InPlace"}}}, dc.Spec.Attachments)

	other := files["config/metacontroller/statefulsets.yaml"][0].(*decoratorController)
	assert.Nil(t, other.Spec.Resources[0].LabelSelector, "no selector: every StatefulSet")
	assert.Len(t, other.Spec.Attachments, 2)
}
