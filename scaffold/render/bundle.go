package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/lib/version"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/yamltext"
)

// bundleSourceDir holds the OLM bundle opctl writes from opctl.yaml:
// make bundle copies it to bundle/ with the CRDs, the image and the
// channels of the release.
const bundleSourceDir = "config/olm"

// CSVPath is the project's ClusterServiceVersion in bundleSourceDir.
func CSVPath(p scaffold.Project) string {
	return bundleSourceDir + "/manifests/" + p.Name + ".clusterserviceversion.yaml"
}

// minKubeVersion is the oldest Kubernetes the CSV installs on: the
// generated CRDs' CEL rules (GA in 1.29) and ValidatingAdmissionPolicies
// (GA in 1.30) need it.
const minKubeVersion = "1.30.0"

// defaultChannel is the OLM channel a bundle is in unless make bundle is
// told others.
const defaultChannel = "alpha"

// olmKinds are the kinds besides CRDs and the CSV that an OLM bundle may
// carry (operator-registry's pkg/lib/bundle/supported_resources.go, as far
// as config/ has them): OLM refuses a bundle with any other.
var olmKinds = []string{"ClusterRole", "ClusterRoleBinding", "ConfigMap", "NetworkPolicy", "Role", "RoleBinding",
	"Secret", "Service", "ServiceAccount", "ServiceMonitor"}

// olmCertDir is where OLM mounts the serving certificate it issues to a
// Deployment with webhooks (controller-runtime's default, which OLM took).
const olmCertDir = "/tmp/k8s-webhook-server/serving-certs"

// olmServesWebhooks reports whether OLM can serve the project's webhooks,
// if any: it issues their certificate, mounts it at olmCertDir, and
// writes their configurations and the CRDs' conversion itself. A runtime
// that registers its webhooks itself, or reads its certificate elsewhere
// and nowhere else, cannot be; nor a conversion webhook in an operator of
// one namespace (OLM converts only for operators of every namespace).
func olmServesWebhooks(p scaffold.Project, rt scaffold.Runtime) bool {
	for _, ws := range []*scaffold.WebhookServer{rt.Webhook, rt.OwnConversion()} {
		if ws != nil && (ws.Registers || ws.CertDir != olmCertDir && ws.CertDirEnv == "") {
			return false
		}
	}
	return rt.Conversion == nil || !p.Converts() || !p.NamespaceScoped()
}

// addBundle adds the OLM bundle of the project to bundleSourceDir: the
// ClusterServiceVersion installs config/manager's Deployment with the
// rules config/rbac binds to its ServiceAccount, owns the CRDs and
// declares the webhooks; the other objects of config/ go beside it when
// OLM can install their kind. No bundle is written where OLM cannot serve
// the webhooks (olmServesWebhooks).
func addBundle(p scaffold.Project, style scaffold.Style, rt scaffold.Runtime, files map[string][]any, kinds []contract, t *machinery.Tree) error {
	if !olmServesWebhooks(p, rt) {
		return nil
	}
	b := bundleOf(p, files)
	csv, err := clusterServiceVersion(p, style, rt, kinds, b)
	if err != nil {
		return err
	}
	header := "# " + GeneratedHeader + "\n"
	if len(b.leftOut) > 0 {
		header += "# Left out of the bundle, as OLM installs no object of their kinds: " + strings.Join(b.leftOut, ", ") +
			".\n# Apply them once OLM has installed the operator.\n"
	}
	content, err := marshalManifest(csv)
	if err != nil {
		return err
	}
	if err := t.Add(machinery.File{Path: CSVPath(p), Content: append([]byte(header), content...)}); err != nil {
		return err
	}
	for _, o := range b.extra {
		content, err := yamlFile(o)
		if err != nil {
			return err
		}
		if err := t.Add(machinery.File{Path: bundleSourceDir + "/manifests/" + bundleFileName(o), Content: content}); err != nil {
			return err
		}
	}
	annotations, err := yamltext.Marshal(map[string]map[string]string{"annotations": bundleAnnotations(p)})
	if err != nil {
		return err
	}
	return t.Add(machinery.File{Path: bundleSourceDir + "/metadata/annotations.yaml", Content: append([]byte("# "+GeneratedHeader+"\n"), annotations...)})
}

