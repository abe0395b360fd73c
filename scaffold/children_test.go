package scaffold

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
// matches byte for byte (their generated tests read the same table from
// tests/spec-values.json).
func TestFlattenSpecTrickyValues(t *testing.T) {
	assert.Equal(t, map[string]string{
		"html":               `["a&b<c>"]`,
		"utf8":               `["café","日本"]`,
		"quotes":             `["say \"hi\"","back\\slash"]`,
		"lines":              `["one\ntwo","tab\there"]`,
		"empty":              `[]`,
		"text":               "a&b <c> café \"q\"\n",
		"flag":               "true",
		"count":              "3",
		"nested.k":           "v",
		"nested.deeper.list": `["x"]`,
	}, flattenSpec(TrickySpec()))
}

// The well-known spec fields, by convention: image runs the workloads with
// its own entrypoint, port is the container's and the Service's port;
// anything else about them keeps the starter's.
func TestChildrenConventions(t *testing.T) {
	p := Project{Name: "shop", Domain: "example.com", Versions: DefaultVersions()}
	a := API{Group: "apps", Version: "v1", Kind: "Microservice", Plural: "microservices", Owns: []string{"Deployment", "Service"}}
	child := DefaultVersions().ChildImage
	for _, tc := range []struct {
		name                   string
		spec                   map[string]any
		image                  string
		command                bool
		containerPort, svcPort int64
	}{
		{"neither", map[string]any{}, child, true, 8080, 80},
		{"both", map[string]any{"image": "shop/cart:1.2", "port": float64(9090)}, "shop/cart:1.2", false, 9090, 9090},
		{"empty image", map[string]any{"image": ""}, child, true, 8080, 80},
		{"port as written digits", map[string]any{"port": "0443"}, child, true, 443, 443},
		{"port 0", map[string]any{"port": float64(0)}, child, true, 8080, 80},
		{"port over 65535", map[string]any{"port": float64(70000)}, child, true, 8080, 80},
		{"negative port", map[string]any{"port": float64(-1)}, child, true, 8080, 80},
		{"port with a sign", map[string]any{"port": "+80"}, child, true, 8080, 80},
		{"port not a number", map[string]any{"port": "http"}, child, true, 8080, 80},
		{"nested port is no convention", map[string]any{"db": map[string]any{"port": float64(5432)}}, child, true, 8080, 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			children := cartChildren(p, a, tc.spec)
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
	p := Project{Name: "shop", Domain: "example.com", Versions: DefaultVersions()}
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
		{"zero and negatives are no count", []string{"Deployment", "HorizontalPodAutoscaler"}, map[string]any{"minReplicas": float64(0), "maxReplicas": float64(-3)}, "Deployment", 1, 1},
		{"a StatefulSet alone", []string{"StatefulSet", "HorizontalPodAutoscaler"}, map[string]any{"maxReplicas": float64(3)}, "StatefulSet", 1, 3},
		{"the Deployment before the StatefulSet", []string{"Deployment", "StatefulSet", "HorizontalPodAutoscaler"}, map[string]any{}, "Deployment", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := API{Group: "apps", Version: "v1", Kind: "Microservice", Plural: "microservices", Owns: tc.owns}
			children := cartChildren(p, a, tc.spec)
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

	a := API{Group: "apps", Version: "v1", Kind: "Microservice", Plural: "microservices", Owns: []string{"Service", "Ingress", "CronJob", "ServiceMonitor"}}
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
func cartChildren(p Project, a API, spec map[string]any) map[any]map[string]any {
	cr := map[string]any{"apiVersion": "apps.example.com/v1", "kind": "Microservice",
		"metadata": map[string]any{"name": "cart", "namespace": "shop", "uid": "u"}, "spec": spec}
	children := map[any]map[string]any{}
	for _, c := range DesiredChildren(p, a, cr) {
		children[c["kind"]] = c
	}
	return children
}

// spec.env's keys that are C identifiers, and not SPEC_ variables, are the
// application's environment variables too, after the SPEC_ ones.
func TestChildrenAppEnv(t *testing.T) {
	p := Project{Name: "shop", Domain: "example.com", Versions: DefaultVersions()}
	a := API{Group: "apps", Version: "v1", Kind: "Microservice", Plural: "microservices", Owns: []string{"Deployment"}}
	spec := map[string]any{"env": map[string]any{
		"LOG_LEVEL": "debug", "_x1": "y", "WORKERS": float64(4),
		"1BAD": "no", "SPEC_ENV_X": "no", "with-dash": "no", "nested": map[string]any{"K": "no"}, "": "no"}}
	container := cartChildren(p, a, spec)["Deployment"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	var names []string
	for _, e := range container["env"].([]any) {
		names = append(names, e.(map[string]any)["name"].(string))
	}
	assert.Equal(t, []string{"SPEC_ENV_", "SPEC_ENV_1BAD", "SPEC_ENV_LOG_LEVEL", "SPEC_ENV_SPEC_ENV_X", "SPEC_ENV_WORKERS",
		"SPEC_ENV__X1", "SPEC_ENV_NESTED_K", "SPEC_ENV_WITH-DASH", "LOG_LEVEL", "WORKERS", "_x1"}, names)
}

// spec.resources' requests and limits that are quantities are the
// workloads' container resources as written; the API server's canonical
// form of them (1 for 1000m) is no drift.
func TestChildrenResources(t *testing.T) {
	p := Project{Name: "shop", Domain: "example.com", Versions: DefaultVersions()}
	a := API{Group: "apps", Version: "v1", Kind: "Microservice", Plural: "microservices", Owns: []string{"Deployment"}}
	spec := map[string]any{"resources": map[string]any{
		"requests": map[string]any{"cpu": "1000m", "memory": "0.5Gi", "bad": "lots"},
		"limits":   map[string]any{"memory": "1Gi", "nested": map[string]any{"x": "1"}},
		"claims":   map[string]any{"gpu": "1"},
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
