package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/pins"
)

func TestNewer(t *testing.T) {
	for _, tc := range []struct {
		name, pinned  string
		versions      []string
		patch, newest string
	}{
		{"current", "v1.2.3", []string{"v1.2.2", "v1.2.3", "v1.1.9"}, "", ""},
		{"a patch", "v1.2.3", []string{"v1.2.3", "v1.2.5", "v1.2.4"}, "v1.2.5", ""},
		{"a patch and a minor", "v0.25.3", []string{"v0.26.1", "v0.25.4", "v0.26.0"}, "v0.25.4", "v0.26.1"},
		{"a minor only", "v3.7.3", []string{"v3.8.0"}, "", "v3.8.0"},
		{"prereleases and junk left out", "v1.2.3", []string{"v1.2.4-rc.1", "v1.3.0-beta", "latest", "v1.2.3"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			patch, newest := newer(tc.pinned, tc.versions)
			assert.Equal(t, tc.patch, patch, "newest patch")
			assert.Equal(t, tc.newest, newest, "newest")
		})
	}
}

func TestProxyURL(t *testing.T) {
	for goproxy, want := range map[string]string{
		"":                                "https://proxy.golang.org",
		"https://proxy.golang.org,direct": "https://proxy.golang.org",
		"direct|https://goproxy.example/": "https://goproxy.example",
	} {
		got, err := proxyURL(goproxy)
		require.NoError(t, err, goproxy)
		assert.Equal(t, want, got, goproxy)
	}
	for _, goproxy := range []string{"off", "direct"} {
		_, err := proxyURL(goproxy)
		assert.Error(t, err, goproxy)
	}
}

// The report against a proxy that lists a newer patch of one pin, nothing
// newer of another and does not know a third: the first is reported, the
// third named as not checked, in the error.
func TestRunReportsNewerReleases(t *testing.T) {
	lists := map[string]string{
		"/sigs.k8s.io/controller-runtime/@v/list": "v0.25.2\nv0.25.3\nv0.25.9\n",
		"/sigs.k8s.io/yaml/@v/list":               "v1.5.0\nv1.6.0\n",
	}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		list, ok := lists[r.URL.Path]
		if !ok {
			http.Error(w, "not served", http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte(list))
	}))
	defer proxy.Close()
	v := pins.Versions{ControllerRuntime: "v0.25.3", SigsYAML: "v1.6.0", Helm: "v4.3.2"}
	sources := map[string]pins.Source{
		"controllerRuntime": {Module: "sigs.k8s.io/controller-runtime", Checked: "2026-12-06"},
		"sigsYAML":          {Module: "sigs.k8s.io/yaml", Checked: "2026-12-06"},
		"helm":              {Module: "helm.sh/helm/v4", Checked: "2026-12-06"},
		"childImage":        {Checked: "2026-11-30"},
	}
	var out bytes.Buffer
	err := run(&out, proxy.URL+",direct", proxy.Client(), v, sources)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pin helm: helm.sh/helm/v4: the module proxy answered 403 Forbidden")
	assert.Contains(t, out.String(), "controllerRuntime  sigs.k8s.io/controller-runtime  v0.25.3  v0.25.9       -       2026-12-06\n")
	assert.NotContains(t, out.String(), "sigsYAML")
	assert.Contains(t, out.String(), "1 of the 3 pins that follow a Go module have a newer release on "+proxy.URL+".\n")
}

// Every pin of the table has a source, and the day it was last checked.
func TestEveryPinHasASource(t *testing.T) {
	sources := pins.Sources()
	for _, key := range pins.Keys() {
		assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, sources[key].Checked, "pin %s: when it was last checked", key)
	}
	assert.Len(t, sources, len(pins.Keys()), "a source for a pin the table does not have")
}
