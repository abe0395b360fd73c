// Package ansible is the ansible style: an Ansible role per kind, run by the
// Ansible Operator.
package ansible

import (
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/yamltext"
)

//go:embed all:templates
var files embed.FS

// Style is the ansible style.
func Style() scaffold.Style {
	return scaffold.Style{
		Name: "ansible",
		Pins: []string{"actionsSetupPython", "ansibleLintPip", "ansibleOperatorImage", "ansiblePip", "devContainerPython",
			"kubernetesCoreCollection", "operatorSDKUtilCollection", "python"},
		Ownership:       "the operator's proxy puts the controller ownerReference on each object the role creates; a child the role no longer applies stays until you delete it",
		Finalizers:      "the operator adds one when watches.yaml names a finalizer, and runs its role or playbook on deletion",
		ConformanceTest: "ansible-playbook tests/test-conformance.yml",
		Checklist: checklist.Profile{
			Languages: []checklist.Language{checklist.Language{Value: "ansible", Label: "Ansible", Reason: "an Ansible team: existing roles and playbooks can run unchanged"}},
			Comparison: checklist.Comparison{Language: "Ansible YAML", LearningCurve: "gentle for Ansible users",
				Expressiveness: "what Ansible modules can do", Performance: "heaviest: ansible-runner per reconcile",
				Idempotency: "Ansible modules (k8s state: present is idempotent)",
				Maturity:    "maintained by the Operator Framework", BestFit: "organisations with many existing playbooks"},
			Points: map[string]int{"new-crd=yes": 1, "new-crd=no": -1, "scale=small": 1, "language=ansible": 5,
				"logic=declarative": 1, "logic=imperative": 1},
			MaintainerPoints: map[string]int{"ansible": 4},
			Reasons: map[string]string{
				"language=ansible": "an Ansible team: existing roles and playbooks run unchanged under the Ansible Operator",
			},
			ScaleAdvice: "each reconcile runs ansible-playbook, a core busy for seconds: give the operator cores and raise ansible-operator's --max-concurrent-reconciles (the manager's args) with them",
		},
		Resync:        true,
		KindOptions:   []scaffold.KindOption{PlaybookOption()},
		CannotConvert: "ansible-operator serves no webhooks, CRD conversion included (operator-sdk's Ansible runtime)",
		Watches:       true,
		Summary:       "an Ansible role run by the Ansible Operator: for teams with Ansible playbooks",
		Access: scaffold.Access{
			Parent: []string{"get", "list", "watch"},
			// operator_sdk.util.k8s_status reads, then merge-patches status.
			Status: []string{"get", "patch"},
			// kubernetes.core.k8s gets, then server-side applies (a patch,
			// which creates a missing child); the operator lists and
			// watches what the role reads.
			Child: func(api.ChildKind) []string { return []string{"create", "delete", "get", "list", "patch", "watch"} },
			Extra: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}}},
			// A watch's role reads its Event (past the operator's cache),
			// then creates it.
			Events: []string{"create", "get"},
		},
		// The lease of ansible-operator's leader election.
		LeaderElection: true,
		Runtime: func(p scaffold.Project) scaffold.Runtime {
			return scaffold.Runtime{
				// Metrics over HTTPS, to clients the API server authenticates
				// and authorizes only (ansible-operator's flags).
				Args:          []string{"--health-probe-bind-address=:6789", "--metrics-bind-address=:8443", "--metrics-secure", "--metrics-require-rbac"},
				Ports:         []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8443, Protocol: corev1.ProtocolTCP}},
				Metrics:       &scaffold.Metrics{Port: 8443, Secure: true},
				Env:           []corev1.EnvVar{{Name: "ANSIBLE_GATHERING", Value: "explicit"}},
				HealthPort:    6789,
				LivenessPath:  "/healthz",
				ReadinessPath: "/readyz",
				// Ansible's local temp only: the image's collections live
				// in /opt/ansible/.ansible and must stay visible.
				WritableDirs: []string{"/tmp", "/opt/ansible/.ansible/tmp"},
				// As operator-sdk's Ansible scaffold runs it: a Lease named
				// after the project, in the operator's namespace; held as
				// long as the go manager holds its own.
				LeaderElectionArgs: append([]string{"--leader-elect", "--leader-election-id=" + p.Name}, render.DefaultLease().Args()...),
			}
		},
		Files: ansibleFiles,
		CI: func(p scaffold.Project) scaffold.CI {
			v := p.Versions
			return scaffold.CI{
				Setup: append(scaffold.PythonCI(p, fmt.Sprintf("'ansible%s' 'ansible-lint%s'", v.AnsiblePip, v.AnsibleLintPip)),
					scaffold.CIStep{Name: "Install the collections", Run: "ansible-galaxy collection install -r requirements.yml"}),
				Targets:  []string{"test"},
				DevImage: v.DevContainerPython,
			}
		},
	}
}

