// Package hookserver is the part both Metacontroller styles share: the
// Python hook server, its image and Makefile, the Service in front of it,
// and the webhook and resource rules of Metacontroller's controllers.
package hookserver

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles/python"
)

//go:embed templates
var files embed.FS

// port is where the Python hook server listens.
const port = 8080

// Command runs the hook server.
func Command(p scaffold.Project) []string {
	return []string{"python", "-m", python.Package(p) + ".server"}
}

// ScaleAdvice is what lets Metacontroller keep up with many objects, for
// decide (checklist.Profile.ScaleAdvice): its own client's rate, which the
// project installs it with (ClientRate) and a team may raise further.
const ScaleAdvice = "raise the Metacontroller install's client rate, --client-go-qps and --client-go-burst (5 and 10 by default, 50 and 100 as the project installs it), as the generated README shows"

// ClientRate are the flags of the client rate the project installs
// Metacontroller with: it makes every API call of the project, and at its
// defaults (5 requests a second, bursts of 10) 1000 objects of 11 requests
// each did not converge in 10 minutes (docs/runtime-costs.md).
func ClientRate() []string { return []string{"--client-go-qps=50", "--client-go-burst=100"} }

// RatePatch is the JSON patch that adds ClientRate to the arguments of
// Metacontroller's StatefulSet as its release installs it (kubectl apply of
// the release again drops them, and the patch after it adds them again).
func RatePatch() string {
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value string `json:"value"`
	}
	var ops []op
	for _, flag := range ClientRate() {
		ops = append(ops, op{"add", "/spec/template/spec/containers/0/args/-", flag})
	}
	b, err := json.Marshal(ops)
	if err != nil {
		panic(err) // strings always marshal
	}
	return string(b)
}

// ClientRateFlags are ClientRate as a command line shows them.
func (Data) ClientRateFlags() string { return strings.Join(ClientRate(), " ") }

// RatePatch is RatePatch, for templates.
func (Data) RatePatch() string { return RatePatch() }

// Partials are the templates both Metacontroller styles' READMEs share.
func Partials() fs.FS { return machinery.TemplateDir(files, "templates/partials") }

// Prerequisite is Metacontroller itself, installed once per cluster.
func Prerequisite() *api.Prerequisite {
	return &api.Prerequisite{CRD: "compositecontrollers.metacontroller.k8s.io", Install: "install Metacontroller first: make install-metacontroller",
		// What make install-metacontroller applies, then its StatefulSet
		// running.
		Setup: func(v pins.Versions) string {
			return `"$KUBECTL" apply -k "https://github.com/metacontroller/metacontroller/manifests/production?ref=` + v.Metacontroller + `"
"$KUBECTL" -n metacontroller patch statefulset metacontroller --type=json -p '` + RatePatch() + `'
"$KUBECTL" -n metacontroller rollout status statefulset/metacontroller --timeout="$TIMEOUT"`
		}}
}

// CI tests the hooks with pytest and pyflakes.
func CI(p scaffold.Project) scaffold.CI {
	return scaffold.CI{Setup: scaffold.PythonCI(p, "pytest pyflakes"), Targets: []string{"test", "lint"},
		DevImage: p.Versions.DevContainerPython}
}

// CannotScopeNamespace is why a project behind Metacontroller cannot see
// one namespace alone: Metacontroller, installed once for the cluster,
// watches its controllers' resources in every namespace (it has no flag to
// narrow them), and the project runs only its hook.
const CannotScopeNamespace = "Metacontroller, installed once for the cluster, watches every namespace (it has no flag to watch one), and the project runs only its hook"

// Runtime is how the hook server runs. Metacontroller makes every API call
// with its own account: the hook server needs no RBAC at all.
func Runtime(p scaffold.Project) scaffold.Runtime {
	return scaffold.Runtime{
		Command:       Command(p),
		Env:           []corev1.EnvVar{{Name: "PORT", Value: fmt.Sprint(port)}},
		Ports:         []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}},
		HealthPort:    port,
		LivenessPath:  "/healthz",
		ReadinessPath: "/healthz",
		// Each hook answers from the request alone; Metacontroller calls it
		// through a Service.
		Stateless: true,
	}
}

// ResourceRule names a resource in a Metacontroller controller.
type ResourceRule struct {
	APIVersion string `json:"apiVersion"`
	Resource   string `json:"resource"`
}

// ChildResourceRule is a child (or attachment) resource and how it is updated.
type ChildResourceRule struct {
	ResourceRule   `json:",inline"`
	UpdateStrategy UpdateStrategy `json:"updateStrategy"`
}

// UpdateStrategy of a child resource.
type UpdateStrategy struct {
	Method string `json:"method"`
}

// Child is the rule for an owned kind: InPlace, since the default,
// OnDelete, never updates a child; OnDelete for a kind whose spec cannot
// change once created (a Job), which the API server would refuse to update.
func Child(c api.ChildKind) ChildResourceRule {
	method := "InPlace"
	if !c.Mutable {
		method = "OnDelete"
	}
	return ChildResourceRule{ResourceRule: ResourceRule{APIVersion: c.APIVersion(), Resource: c.Resource}, UpdateStrategy: UpdateStrategy{Method: method}}
}

// Hooks of a controller: opctl writes the sync hook.
type Hooks struct {
	Sync HookRef `json:"sync"`
}

// HookRef points at a webhook.
type HookRef struct {
	Webhook Webhook `json:"webhook"`
}

// Webhook is a hook's URL and timeout.
type Webhook struct {
	URL     string `json:"url"`
	Timeout string `json:"timeout"`
}

// SyncHook points Metacontroller at /sync/<route> of the hook Service, by
// the name kustomize gives it (kustomize does not rewrite URLs).
func SyncHook(p scaffold.Project, route string) Hooks {
	return Hooks{Sync: HookRef{Webhook: Webhook{URL: fmt.Sprintf("http://%s-hook.%s/sync/%s", p.Name, p.Namespace(), route), Timeout: "10s"}}}
}

// Service fronts the hook server; kustomize names it <project>-hook.
func Service(p scaffold.Project) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "hook", Labels: render.CommonLabels(p)},
		Spec: corev1.ServiceSpec{
			Selector: render.ManagerLabels(p),
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(port), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// ServicePath is where the Service manifest goes.
const ServicePath = "config/manager/service.yaml"

// Data is the template data of a hook-server project.
type Data struct {
	python.Data
	// Decorator: the hooks decorate existing kinds.
	Decorator bool
}

// AddFiles adds the hook server and its test, the image that runs it, the
// Makefile and .gitignore.
func AddFiles(t *machinery.Tree, d Data) error {
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"))
	r.Files(d,
		machinery.UserFile("Dockerfile", "Dockerfile.tmpl"),
		machinery.UserFile("Makefile", "Makefile.tmpl"),
		machinery.UserFile(".gitignore", "gitignore.tmpl"),
		machinery.UserFile("{{.Package}}/server.py", "server.py.tmpl"),
		machinery.UserFile("tests/test_server.py", "test_server.py.tmpl"),
	)
	return r.Err()
}
