package render

import (
	"fmt"
	"maps"
	"path"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/yamltext"
)

// Project builds the whole project tree in memory. Nothing touches the disk,
// so a failure anywhere leaves the user's directory as it was.
func Project(p scaffold.Project, style scaffold.Style) (*machinery.Tree, error) {
	if p.Style != style.Name {
		return nil, fmt.Errorf("internal error: the %s project rendered as %s", p.Style, style.Name)
	}
	t := machinery.NewTree()
	kinds, err := contracts(p)
	if err != nil {
		return nil, err
	}
	if err := addManifests(p, style, kinds, t); err != nil {
		return nil, err
	}
	if err := style.Files(p, t); err != nil {
		return nil, err
	}
	if err := t.Add(machinery.File{Path: apiDocPath, Content: apiDoc(p)}); err != nil {
		return nil, err
	}
	if err := addE2E(p, style, t); err != nil {
		return nil, err
	}
	ci := style.CI(p)
	workflow, err := ciWorkflow(p, ci)
	if err != nil {
		return nil, err
	}
	if err := t.Add(machinery.File{Path: WorkflowPath, Content: workflow, Owner: machinery.UserOwned}); err != nil {
		return nil, err
	}
	dev, err := devContainerFile(p, ci)
	if err != nil {
		return nil, err
	}
	if err := t.Add(machinery.File{Path: DevContainerPath, Content: dev, Owner: machinery.UserOwned}); err != nil {
		return nil, err
	}
	if err := addConformanceCases(p, style, kinds, t); err != nil {
		return nil, err
	}
	keepTeamsFiles(p, t)
	// The project file and the lock come last: the lock records the hash
	// of every other file as opctl writes it now. A starter the user
	// changed keeps their content (Plan), which differs from the hash, so
	// it is known as theirs.
	p.Generated, p.Starters = map[string]string{}, map[string]string{}
	for _, f := range t.Files() {
		if f.Owner == machinery.Generated {
			p.Generated[f.Path] = machinery.ContentHash(f.Content)
		} else {
			p.Starters[f.Path] = machinery.ContentHash(f.Content)
		}
	}
	p.Versions = p.Versions.Only(style.RecordedPins())
	projectFile, err := scaffold.MarshalProject(p)
	if err != nil {
		return nil, err
	}
	if err := t.Add(machinery.File{Path: scaffold.ProjectFileName, Content: projectFile, Always: true}); err != nil {
		return nil, err
	}
	lockFile, err := scaffold.MarshalLock(p)
	if err != nil {
		return nil, err
	}
	if err := t.Add(machinery.File{Path: scaffold.LockFileName, Content: lockFile, Always: true}); err != nil {
		return nil, err
	}
	return t, nil
}

// keepTeamsFiles: a file the project records as the team's stays the
// team's, though this opctl generates it (an earlier opctl's starter that
// is now a loop over the kinds, a team's file an upgrade merged): opctl
// brings it up to date by a three-way merge (machinery.File.Merge), never
// over the team's lines.
func keepTeamsFiles(p scaffold.Project, t *machinery.Tree) {
	for _, f := range t.Files() {
		if f.Owner == machinery.Generated && p.Starters[f.Path] != "" {
			f.Owner, f.Merge = machinery.UserOwned, true
			t.Set(f)
		}
	}
}

// CRDPath is where the CRD of an API lives, named as controller-gen names it.
func CRDPath(p scaffold.Project, a api.API) string {
	return fmt.Sprintf("config/crd/bases/%s_%s.yaml", a.FullGroup(p.Domain), a.Plural)
}

func SamplePath(p scaffold.Project, a api.API) string {
	return fmt.Sprintf("config/samples/%s_%s_%s.yaml", a.Group, a.Version, a.Singular())
}

// contract is what a render derives from a kind's API once: its CRD,
// which the API server's validation accepted, the checks of its objects,
// and its sample.
type contract struct {
	crd       *apiextensionsv1.CustomResourceDefinition
	validator *api.KindValidator
	sample    map[string]any
}

