package scaffold

import (
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/openapi"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
)

// WebhookServer is how a runtime serves admission webhooks over HTTPS.
type WebhookServer struct {
	// Port is the container port it listens on.
	Port int32
	// CertDir is where it reads tls.crt, tls.key and ca.crt.
	CertDir string
	// Registers: the runtime writes its webhook configurations itself, so
	// config/ has none and the runtime needs RBAC to write them.
	Registers bool
	// CertDirEnv is the environment variable that points the server at
	// another certificate directory (OLM's), if it reads one.
	CertDirEnv string
}

// DefaultedLabel is what every style's starter defaulting sets when it is
// missing: app.kubernetes.io/name, to the singular of the kind.
const DefaultedLabel = "app.kubernetes.io/name"

// Webhooks reports whether the operator serves webhooks: some kind asks
// for admission, or converts between its versions.
func (p Project) Webhooks() bool { return p.Admits() || p.Converts() }

// Admits reports whether any kind asks for admission.
func (p Project) Admits() bool {
	return slices.ContainsFunc(p.APIs, func(a api.API) bool { return a.Admission != nil })
}

// Converts reports whether any kind converts between its versions with
// the operator's webhook (API.Converts).
func (p Project) Converts() bool { return slices.ContainsFunc(p.APIs, api.API.Converts) }

// ChildPrerequisites is what the cluster needs before the project's
// children can be created: the CRDs of owned kinds that are not built in.
func (p Project) ChildPrerequisites() []api.Prerequisite {
	var out []api.Prerequisite
	for _, c := range api.ChildKinds() {
		if c.Prerequisite == nil {
			continue
		}
		for _, a := range p.APIs {
			if slices.Contains(a.Owns, c.Kind) {
				out = append(out, *c.Prerequisite)
				break
			}
		}
	}
	return out
}

// OwnConversion is the conversion server when it is not the admission
// webhook server, else nil.
func (rt Runtime) OwnConversion() *WebhookServer {
	if rt.Conversion == nil {
		return nil
	}
	return rt.Conversion.Own
}

// ServesHTTPS reports whether the runtime serves webhooks of any kind,
// with cert-manager's certificate.
func (rt Runtime) ServesHTTPS() bool { return rt.Webhook != nil || rt.OwnConversion() != nil }

// AddAdmission returns the project with admission added to the kind named
// kind (merged with what it has), checked against what style can serve.
func (p Project) AddAdmission(src input.Source, style Style, kind string, adm api.Admission) (Project, error) {
	i, err := p.kindIndex(src, kind)
	if err != nil {
		return p, err
	}
	a := p.APIs[i]
	if a.Admission != nil {
		adm.Validate = adm.Validate || a.Admission.Validate
		adm.Default = adm.Default || a.Admission.Default
		adm.Rules = append(slices.Clone(a.Admission.Rules), adm.Rules...)
	}
	a.Admission = &adm
	if err := validateAdmission(src, style, a); err != nil {
		return p, err
	}
	p.APIs = append([]api.API(nil), p.APIs...)
	p.APIs[i] = a
	return p, nil
}

// validateAdmission checks a kind's admission against its style: defaults
// and code need a runtime that serves webhooks, policy rules one that
// does not; every policy rule compiles as the API server compiles it.
func validateAdmission(src input.Source, style Style, a api.API) error {
	adm := a.Admission
	if adm == nil {
		return nil
	}
	switch {
	case !adm.Validate && !adm.Default:
		return input.Errorf("%s: admission of %s needs --validate, --default or both", src("validate"), a.Kind)
	case adm.Default && !style.Webhooks:
		return input.Errorf("%s: %s projects have no admission webhook of their own (their --validate is a ValidatingAdmissionPolicy, which cannot change objects): put defaults in the schema, --field NAME:TYPE:default=V", src("default"), style.Name)
	case len(adm.Rules) > 0 && style.Webhooks:
		return input.Errorf("%s is for ValidatingAdmissionPolicy rules (styles without webhooks); %s projects check objects in their webhook's code", src("rule"), style.Name)
	case len(adm.Rules) > 0 && !adm.Validate:
		return input.Errorf("%s: policy rules validate: add --validate", src("rule"))
	}
	if err := validatePolicyRules(src, adm.Rules); err != nil {
		return err
	}
	return typeCheckPolicyRules(src, a, adm.Rules)
}