// SnakeCase converts a spec field name as the Ansible Operator does:
// storageClass → storage_class, egressIPs → egress_i_ps.
func SnakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// snakeField is a top-level spec field as the role receives it.
type snakeField struct {
	Field, Snake string
	// Lossy marks names whose conversion cannot be reversed (runs of
	// capitals or digits).
	Lossy bool
	// Reserved marks names Ansible keeps for itself (tags, name, vars ...):
	// the role must read them from the whole object.
	Reserved bool
}

// ansibleReserved are the variable names Ansible reserves for play and task
// keywords (a variable named when reads as the task's condition).
var ansibleReserved = strings.Fields(`False None True action and any_errors_fatal args as assert async await become
become_exe become_flags become_method become_user break changed_when check_mode class collections connection
continue debugger def del delay delegate_facts delegate_to diff elif else environment except failed_when
fact_path finally for force_handlers from gather_facts gather_subset gather_timeout global handlers hosts if
ignore_errors ignore_unreachable import in is lambda listen local_action loop loop_control max_fail_percentage
module_defaults name no_log nonlocal not notify or order pass poll port post_tasks pre_tasks raise register
remote_user retries return roles run_once serial strategy tags tasks throttle timeout try until vars
vars_files vars_prompt when while with yield`)

// CRVar is the variable holding the whole object in the Ansible Operator:
// _<group with . and - as _>_<kind in lower case>.
func CRVar(domain string, a api.API) string {
	return objectVar(a.FullGroup(domain), a.Kind)
}

// objectVar is the variable holding a whole object of group and kind (the
// core group's is __<kind>).
func objectVar(group, kind string) string {
	return "_" + strings.NewReplacer(".", "_", "-", "_").Replace(group) + "_" + strings.ToLower(kind)
}

type ansibleAPI struct {
	api.API
	templated
	Project     scaffold.Project
	V           pins.Versions
	FullGroup   string
	CRVar       string
	SamplePath  string
	SnakeFields []snakeField
	// Role is the kind's role (its singular), Var the name its templates
	// see it by; RecordStatus the task file, beside its status file, that
	// writes its status.
	Role, Var, RecordStatus string
	// Playbook is the existing playbook the kind runs instead of a role
	// (its playbook option), "" for a role.
	Playbook string
	// PlaybookFile is the kind's playbook's file name, as run-<kind>.yml
	// imports it from beside it.
	PlaybookFile string
}

// Description is the role's, for its meta/main.yml.
func (a ansibleAPI) Description() string {
	return fmt.Sprintf("Reconciles %s (%s/%s)", a.Kind, a.FullGroup, a.Version)
}

// ansibleWatch is the template data of a watch of an existing kind: its role,
// whose handle.yml is the user's, its local playbook and its test.
type ansibleWatch struct {
	scaffold.WatchIn
	Project scaffold.Project
	// Role is the role's name, a valid Ansible role name.
	Role string
	// ObjVar is the variable holding the whole object, as the operator
	// passes it (_<group>_<kind>).
	ObjVar string
	Reason string
	// FixtureYAML is an object the watch sees, indented as the test's
	// variable; Message is what the starter handle.yml says of it.
	FixtureYAML, Message string
}

// Description is the role's, for its meta/main.yml.
func (w ansibleWatch) Description() string {
	return fmt.Sprintf("Handles %s (%s) %s", w.Target.Kind, w.Target.APIVersion, w.Where)
}

func newAnsibleWatch(p scaffold.Project, w scaffold.Watch) (ansibleWatch, error) {
	aw := ansibleWatch{WatchIn: p.WatchIn(w), Project: p, Role: "watch_" + w.Ident(),
		ObjVar: objectVar(w.Target.Group(), w.Target.Kind), Reason: render.WatchHandledReason}
	obj := render.WatchStarterObject(w)
	b, err := yamltext.Marshal(obj)
	if err != nil {
		return aw, err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		lines[i] = "      " + l
	}
	aw.FixtureYAML, aw.Message = strings.Join(lines, "\n"), scaffold.WatchMessage(obj)
	return aw, nil
}

