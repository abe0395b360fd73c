package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/pins"
)

func TestIsSubset(t *testing.T) {
	env := func(names ...string) []any {
		var out []any
		for _, n := range names {
			out = append(out, map[string]any{"name": n, "value": "v" + n})
		}
		return out
	}
	tests := []struct {
		name            string
		desired, actual any
		want            bool
	}{
		{"fields the server adds do not count", map[string]any{"a": "1"}, map[string]any{"a": "1", "resourceVersion": "7"}, true},
		{"a changed value", map[string]any{"a": "1"}, map[string]any{"a": "2"}, false},
		{"a missing key", map[string]any{"a": "1"}, map[string]any{}, false},
		{"an empty map or list is absent", map[string]any{"data": map[string]any{}, "env": []any{}}, map[string]any{}, true},
		{"an empty map is not another value", map[string]any{"data": map[string]any{}}, map[string]any{"data": "x"}, false},
		{"name-keyed list in another order", env("A", "B", "C"), env("C", "A", "B"), true},
		{"name-keyed list with an item too many", env("A", "B"), env("A", "B", "C"), false},
		{"name-keyed list with another item", env("A", "B"), env("A", "C"), false},
		{"name-keyed item changed", env("A"), []any{map[string]any{"name": "A", "value": "other"}}, false},
		{"plain list in another order", []any{"a", "b"}, []any{"b", "a"}, false},
		{"plain list equal", []any{"a", "b"}, []any{"a", "b"}, true},
		{"numbers as JSON", map[string]any{"n": int64(1)}, map[string]any{"n": float64(1)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, isSubset(tt.desired, tt.actual))
		})
	}
}

// The one encoding of spec values into children, which every style
// matches byte for byte (the conformance case tricky-values holds them).
func TestOutdated(t *testing.T) {
	child := func(kind, image string, extra map[string]any) map[string]any {
		container := map[string]any{"name": "main", "image": image}
		for k, v := range extra {
			container[k] = v
		}
		return map[string]any{"kind": kind, "metadata": map[string]any{"name": "x-" + strings.ToLower(kind)},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{container}}}}}
	}
	defaulted := map[string]any{"imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log"}
	tests := []struct {
		name              string
		desired, observed []map[string]any
		want              []string
	}{
		{"a Job as made, with the API server's defaults", []map[string]any{child("Job", "a", nil)}, []map[string]any{child("Job", "a", defaulted)}, nil},
		{"a Job made from an earlier spec", []map[string]any{child("Job", "b", nil)}, []map[string]any{child("Job", "a", defaulted)}, []string{"Job x-job"}},
		{"a Job not made yet", []map[string]any{child("Job", "b", nil)}, nil, nil},
		{"a Deployment, which changes", []map[string]any{child("Deployment", "b", nil)}, []map[string]any{child("Deployment", "a", nil)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Outdated(tt.desired, tt.observed))
		})
	}
}

func TestFieldText(t *testing.T) {
	for _, tc := range []struct {
		value any
		want  string
	}{
		{"a&b <c> café \"q\"\n", "a&b <c> café \"q\"\n"},
		{true, "true"},
		{float64(3), "3"},
		{int64(-7), "-7"},
		{[]any{"a&b<c>"}, `["a&b<c>"]`},
		{[]any{"café", "日本"}, `["café","日本"]`},
		{[]any{`say "hi"`, `back\slash`}, `["say \"hi\"","back\\slash"]`},
		{[]any{"one\ntwo", "tab\there"}, `["one\ntwo","tab\there"]`},
		{[]any{}, `[]`},
		{map[string]any{"b": "1", "app.kubernetes.io/part-of": "x", "a": "<"}, `{"a":"<","app.kubernetes.io/part-of":"x","b":"1"}`},
	} {
		assert.Equal(t, tc.want, FieldText(tc.value), "%#v", tc.value)
	}
}