// bundleAnnotations are the bundle's metadata, which bundle.Dockerfile
// repeats as labels of the bundle image.
func bundleAnnotations(p scaffold.Project) map[string]string {
	return map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1":       "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1":       "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":        "metadata/",
		"operators.operatorframework.io.bundle.package.v1":         p.Name,
		"operators.operatorframework.io.bundle.channels.v1":        defaultChannel,
		"operators.operatorframework.io.bundle.channel.default.v1": defaultChannel,
	}
}

// bundleParts are config/'s objects as the bundle takes them.
type bundleParts struct {
	deployment                      *appsv1.Deployment
	permissions, clusterPermissions []rbacv1.PolicyRule
	webhooks                        []any            // config/'s webhook configurations
	extra                           []runtime.Object // named as kustomize names them, in no namespace
	leftOut                         []string         // config/ files of kinds OLM cannot install
}

// bundleOf sorts config/'s objects: the rules of the roles bound to the
// operator's ServiceAccount go into the CSV, as its permissions (Roles and
// RoleBindings) and clusterPermissions (ClusterRoleBindings); OLM creates
// the ServiceAccount, the namespace and those bindings itself.
func bundleOf(p scaffold.Project, files map[string][]any) bundleParts {
	var b bundleParts
	type roleKey struct{ kind, name, namespace string }
	roles := map[roleKey][]rbacv1.PolicyRule{}
	bound := map[roleKey]bool{}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		for _, o := range files[file] {
			switch r := o.(type) {
			case *rbacv1.Role:
				roles[roleKey{"Role", r.Name, r.Namespace}] = r.Rules
			case *rbacv1.ClusterRole:
				roles[roleKey{"ClusterRole", r.Name, ""}] = r.Rules
			}
		}
	}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		for _, o := range files[file] {
			switch r := o.(type) {
			case *rbacv1.ClusterRoleBinding:
				if bindsOperator(r.Subjects) {
					key := roleKey{r.RoleRef.Kind, r.RoleRef.Name, ""}
					b.clusterPermissions = append(b.clusterPermissions, roles[key]...)
					bound[key] = true
				}
			case *rbacv1.RoleBinding:
				if bindsOperator(r.Subjects) {
					key := roleKey{r.RoleRef.Kind, r.RoleRef.Name, r.Namespace}
					if key.kind == "ClusterRole" {
						key.namespace = ""
					}
					b.permissions = append(b.permissions, roles[key]...)
					bound[key] = true
				}
			}
		}
	}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		if strings.HasPrefix(file, webhookDir) || strings.HasPrefix(file, certManagerDir) {
			// OLM issues the certificate and makes the Service and the
			// configurations, from the CSV's webhook definitions.
			if file == WebhookManifestsPath {
				b.webhooks = files[file]
			}
			continue
		}
		for _, o := range files[file] {
			obj, ok := o.(runtime.Object)
			if !ok {
				// A kind of another API's (Metacontroller's controllers),
				// typed by its style, which OLM cannot install.
				if !slices.Contains(b.leftOut, file) {
					b.leftOut = append(b.leftOut, file)
				}
				continue
			}
			meta := obj.(metav1.Object)
			kind := obj.GetObjectKind().GroupVersionKind().Kind
			switch r := o.(type) {
			case *corev1.Namespace, *corev1.ServiceAccount:
				continue
			case *appsv1.Deployment:
				if r.Name == managerDeploymentName {
					b.deployment = r
					continue
				}
			case *rbacv1.ClusterRoleBinding:
				if bindsOperator(r.Subjects) {
					continue
				}
			case *rbacv1.RoleBinding:
				if bindsOperator(r.Subjects) {
					continue
				}
			}
			if bound[roleKey{kind, meta.GetName(), meta.GetNamespace()}] {
				continue
			}
			if !slices.Contains(olmKinds, kind) {
				if !slices.Contains(b.leftOut, file) {
					b.leftOut = append(b.leftOut, file)
				}
				continue
			}
			c := obj.DeepCopyObject()
			cm := c.(metav1.Object)
			cm.SetName(p.Name + "-" + cm.GetName())
			cm.SetNamespace("")
			b.extra = append(b.extra, c)
		}
	}
	return b
}

// bindsOperator reports whether a binding's subjects are the operator's
// ServiceAccount.
func bindsOperator(subjects []rbacv1.Subject) bool {
	return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
		return s.Kind == rbacv1.ServiceAccountKind && s.Name == serviceAccountName
	})
}

