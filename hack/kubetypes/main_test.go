//go:build generated

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// scaffold/api/kubetypes.json is what controller-gen writes for the pinned
// k8s.io/api: a new pin, or a type added to api.KubeTypes, needs make
// kubetypes.
func TestKubeTypesAreCurrent(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	if err := run(true); err != nil {
		t.Fatal(err)
	}
}