// contracts are the contracts of the project's kinds, in its order.
func contracts(p scaffold.Project) ([]contract, error) {
	var out []contract
	for _, a := range p.APIs {
		c, err := contractOf(p.Domain, a)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func contractOf(domain string, a api.API) (contract, error) {
	crd := api.BuildCRD(domain, a)
	if err := api.ValidateCRD(crd); err != nil {
		return contract{}, err
	}
	validator := api.NewKindValidator(crd)
	sample, err := api.SampleOf(domain, a, validator)
	return contract{crd: crd, validator: validator, sample: sample}, err
}

// addManifests adds the YAML every style shares: CRDs, RBAC, the manager
// Deployment, samples and the kustomizations tying them together.
func addManifests(p scaffold.Project, style scaffold.Style, kinds []contract, t *machinery.Tree) error {
	add := func(file string, objs ...any) error {
		b, err := yamlFile(objs...)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		return t.Add(machinery.File{Path: file, Content: b})
	}
	addKustomization := func(dir string, k *kustomization) error {
		k.APIVersion, k.Kind = "kustomize.config.k8s.io/v1beta1", "Kustomization"
		return add(dir+"/kustomization.yaml", k)
	}
	var crds, samples []string
	rt := style.Runtime(p)
	for i, a := range p.APIs {
		if err := add(CRDPath(p, a), withConversion(p, rt, a, kinds[i].crd)); err != nil {
			return err
		}
		crds = append(crds, path.Base(CRDPath(p, a)))
		if err := add(SamplePath(p, a), kinds[i].sample); err != nil {
			return err
		}
		samples = append(samples, path.Base(SamplePath(p, a)))
	}

	files := map[string][]any{
		"config/rbac/service_account.yaml":   {serviceAccount(p, style.Access.NeedsRole() || p.HasAccessRules())},
		"config/manager/manager.yaml":        {namespaceObject(p), managerDeployment(p, rt)},
		"config/manager/network_policy.yaml": {managerNetworkPolicy(p, rt)},
	}
	access := style.Access
	if rt.Metrics != nil && rt.Metrics.Secure {
		// The secure endpoint asks the API server who scrapes it and
		// whether they may.
		access.Extra = append(append([]rbacv1.PolicyRule(nil), access.Extra...),
			rbacv1.PolicyRule{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
			rbacv1.PolicyRule{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}})
	}
	if rt.Webhook != nil && rt.Webhook.Registers {
		access.Extra = append(slices.Clone(access.Extra), webhookAccess(p)...)
	}
	if own := rt.OwnConversion(); own != nil && own.Registers {
		access.Extra = append(slices.Clone(access.Extra), conversionAccess(p))
	}
	if rbac := managerRBAC(p, access); len(rbac) > 0 {
		files["config/rbac/role.yaml"] = rbac
	}
	for _, a := range p.APIs {
		files[KindRolesPath(a)] = kindRoles(p, a)
	}
	if style.LeaderElection {
		files["config/rbac/leader_election_role.yaml"] = leaderElectionRBAC(p)
	}
	if rt.Metrics != nil && rt.Metrics.Secure {
		files["config/rbac/metrics_reader_role.yaml"] = []any{metricsReaderRole(p)}
	}
	for file, objs := range admissionManifests(p, rt) {
		files[file] = objs
	}
	if style.Manifests != nil {
		for file, objs := range style.Manifests(p) {
			files[file] = objs
		}
	}
	// Every directory gets a kustomization listing its files; config/ lists
	// the directories.
	place, err := placement(p, files)
	if err != nil {
		return err
	}
	resources := map[string][]string{}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		if err := add(file, files[file]...); err != nil {
			return err
		}
		resources[path.Dir(file)] = append(resources[path.Dir(file)], path.Base(file))
	}
	if len(crds) > 0 {
		resources["config/crd"] = prefixAll("bases/", crds)
	}
	var top []string
	for _, dir := range slices.Sorted(maps.Keys(resources)) {
		top = append(top, path.Base(dir))
		if err := addKustomization(dir, &kustomization{Resources: resources[dir]}); err != nil {
			return err
		}
	}
	if len(samples) > 0 {
		if err := addKustomization("config/samples", &kustomization{Resources: samples}); err != nil {
			return err
		}
	}
	if m := rt.Metrics; m != nil {
		// Opt-in: config/metrics and config/prometheus are resource
		// directories config/ leaves out; config/with-metrics and
		// config/with-prometheus are config/ with them.
		opt := []struct {
			dir, file string
			objs      []any
		}{
			{metricsDir, "metrics.yaml", []any{metricsService(p, *m, "", ""), metricsNetworkPolicy(p, *m, "", "")}},
			{prometheusDir, "monitor.yaml", []any{serviceMonitor(p, *m, "", "")}},
		}
		with := prefixAll("../", top)
		for _, o := range opt {
			if err := add(o.dir+"/"+o.file, o.objs...); err != nil {
				return err
			}
			if err := addKustomization(o.dir, &kustomization{Resources: []string{o.file}}); err != nil {
				return err
			}
			with = append(with, "../"+path.Base(o.dir))
			entry := place
			entry.Resources = slices.Clone(with)
			if err := addKustomization("config/with-"+path.Base(o.dir), &entry); err != nil {
				return err
			}
		}
	}
	entry := place
	entry.Resources = top
	if err := addKustomization("config", &entry); err != nil {
		return err
	}
	if err := addChart(p, style, rt, files, t); err != nil {
		return err
	}
	return addBundle(p, style, rt, files, kinds, t)
}

// kustomization is the subset of kustomize's file that opctl writes.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	NamePrefix string   `json:"namePrefix,omitempty"`
	Resources  []string `json:"resources"`
	// Transformers are inline transformer configurations.
	Transformers []string `json:"transformers,omitempty"`
}

// placement is how config/ and its variants name the objects and put them
// in the project's namespace: with kustomize's namespace field, unless an
// object names its own (a watch's Role), which the field would move too;
// then with a NamespaceTransformer that sets only the namespaces left unset.
func placement(p scaffold.Project, files map[string][]any) (kustomization, error) {
	k := kustomization{NamePrefix: p.Name + "-"}
	for _, objs := range files {
		if namesNamespace(objs) {
			transformer, err := yamltext.Marshal(namespaceTransformer{APIVersion: "builtin", Kind: "NamespaceTransformer",
				Metadata: transformerMeta{Name: "namespace", Namespace: p.Namespace()}, UnsetOnly: true})
			k.Transformers = []string{string(transformer)}
			return k, err
		}
	}
	k.Namespace = p.Namespace()
	return k, nil
}

// namesNamespace reports whether an object names its own namespace, which
// config/ must keep (a watch's Role lives in the watched namespace).
func namesNamespace(objs []any) bool {
	for _, o := range objs {
		if m, ok := o.(metav1.Object); ok && m.GetNamespace() != "" {
			return true
		}
	}
	return false
}

// namespaceTransformer is kustomize's builtin NamespaceTransformer.
type namespaceTransformer struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   transformerMeta `json:"metadata"`
	// UnsetOnly leaves a namespace an object names alone.
	UnsetOnly bool `json:"unsetOnly"`
}

type transformerMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

func prefixAll(prefix string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = prefix + s
	}
	return out
}