// bundleFileName names an extra object's file as operator-sdk does:
// Name, group, version and kind.
func bundleFileName(o runtime.Object) string {
	gvk := o.GetObjectKind().GroupVersionKind()
	parts := []string{o.(metav1.Object).GetName()}
	if gvk.Group != "" {
		parts = append(parts, gvk.Group)
	}
	return strings.Join(append(parts, gvk.Version, strings.ToLower(gvk.Kind)), "_") + ".yaml"
}

// clusterServiceVersion is the CSV of the project: what OLM installs
// (config/manager's Deployment under its kustomized name, with its rules)
// and what it shows (the kinds, their descriptions and samples).
func clusterServiceVersion(p scaffold.Project, style scaffold.Style, rt scaffold.Runtime, kinds []contract, b bundleParts) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	if b.deployment == nil {
		return nil, fmt.Errorf("internal error: no %s Deployment in config/manager", managerDeploymentName)
	}
	v, err := semver.Parse(p.AppVersion())
	if err != nil {
		return nil, fmt.Errorf("opctl.yaml: version %q: %w", p.AppVersion(), err)
	}
	var owned []operatorsv1alpha1.CRDDescription
	examples := []map[string]any{}
	for i, k := range kinds {
		// The version the operator's code reads, whose sample the CSV
		// offers: OLM takes the kind's older versions as the same API.
		cv := k.crd.Spec.Versions[slices.IndexFunc(k.crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool {
			return v.Name == p.APIs[i].Version
		})]
		owned = append(owned, operatorsv1alpha1.CRDDescription{
			Name: k.crd.Name, Version: cv.Name, Kind: k.crd.Spec.Names.Kind, DisplayName: k.crd.Spec.Names.Kind,
			Description: cv.Schema.OpenAPIV3Schema.Description,
			StatusDescriptors: []operatorsv1alpha1.StatusDescriptor{{Path: "conditions", DisplayName: "Conditions",
				XDescriptors: []string{"urn:alm:descriptor:io.kubernetes.conditions"}}},
		})
		examples = append(examples, k.sample)
	}
	annotations := map[string]string{
		"capabilities":   "Basic Install",
		"containerImage": p.Image(),
		"operators.operatorframework.io/suggested-namespace": p.Namespace(),
	}
	// OLM's console offers the samples as templates of the kinds.
	almExamples, err := json.MarshalIndent(examples, "", "  ")
	if err != nil {
		return nil, err
	}
	annotations["alm-examples"] = string(almExamples)
	spec := *b.deployment.Spec.DeepCopy()
	spec.Template.Spec.ServiceAccountName = p.Name + "-" + serviceAccountName
	deploymentName := p.Name + "-" + managerDeploymentName
	webhooks := webhookDefinitions(p, rt, deploymentName, kinds, b.webhooks)
	if len(webhooks) > 0 {
		withOLMCertificate(&spec.Template.Spec, rt)
	}
	install := operatorsv1alpha1.StrategyDetailsDeployment{DeploymentSpecs: []operatorsv1alpha1.StrategyDeploymentSpec{{
		Name: deploymentName, Label: b.deployment.Labels, Spec: spec,
	}}}
	permissions := func(rules []rbacv1.PolicyRule) []operatorsv1alpha1.StrategyDeploymentPermissions {
		return []operatorsv1alpha1.StrategyDeploymentPermissions{{ServiceAccountName: spec.Template.Spec.ServiceAccountName, Rules: rules}}
	}
	if len(b.clusterPermissions) > 0 {
		install.ClusterPermissions = permissions(b.clusterPermissions)
	}
	if len(b.permissions) > 0 || len(b.clusterPermissions) == 0 {
		// OLM creates the ServiceAccounts its permissions name: one with
		// no rules still needs an entry.
		install.Permissions = permissions(append([]rbacv1.PolicyRule{}, b.permissions...))
	}
	// A project of namespace scope watches the namespace it runs in; one
	// of cluster scope, every namespace.
	modes := []operatorsv1alpha1.InstallMode{
		{Type: operatorsv1alpha1.InstallModeTypeOwnNamespace, Supported: p.NamespaceScoped()},
		{Type: operatorsv1alpha1.InstallModeTypeSingleNamespace},
		{Type: operatorsv1alpha1.InstallModeTypeMultiNamespace},
		{Type: operatorsv1alpha1.InstallModeTypeAllNamespaces, Supported: !p.NamespaceScoped()},
	}
	return &operatorsv1alpha1.ClusterServiceVersion{
		TypeMeta: metav1.TypeMeta{APIVersion: operatorsv1alpha1.SchemeGroupVersion.String(), Kind: operatorsv1alpha1.ClusterServiceVersionKind},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name + ".v" + p.AppVersion(), Annotations: annotations,
			Labels: CommonLabels(p)},
		Spec: operatorsv1alpha1.ClusterServiceVersionSpec{
			DisplayName:    p.Name,
			Description:    fmt.Sprintf("%s: an operator of the %s style, scaffolded by opctl.", p.Name, style.Name),
			Version:        version.OperatorVersion{Version: v},
			Maturity:       defaultChannel,
			MinKubeVersion: minKubeVersion,
			Provider:       operatorsv1alpha1.AppLink{Name: p.Domain},
			Keywords:       []string{p.Name, style.Name},
			InstallStrategy: operatorsv1alpha1.NamedInstallStrategy{
				StrategyName: operatorsv1alpha1.InstallStrategyNameDeployment, StrategySpec: install},
			InstallModes:              modes,
			CustomResourceDefinitions: operatorsv1alpha1.CustomResourceDefinitions{Owned: owned},
			WebhookDefinitions:        webhooks,
		},
	}, nil
}