// microservice is a kind with the conventions' fields, owning owns.
func microservice(t *testing.T, owns ...string) api.API {
	return api.API{Group: "apps", Version: "v1", Kind: "Microservice", Plural: "microservices", Owns: owns,
		Fields: apitest.MustFields(t, "image:string", "port:int32", "replicas:int32", "minReplicas:int32", "maxReplicas:int32",
			"host:string", "schedule:string", "env:map[string]string", "resources.requests:map[string]string",
			"resources.limits:map[string]string", "tier:string", "db.port:int32", "tags:[]string")}
}

// Each field set is a key of the ConfigMap's (and, base64, the Secret's)
// data under its name, as text; a field not set is no key.
func TestChildrenData(t *testing.T) {
	p := scaffold.Project{Name: "shop", Domain: "example.com", Versions: pins.DefaultVersions()}
	a := microservice(t, "ConfigMap", "Secret")
	children := cartChildren(p, a, map[string]any{"tier": "gold", "db": map[string]any{"port": float64(5432)},
		"tags": []any{"a", "b"}, "env": map[string]any{"app.kubernetes.io/part-of": "shop"}, "port": float64(80)})
	want := map[string]any{"tier": "gold", "db.port": "5432", "tags": `["a","b"]`,
		"env": `{"app.kubernetes.io/part-of":"shop"}`, "port": "80"}
	assert.Equal(t, want, children["ConfigMap"]["data"])
	secret := children["Secret"]["data"].(map[string]any)
	assert.Equal(t, "Z29sZA==", secret["tier"])
	assert.Len(t, secret, len(want))
	assert.Equal(t, map[string]any{}, cartChildren(p, a, map[string]any{})["ConfigMap"]["data"])
}

// The well-known spec fields, by convention: image runs the workloads with
// its own entrypoint, port is the container's and the Service's port, each
// as the object sets it; a kind without the field, or an object that does
// not set it, keeps the starter's.
func TestChildrenConventions(t *testing.T) {
	p := scaffold.Project{Name: "shop", Domain: "example.com", Versions: pins.DefaultVersions()}
	child := pins.DefaultVersions().ChildImage
	for _, tc := range []struct {
		name                   string
		a                      api.API
		spec                   map[string]any
		image                  string
		command                bool
		containerPort, svcPort int64
	}{
		{"neither", microservice(t, "Deployment", "Service"), map[string]any{}, child, true, 8080, 80},
		{"both", microservice(t, "Deployment", "Service"), map[string]any{"image": "shop/cart:1.2", "port": float64(9090)}, "shop/cart:1.2", false, 9090, 9090},
		{"a set value as it is", microservice(t, "Deployment", "Service"), map[string]any{"port": float64(0)}, child, true, 0, 0},
		{"nested port is no convention", microservice(t, "Deployment", "Service"), map[string]any{"db": map[string]any{"port": float64(5432)}}, child, true, 8080, 80},
		{"a kind without the fields", api.API{Group: "apps", Version: "v1", Kind: "Microservice", Plural: "microservices",
			Owns: []string{"Deployment", "Service"}, Fields: apitest.MustFields(t, "image:int32", "tier:string")},
			map[string]any{"image": float64(3), "port": float64(9090)}, child, true, 8080, 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			children := cartChildren(p, tc.a, tc.spec)
			container := children["Deployment"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			assert.Equal(t, tc.image, container["image"])
			_, hasCommand := container["command"]
			assert.Equal(t, tc.command, hasCommand, "command")
			assert.Equal(t, []any{map[string]any{"name": "http", "containerPort": tc.containerPort, "protocol": "TCP"}}, container["ports"])
			svcPorts := children["Service"]["spec"].(map[string]any)["ports"].([]any)
			assert.Equal(t, map[string]any{"name": "http", "protocol": "TCP", "port": tc.svcPort, "targetPort": tc.containerPort}, svcPorts[0])
		})
	}
}

