package scaffold

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/scaffold/api"
)

// TestPolicyTypeEnvMatchesTheAPIServer holds policyTypeEnv to the API
// server's own policy type checker (which opctl's binary does not link),
// on expressions it accepts and refuses.
func TestPolicyTypeEnvMatchesTheAPIServer(t *testing.T) {
	a := apitest.SeedAPI()
	a.Fields = apitest.MustFields(t, "engine:string:enum=mysql,postgres:required", "replicas:int32:min=1:max=5:default=1",
		"tags:[]string", "labels:map[string]string", "backup.retain:int32", "users[].name:string:required")
	expressions := []string{
		"object.spec.engine == 'mysql'", "object.spec.replicas <= 3", "object.spec.nope == 'x'", "object.spec.replicas == 'three'",
		"oldObject == null || object.spec.engine == oldObject.spec.engine", "request.operation == 'CREATE'",
		"request.userInfo.username != 'admin'", "namespaceObject.metadata.name != 'kube-system'",
		"authorizer.group('').resource('pods').check('get').allowed()", "size(object.spec.tags) < 5",
		"object.spec.labels.all(k, k.startsWith('a'))", "object.spec.backup.retain > 1", "object.spec.users.all(u, u.name != '')",
		"object.metadata.name.startsWith('db-')", "params.x == 1", "variables.x", "object.spec.engine.size()", "1 +",
		"object.spec.replicas.startsWith('a')", "has(object.spec.backup)",
	}
	env, err := policyTypeEnv(a)
	require.NoError(t, err)
	upstream := upstreamPolicyCheck(t, a)
	refused := 0
	for _, e := range expressions {
		_, issues := env.Compile(e)
		got := ""
		if issues != nil {
			got = issues.String()
			refused++
		}
		assert.Equal(t, upstream(e), got, e)
	}
	assert.Equal(t, 6, refused, "expressions refused")
}

func upstreamPolicyCheck(t *testing.T, a api.API) func(string) string {
	structural, err := api.StructuralOf(api.BuildCRD("opctl.invalid", a))
	require.NoError(t, err)
	gvk := schema.GroupVersionKind{Group: a.FullGroup("opctl.invalid"), Version: a.Version, Kind: a.Kind}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.AddSpecific(gvk, gvk.GroupVersion().WithResource(a.Plural), gvk.GroupVersion().WithResource(a.Singular()), meta.RESTScopeNamespace)
	checker := validating.TypeChecker{SchemaResolver: oneSchema{gvk, structural.ToKubeOpenAPI()}, RestMapper: mapper}
	ctx := checker.CreateContext(&admissionv1.ValidatingAdmissionPolicy{Spec: admissionv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionv1.RuleWithOperations{Rule: admissionv1.Rule{
				APIGroups: []string{gvk.Group}, APIVersions: []string{gvk.Version}, Resources: []string{a.Plural}}},
		}}},
	}})
	return func(e string) string {
		for _, r := range checker.CheckExpression(ctx, e) {
			if r.Issues != nil {
				return r.Issues.Error()
			}
			return r.Err.Error()
		}
		return ""
	}
}

type oneSchema struct {
	gvk    schema.GroupVersionKind
	schema *spec.Schema
}

func (o oneSchema) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	if gvk != o.gvk {
		return nil, fmt.Errorf("%s: %w", gvk, resolver.ErrSchemaNotFound)
	}
	return o.schema, nil
}
