package scaffold

import (
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
			cr := map[string]any{"apiVersion": "apps.example.com/v1", "kind": "Microservice",
				"metadata": map[string]any{"name": "cart", "namespace": "shop", "uid": "u"}, "spec": tc.spec}
			children := map[any]map[string]any{}
			for _, c := range DesiredChildren(p, a, cr) {
				children[c["kind"]] = c
			}
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
