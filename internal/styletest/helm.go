//go:build generated || e2e

package styletest

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/opctl/opctl/scaffold/render"
)

// RenderChart renders the Helm chart of the project in dir with Helm's own
// engine, as `helm install release -n ns` would with values over the
// chart's, and returns every object it installs, CRDs first.
func RenderChart(t testing.TB, dir, release, ns string, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	chrt, err := loader.Load(filepath.Join(dir, render.ChartDir))
	require.NoError(t, err)
	vals, err := util.ToRenderValues(chrt, values, common.ReleaseOptions{Name: release, Namespace: ns, IsInstall: true}, common.DefaultCapabilities)
	require.NoError(t, err)
	rendered, err := engine.Render(chrt, vals)
	require.NoError(t, err)
	var objs []*unstructured.Unstructured
	for _, crd := range chrt.CRDObjects() {
		objs = append(objs, DecodeObjects(t, crd.File.Data)...)
	}
	names := make([]string, 0, len(rendered))
	for name := range rendered {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		objs = append(objs, DecodeObjects(t, []byte(rendered[name]))...)
	}
	return objs
}

// ChartValuesError is what Helm says of values over the chart's in dir
// (its values.schema.json), as helm install would, or nil.
func ChartValuesError(t testing.TB, dir string, values map[string]any) error {
	t.Helper()
	chrt, err := loader.Load(filepath.Join(dir, render.ChartDir))
	require.NoError(t, err)
	_, err = util.ToRenderValues(chrt, values, common.ReleaseOptions{Name: "release", Namespace: "ns", IsInstall: true}, common.DefaultCapabilities)
	return err
}

// DecodeObjects reads the objects of a multi-document YAML stream; empty
// documents (a template whose condition is off) are skipped.
func DecodeObjects(t testing.TB, data []byte) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return objs
		}
		require.NoError(t, err)
		if len(m) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
}