// The kinds that refer to others: the autoscaler scales the workload (which
// then leaves its replicas to it) between spec.minReplicas or replicas and
// spec.maxReplicas; the Ingress and the ServiceMonitor find the Service.
func TestChildrenReferringToOthers(t *testing.T) {
	p := scaffold.Project{Name: "shop", Domain: "example.com", Versions: pins.DefaultVersions()}
	for _, tc := range []struct {
		name     string
		owns     []string
		spec     map[string]any
		target   string
		min, max int64
	}{
		{"no counts", []string{"Deployment", "HorizontalPodAutoscaler"}, map[string]any{}, "Deployment", 1, 1},
		{"replicas is the minimum", []string{"Deployment", "HorizontalPodAutoscaler"}, map[string]any{"replicas": float64(2), "maxReplicas": float64(5)}, "Deployment", 2, 5},
		{"minReplicas wins", []string{"Deployment", "HorizontalPodAutoscaler"}, map[string]any{"replicas": float64(2), "minReplicas": float64(3), "maxReplicas": float64(6)}, "Deployment", 3, 6},
		{"maximum below minimum", []string{"Deployment", "HorizontalPodAutoscaler"}, map[string]any{"minReplicas": float64(4), "maxReplicas": float64(2)}, "Deployment", 4, 4},
		{"a StatefulSet alone", []string{"StatefulSet", "HorizontalPodAutoscaler"}, map[string]any{"maxReplicas": float64(3)}, "StatefulSet", 1, 3},
		{"the Deployment before the StatefulSet", []string{"Deployment", "StatefulSet", "HorizontalPodAutoscaler"}, map[string]any{}, "Deployment", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			children := cartChildren(p, microservice(t, tc.owns...), tc.spec)
			hpa := children["HorizontalPodAutoscaler"]["spec"].(map[string]any)
			assert.Equal(t, map[string]any{"apiVersion": "apps/v1", "kind": tc.target, "name": "cart-" + strings.ToLower(tc.target)}, hpa["scaleTargetRef"])
			assert.Equal(t, tc.min, hpa["minReplicas"])
			assert.Equal(t, tc.max, hpa["maxReplicas"])
			for _, kind := range []string{"Deployment", "StatefulSet"} {
				if w, ok := children[kind]; ok {
					_, has := w["spec"].(map[string]any)["replicas"]
					assert.Equal(t, kind != tc.target, has, "%s keeps its replicas", kind)
				}
			}
		})
	}

	a := microservice(t, "Service", "Ingress", "CronJob", "ServiceMonitor")
	for _, tc := range []struct {
		name           string
		spec           map[string]any
		host, schedule any
	}{
		{"defaults", map[string]any{}, nil, "@hourly"},
		{"given", map[string]any{"host": "shop.example.com", "schedule": "*/5 * * * *"}, "shop.example.com", "*/5 * * * *"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			children := cartChildren(p, a, tc.spec)
			rule := children["Ingress"]["spec"].(map[string]any)["rules"].([]any)[0].(map[string]any)
			assert.Equal(t, tc.host, rule["host"])
			backend := rule["http"].(map[string]any)["paths"].([]any)[0].(map[string]any)["backend"]
			assert.Equal(t, map[string]any{"service": map[string]any{"name": "cart-service", "port": map[string]any{"name": "http"}}}, backend)
			assert.Equal(t, tc.schedule, children["CronJob"]["spec"].(map[string]any)["schedule"])
			monitor := children["ServiceMonitor"]["spec"].(map[string]any)
			assert.Equal(t, children["Service"]["metadata"].(map[string]any)["labels"], monitor["selector"].(map[string]any)["matchLabels"])
			assert.Equal(t, []any{map[string]any{"port": "http"}}, monitor["endpoints"])
		})
	}
}

// cartChildren are the children of a Microservice named cart with spec,
// by kind.
func cartChildren(p scaffold.Project, a api.API, spec map[string]any) map[any]map[string]any {
	cr := map[string]any{"apiVersion": "apps.example.com/v1", "kind": "Microservice",
		"metadata": map[string]any{"name": "cart", "namespace": "shop", "uid": "u"}, "spec": spec}
	children := map[any]map[string]any{}
	for _, c := range DesiredChildren(p, a, cr) {
		children[c["kind"]] = c
	}
	return children
}