// webhookDefinitions are config/'s webhook configurations and CRD
// conversions as OLM takes them: OLM makes the Service (port 443 to the
// server's), the configurations and the CRDs' conversion from them.
func webhookDefinitions(p scaffold.Project, rt scaffold.Runtime, deploymentName string, kinds []contract, configurations []any) []operatorsv1alpha1.WebhookDescription {
	var out []operatorsv1alpha1.WebhookDescription
	define := func(typ operatorsv1alpha1.WebhookAdmissionType, ws *scaffold.WebhookServer, d operatorsv1alpha1.WebhookDescription) {
		d.Type, d.DeploymentName, d.ContainerPort = typ, deploymentName, 443
		d.TargetPort = ptr.To(intstr.FromInt32(ws.Port))
		out = append(out, d)
	}
	for _, c := range configurations {
		switch c := c.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			for _, w := range c.Webhooks {
				define(operatorsv1alpha1.MutatingAdmissionWebhook, rt.Webhook, operatorsv1alpha1.WebhookDescription{
					GenerateName: w.Name, Rules: w.Rules, FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
					ObjectSelector: w.ObjectSelector, SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
					AdmissionReviewVersions: w.AdmissionReviewVersions, ReinvocationPolicy: w.ReinvocationPolicy,
					WebhookPath: w.ClientConfig.Service.Path})
			}
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			for _, w := range c.Webhooks {
				define(operatorsv1alpha1.ValidatingAdmissionWebhook, rt.Webhook, operatorsv1alpha1.WebhookDescription{
					GenerateName: w.Name, Rules: w.Rules, FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
					ObjectSelector: w.ObjectSelector, SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
					AdmissionReviewVersions: w.AdmissionReviewVersions, WebhookPath: w.ClientConfig.Service.Path})
			}
		}
	}
	if rt.Conversion == nil {
		return out
	}
	server := rt.Webhook
	if own := rt.OwnConversion(); own != nil {
		server = own
	}
	for i, a := range p.APIs {
		if !a.Converts() {
			continue
		}
		crd := kinds[i].crd.Name
		define(operatorsv1alpha1.ConversionWebhook, server, operatorsv1alpha1.WebhookDescription{
			GenerateName: "c" + crd, SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"}, WebhookPath: ptr.To(rt.Conversion.Path(crd)), ConversionCRDs: []string{crd}})
	}
	return out
}

// withOLMCertificate has the pod read the certificate OLM mounts, instead
// of cert-manager's (config/'s webhook-certs volume, which OLM has no
// Secret for).
func withOLMCertificate(pod *corev1.PodSpec, rt scaffold.Runtime) {
	pod.Volumes = slices.DeleteFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == webhookCertsVolume })
	c := &pod.Containers[0]
	c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == webhookCertsVolume })
	for _, ws := range []*scaffold.WebhookServer{rt.Webhook, rt.OwnConversion()} {
		if ws != nil && ws.CertDir != olmCertDir {
			c.Env = append(c.Env, corev1.EnvVar{Name: ws.CertDirEnv, Value: olmCertDir})
		}
	}
}
