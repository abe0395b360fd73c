package scaffold

import (
	"fmt"
	"path"
)

// Render builds the whole project tree in memory. Nothing touches the disk,
// so a failure anywhere leaves the user's directory as it was.
func Render(p Project) (*Tree, error) {
	style, err := LookupStyle(p.Style)
	if err != nil {
		return nil, inputErrorf("style %q: %v", p.Style, err)
	}
	t := NewTree()
	projectFile, err := MarshalProject(p)
	if err != nil {
		return nil, err
	}
	if err := t.Add(File{Path: ProjectFileName, Content: projectFile}); err != nil {
		return nil, err
	}
	if err := addManifests(p, style, t); err != nil {
		return nil, err
	}
	if err := style.Files(p, t); err != nil {
		return nil, err
	}
	return t, nil
}

// CRDPath is where the CRD of an API lives, named as controller-gen names it.
func CRDPath(p Project, a API) string {
	return fmt.Sprintf("config/crd/bases/%s_%s.yaml", a.FullGroup(p.Domain), a.Plural)
}

func samplePath(p Project, a API) string {
	return fmt.Sprintf("config/samples/%s_%s_%s.yaml", a.Group, a.Version, a.Singular())
}

// addManifests adds the YAML every style shares: CRDs, RBAC, the manager
// Deployment, samples and the kustomizations tying them together.
func addManifests(p Project, style Style, t *Tree) error {
	add := func(file string, objs ...any) error {
		b, err := yamlFile(objs...)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		return t.Add(File{Path: file, Content: b})
	}
	var crds, samples []string
	for _, a := range p.APIs {
		crd := BuildCRD(p.Domain, a)
		if err := ValidateCRD(crd); err != nil {
			return err
		}
		if err := add(CRDPath(p, a), crd); err != nil {
			return err
		}
		crds = append(crds, path.Base(CRDPath(p, a)))
		sample, err := BuildSample(p.Domain, a)
		if err != nil {
			return err
		}
		if err := add(samplePath(p, a), sample); err != nil {
			return err
		}
		samples = append(samples, path.Base(samplePath(p, a)))
	}

	rbac := []string{"service_account.yaml", "role.yaml"}
	if err := add("config/rbac/service_account.yaml", serviceAccount(p)); err != nil {
		return err
	}
	if err := add("config/rbac/role.yaml", managerRBAC(p, style.Access)...); err != nil {
		return err
	}
	if style.LeaderElection {
		rbac = append(rbac, "leader_election_role.yaml")
		if err := add("config/rbac/leader_election_role.yaml", leaderElectionRBAC(p)...); err != nil {
			return err
		}
	}
	if err := add("config/manager/manager.yaml", namespaceObject(p), managerDeployment(p, style.Runtime(p))); err != nil {
		return err
	}

	top := []string{"rbac", "manager"}
	if len(crds) > 0 {
		top = append([]string{"crd"}, top...)
	}
	kustomizations := map[string]*Kustomization{
		"config/kustomization.yaml":         {Namespace: p.Namespace(), NamePrefix: p.Name + "-", Resources: top},
		"config/rbac/kustomization.yaml":    {Resources: rbac},
		"config/manager/kustomization.yaml": {Resources: []string{"manager.yaml"}},
	}
	if len(crds) > 0 {
		kustomizations["config/crd/kustomization.yaml"] = &Kustomization{Resources: prefixAll("bases/", crds)}
		kustomizations["config/samples/kustomization.yaml"] = &Kustomization{Resources: samples}
	}
	for _, file := range sortedKeys(kustomizations) {
		k := kustomizations[file]
		k.APIVersion, k.Kind = "kustomize.config.k8s.io/v1beta1", "Kustomization"
		if err := add(file, k); err != nil {
			return err
		}
	}
	return nil
}

// Kustomization is the subset of kustomize's file that opctl writes.
type Kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	NamePrefix string   `json:"namePrefix,omitempty"`
	Resources  []string `json:"resources"`
}

func prefixAll(prefix string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = prefix + s
	}
	return out
}