// The workloads' environment: a SPEC_ variable for each field set but the
// container's own image, env and resources, and each entry of spec.env,
// which wins over a SPEC_ variable of the same name; sorted by name.
func TestChildrenEnv(t *testing.T) {
	p := scaffold.Project{Name: "shop", Domain: "example.com", Versions: pins.DefaultVersions()}
	spec := map[string]any{"image": "x", "port": float64(80), "tier": "gold", "db": map[string]any{"port": float64(5432)},
		"tags": []any{"a"}, "resources": map[string]any{"requests": map[string]any{"cpu": "1"}},
		"env": map[string]any{"LOG_LEVEL": "debug", "log-level": "x", "SPEC_TIER": "mine"}}
	container := cartChildren(p, microservice(t, "Deployment"), spec)["Deployment"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{
		map[string]any{"name": "LOG_LEVEL", "value": "debug"},
		map[string]any{"name": "SPEC_DB_PORT", "value": "5432"},
		map[string]any{"name": "SPEC_PORT", "value": "80"},
		map[string]any{"name": "SPEC_TAGS", "value": `["a"]`},
		map[string]any{"name": "SPEC_TIER", "value": "mine"},
		map[string]any{"name": "log-level", "value": "x"},
	}, container["env"])
}

// spec.resources' requests and limits are the workloads' container
// resources as written; the API server's canonical form of them (1 for
// 1000m) is no drift.
func TestChildrenResources(t *testing.T) {
	p := scaffold.Project{Name: "shop", Domain: "example.com", Versions: pins.DefaultVersions()}
	a := microservice(t, "Deployment")
	spec := map[string]any{"resources": map[string]any{
		"requests": map[string]any{"cpu": "1000m", "memory": "0.5Gi"},
		"limits":   map[string]any{"memory": "1Gi"},
	}}
	container := cartChildren(p, a, spec)["Deployment"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"requests": map[string]any{"cpu": "1000m", "memory": "0.5Gi"}, "limits": map[string]any{"memory": "1Gi"}}, container["resources"])
	_, has := cartChildren(p, a, map[string]any{})["Deployment"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["resources"]
	assert.False(t, has, "no resources without spec.resources")

	for _, tc := range []struct {
		name    string
		actual  any
		matches bool
	}{
		{"as written", map[string]any{"requests": map[string]any{"cpu": "1000m", "memory": "0.5Gi"}}, true},
		{"canonical", map[string]any{"requests": map[string]any{"cpu": "1", "memory": "512Mi"}, "limits": map[string]any{"cpu": "1"}}, true},
		{"another value", map[string]any{"requests": map[string]any{"cpu": "2", "memory": "512Mi"}}, false},
		{"missing", map[string]any{"requests": map[string]any{"cpu": "1"}}, false},
		{"none", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := map[string]any{"resources": map[string]any{"requests": map[string]any{"cpu": "1000m", "memory": "0.5Gi"}}}
			assert.Equal(t, tc.matches, isSubset(desired, map[string]any{"resources": tc.actual}))
		})
	}
}

// A child carries the resource's own labels besides its three, which win;
// the workloads select their pods by the three alone.
func TestChildrenLabels(t *testing.T) {
	p := scaffold.Project{Name: "shop", Domain: "example.com", Versions: pins.DefaultVersions()}
	cr := map[string]any{"apiVersion": "apps.example.com/v1", "kind": "Microservice",
		"metadata": map[string]any{"name": "cart", "namespace": "shop", "uid": "u",
			"labels": map[string]any{"team": "payments", "app.kubernetes.io/name": "mine"}}, "spec": map[string]any{}}
	for _, c := range DesiredChildren(p, microservice(t, "Deployment"), cr) {
		assert.Equal(t, map[string]any{"team": "payments", "app.kubernetes.io/name": "microservice",
			"app.kubernetes.io/instance": "cart", "app.kubernetes.io/managed-by": "shop"}, c["metadata"].(map[string]any)["labels"])
		selector := c["spec"].(map[string]any)["selector"].(map[string]any)["matchLabels"]
		assert.Equal(t, map[string]any{"app.kubernetes.io/name": "microservice",
			"app.kubernetes.io/instance": "cart", "app.kubernetes.io/managed-by": "shop"}, selector)
	}
}