func ansibleFiles(p scaffold.Project, t *machinery.Tree) error {
	d := struct {
		Project scaffold.Project
		V       pins.Versions
		APIs    []ansibleAPI
		// CreateOnceKinds are the owned kinds created once, as a YAML list.
		CreateOnceKinds string
		// Lease is the Deployment's leader-election lease.
		Lease scaffold.Lease
	}{Project: p, V: p.Versions, Lease: render.DefaultLease()}
	createOnce := []string{}
	for _, a := range p.APIs {
		aa := ansibleAPI{API: a, templated: newTemplated(a), Project: p, V: p.Versions, FullGroup: a.FullGroup(p.Domain),
			CRVar: CRVar(p.Domain, a), SamplePath: render.SamplePath(p, a), Playbook: playbookOf(a), PlaybookFile: path.Base(playbookOf(a)),
			Role: a.Singular(), Var: jinjaVar(a.Singular()), RecordStatus: "record-status.yml"}
		if aa.Playbook != "" {
			aa.RecordStatus = "record-status-" + a.Singular() + ".yml"
		}
		for _, c := range aa.CreatedOnce() {
			if !slices.Contains(createOnce, c.Kind) {
				createOnce = append(createOnce, c.Kind)
			}
		}
		for _, node := range api.GroupFields(a.Fields) {
			snake := SnakeCase(node.Name)
			lossy := false
			for i := 1; i < len(node.Name); i++ {
				prev, cur := rune(node.Name[i-1]), rune(node.Name[i])
				lossy = lossy || (unicode.IsUpper(prev) && unicode.IsUpper(cur)) || unicode.IsDigit(cur)
			}
			aa.SnakeFields = append(aa.SnakeFields, snakeField{Field: node.Name, Snake: snake, Lossy: lossy,
				Reserved: slices.Contains(ansibleReserved, snake)})
		}
		d.APIs = append(d.APIs, aa)
	}
	b, err := json.Marshal(createOnce)
	if err != nil {
		return err
	}
	d.CreateOnceKinds = string(b)
	// Jinja2 is full of {{ and }}: opctl's actions go between [[ and ]].
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates")).Delims("[[", "]]")
	r.Files(d, projectFiles...)
	if len(p.APIs) > 0 {
		r.Files(d, conformanceFiles...)
	}
	if r.Err() != nil {
		return r.Err()
	}
	var watches []ansibleWatch
	for _, w := range p.Watches {
		aw, err := newAnsibleWatch(p, w)
		if err != nil {
			return err
		}
		r.Files(aw, watchFiles...)
		watches = append(watches, aw)
	}
	if err := addAnsibleData(p, d.APIs, watches, t); err != nil {
		return err
	}
	for _, a := range d.APIs {
		if a.Playbook != "" {
			// The kind runs the user's playbook: opctl writes the playbooks
			// around it, not a role.
			r.File(playbookFor(a.API, "run"), "playbooks/run.yml.tmpl", machinery.Generated, a)
			r.File(playbookFor(a.API, "local"), "playbooks/local-playbook.yml.tmpl", machinery.Generated, a)
			r.File(playbookDir+"/tasks/status-"+a.Singular()+".yml", "role/tasks/status.yml.tmpl", machinery.Generated, a)
			r.File(playbookDir+"/tasks/"+a.RecordStatus, "role/tasks/record-status.yml.tmpl", machinery.Generated, a)
			continue
		}
		role := "roles/" + a.Singular() + "/"
		r.Files(a, roleFiles...)
		if a.Workloads {
			r.Files(a, machinery.UserFile("roles/{{.Role}}/templates/pod.yaml.j2", "role/templates/pod.yaml.j2.tmpl"))
		}
		for _, c := range a.Children {
			r.File(role+"templates/"+c.Template, "role/templates/"+c.Shape()+".yaml.j2.tmpl", machinery.UserOwned, ansibleChildData{a, c})
		}
		if len(a.Status) > 0 {
			r.Files(a, machinery.UserFile("roles/{{.Role}}/templates/status.yaml.j2", "role/templates/status.yaml.j2.tmpl"))
		}
		r.Files(a, roleStarterFiles...)
	}
	return r.Err()
}