// typeCheckPolicyRules checks each policy rule against the kind's schema
// as the API server type-checks a policy: a rule reading a field the kind
// lacks, or comparing it with the wrong type, would fail on every object,
// and a policy with failurePolicy Fail would then refuse every create and
// update of the kind.
func typeCheckPolicyRules(src input.Source, a api.API, rules []api.Rule) error {
	if len(rules) == 0 {
		return nil
	}
	env, err := policyTypeEnv(a)
	if err != nil {
		return err
	}
	for _, r := range rules {
		if _, issues := env.Compile(r.Rule); issues != nil {
			why := oneLine(issues.Err())
			if m := api.CompileError().FindStringSubmatch(issues.String()); m != nil {
				why = m[2]
			}
			return input.Invalid(src, "rule", r.Rule, "does not fit %s's schema: %s", a.Kind, why)
		}
	}
	return nil
}

// policyTypeEnv is the CEL environment the API server type-checks a
// policy's expressions in (k8s.io/apiserver's validating.TypeChecker) for
// a policy on one kind without params or variables: object and oldObject
// of the kind's schema's type, request, namespace and authorizer. The
// TypeChecker itself is not used: its package links client-go's typed
// clients and their schemes, a third of opctl's start-up.
func policyTypeEnv(a api.API) (*cel.Env, error) {
	structural, err := api.StructuralOf(api.BuildCRD("opctl.invalid", a)) // the domain changes no type
	if err != nil {
		return nil, err
	}
	object := common.SchemaDeclType(&openapi.Schema{Schema: structural.ToKubeOpenAPI()}, true).MaybeAssignTypeName(a.Kind + "0")
	request, namespace := plugincel.BuildRequestType(), plugincel.BuildNamespaceType()
	envSet, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			cel.Variable(plugincel.NamespaceVarName, namespace.CelType()),
			cel.Variable(plugincel.RequestVarName, request.CelType()),
			cel.Variable(plugincel.ObjectVarName, object.CelType()),
			cel.Variable(plugincel.OldObjectVarName, object.CelType()),
			cel.Variable("authorizer", library.AuthorizerType),
		},
		DeclTypes: []*apiservercel.DeclType{namespace, request, object},
	})
	if err != nil {
		return nil, err
	}
	compiler, err := plugincel.NewCompositedCompilerForTypeChecking(envSet)
	if err != nil {
		return nil, err
	}
	return compiler.Env(environment.StoredExpressions)
}

// policyExpression is a ValidatingAdmissionPolicy validation, as the API
// server's compiler takes it.
type policyExpression string

func (e policyExpression) GetExpression() string  { return string(e) }
func (policyExpression) ReturnTypes() []*cel.Type { return []*cel.Type{cel.BoolType} }

// validatePolicyRules compiles each rule with the API server's compiler
// for ValidatingAdmissionPolicy validations (object, oldObject, request
// and namespaceObject declared, no params).
func validatePolicyRules(src input.Source, rules []api.Rule) error {
	if len(rules) == 0 {
		return nil
	}
	compiler := plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	for _, r := range rules {
		res := compiler.CompileCELExpression(policyExpression(r.Rule), plugincel.OptionalVariableDeclarations{}, environment.StoredExpressions)
		if res.Error != nil {
			return input.Invalid(src, "rule", r.Rule, "%s", strings.Join(strings.Fields(res.Error.Detail), " "))
		}
	}
	return nil
}