// The project's files, those it has once it has kinds, and each watch's
// and each kind's role.
var (
	projectFiles = []machinery.Template{
		machinery.UserFile("ansible.cfg", "ansible.cfg.tmpl"),
		machinery.UserFile(".ansible-lint", "ansible-lint.tmpl"),
		machinery.UserFile("Dockerfile", "Dockerfile.tmpl"),
		machinery.UserFile("Makefile", "Makefile.tmpl"),
		machinery.UserFile("README.md", "README.md.tmpl"),
		machinery.UserFile(".gitignore", "gitignore.tmpl"),
		machinery.UserFile("molecule/default/molecule.yml", "molecule/molecule.yml.tmpl"),
		machinery.GeneratedFile("molecule/default/converge.yml", "molecule/converge.yml.tmpl"),
		machinery.GeneratedFile("molecule/default/verify.yml", "molecule/verify.yml.tmpl"),
	}
	conformanceFiles = []machinery.Template{
		machinery.GeneratedFile("tests/test-conformance.yml", "test-conformance.yml.tmpl"),
		machinery.GeneratedFile("tests/conformance-case.yml", "conformance-case.yml.tmpl"),
	}
	watchFiles = []machinery.Template{
		machinery.GeneratedFile("roles/{{.Role}}/tasks/main.yml", "watch/main.yml.tmpl"),
		machinery.UserFile("roles/{{.Role}}/tasks/handle.yml", "watch/handle.yml.tmpl"),
		machinery.UserFile("roles/{{.Role}}/meta/main.yml", "role/meta/main.yml.tmpl"),
		machinery.UserFile("playbooks/local-{{.Role}}.yml", "watch/local.yml.tmpl"),
		machinery.UserFile("tests/test-{{.Role}}.yml", "watch/test.yml.tmpl"),
	}
	roleFiles = []machinery.Template{
		machinery.UserFile("roles/{{.Role}}/tasks/main.yml", "role/tasks/main.yml.tmpl"),
		machinery.GeneratedFile("roles/{{.Role}}/tasks/children.yml", "role/tasks/children.yml.tmpl"),
		machinery.GeneratedFile("roles/{{.Role}}/tasks/render.yml", "role/tasks/render.yml.tmpl"),
		machinery.GeneratedFile("roles/{{.Role}}/tasks/status.yml", "role/tasks/status.yml.tmpl"),
		machinery.GeneratedFile("roles/{{.Role}}/tasks/record-status.yml", "role/tasks/record-status.yml.tmpl"),
		machinery.GeneratedFile("roles/{{.Role}}/vars/main.yml", "role/vars/main.yml.tmpl"),
	}
	roleStarterFiles = []machinery.Template{
		machinery.UserFile("roles/{{.Role}}/meta/main.yml", "role/meta/main.yml.tmpl"),
		machinery.UserFile("roles/{{.Role}}/README.md", "role/README.md.tmpl"),
		machinery.UserFile("playbooks/local-{{.Role}}.yml", "playbooks/local.yml.tmpl"),
		machinery.UserFile("tests/test-{{.Role}}.yml", "tests.yml.tmpl"),
	}
)

// watch is one entry of the Ansible Operator's watches.yaml.
type watch struct {
	Version             string `json:"version"`
	Group               string `json:"group"`
	Kind                string `json:"kind"`
	Role                string `json:"role,omitempty"`
	Playbook            string `json:"playbook,omitempty"`
	ManageStatus        bool   `json:"manageStatus"`
	SnakeCaseParameters bool   `json:"snakeCaseParameters"`
	ReconcilePeriod     string `json:"reconcilePeriod"`
	// WatchDependentResources is off for a watch of an existing kind: its
	// role creates nothing but Events, which the operator must not watch.
	WatchDependentResources *bool                 `json:"watchDependentResources,omitempty"`
	Selector                *metav1.LabelSelector `json:"selector,omitempty"`
	// Blacklist sends the role's reads of these kinds to the API server
	// instead of the operator's cache, which would list and watch them all.
	Blacklist []blacklisted `json:"blacklist,omitempty"`
}

type blacklisted struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type galaxyRequirement struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// addAnsibleData adds the structured files: watches.yaml,
// requirements.yml, each role's defaults and the children the tests expect.
func addAnsibleData(p scaffold.Project, apis []ansibleAPI, existing []ansibleWatch, t *machinery.Tree) error {
	var watches []watch
	for _, a := range apis {
		w := watch{Version: a.Version, Group: a.FullGroup, Kind: a.Kind, Role: a.Singular(),
			ManageStatus: false, SnakeCaseParameters: true, ReconcilePeriod: fmt.Sprintf("%ds", p.ResyncSeconds)}
		if a.Playbook != "" {
			// Relative to the operator's working directory, where the image
			// copies playbooks/.
			w.Role, w.Playbook = "", playbookFor(a.API, "run")
		}
		watches = append(watches, w)
	}
	for _, aw := range existing {
		off := false
		w := watch{Version: aw.Target.Version(), Group: aw.Target.Group(), Kind: aw.Target.Kind, Role: aw.Role,
			ManageStatus: false, SnakeCaseParameters: false, ReconcilePeriod: fmt.Sprintf("%ds", p.ResyncSeconds),
			WatchDependentResources: &off, Blacklist: []blacklisted{{Group: "", Version: "v1", Kind: "Event"}}}
		if len(aw.Selector) > 0 {
			w.Selector = &metav1.LabelSelector{MatchLabels: aw.Selector}
		}
		watches = append(watches, w)
	}
	if watches == nil {
		watches = []watch{}
	}
	add := func(path string, v any, owner machinery.Ownership) error {
		b, err := yamltext.Marshal(v)
		if err != nil {
			return err
		}
		header := "---\n"
		if owner == machinery.Generated {
			header += "# " + render.GeneratedHeader + "\n"
		}
		return t.Add(machinery.File{Path: path, Content: append([]byte(header), b...), Owner: owner})
	}
	if err := add("watches.yaml", watches, machinery.Generated); err != nil {
		return err
	}
	if err := add("requirements.yml", map[string]any{"collections": []galaxyRequirement{
		{Name: "kubernetes.core", Version: p.Versions.KubernetesCoreCollection},
		{Name: "operator_sdk.util", Version: p.Versions.OperatorSDKUtilCollection},
	}}, machinery.UserOwned); err != nil {
		return err
	}
	for _, a := range apis {
		if a.Playbook != "" {
			continue // no role: the user's playbook
		}
		defaults := map[string]any{}
		for _, node := range api.GroupFields(a.Fields) {
			if slices.Contains(ansibleReserved, SnakeCase(node.Name)) {
				continue
			}
			var v any
			switch {
			case node.Field != nil && node.Field.Default != nil:
				v = api.TypedDefault(*node.Field)
			case !node.Leaf():
				v = map[string]any{}
			}
			defaults[SnakeCase(node.Name)] = v
		}
		if err := t.Add(machinery.File{Path: "roles/" + a.Singular() + "/defaults/main.yml", Content: flowYAML(defaults), Owner: machinery.UserOwned}); err != nil {
			return err
		}
	}
	return nil
}

// flowYAML writes one key per line with its value in JSON, which YAML reads
// as flow style, but for lists of strings, one item per line: role defaults
// stay short and lint-clean (no line over ansible-lint's 160 columns).
func flowYAML(m map[string]any) []byte {
	out := []byte("---\n")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		var v []byte
		if list, ok := m[k].([]string); ok {
			v = []byte("[]")
			if len(list) > 0 {
				v = nil
			}
			for _, s := range list {
				b, _ := json.Marshal(s)
				v = append(v, "\n  - "+string(b)...)
			}
		} else {
			v, _ = json.Marshal(m[k])
		}
		if v[0] != '\n' {
			v = append([]byte(" "), v...)
		}
		out = append(out, fmt.Sprintf("%s:%s\n", k, v)...)
	}
	return out
}

// ansibleChildData is the template data of one child's template: its
// kind's and its own.
type ansibleChildData struct {
	ansibleAPI
	Child ansibleChild
}

// jinjaVar is the name a kind's templates see it by: its singular, unless
// Jinja2 or the templates take that name.
func jinjaVar(singular string) string {
	if slices.Contains(jinjaReserved, singular) {
		return singular + "_object"
	}
	return singular
}

// jinjaReserved are Jinja2's keywords and the other names a child
// template sees.
var jinjaReserved = []string{"and", "as", "block", "else", "endfor", "endif", "extends", "false", "for", "from",
	"if", "import", "in", "include", "is", "macro", "none", "not", "or", "recursive", "set", "true", "with",
	"spec", "labels", "child_labels", "child_image", "command", "restart_policy", "env", "name", "value", "minimum",
	"loop", "lookup", "query", "range", "dict", "namespace", "self", "super", "varargs", "kwargs", "caller"}
