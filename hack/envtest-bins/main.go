// Command envtest-bins builds kube-apiserver and etcd for opctl's API-server
// tests from the same sources a generated Go project gets (hack/envtest),
// once per user: into the same directory under os.UserCacheDir() that
// generated projects' Makefiles use, so neither builds what the other has.
// Its last line of output is the directory to use as KUBEBUILDER_ASSETS.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	golang "github.com/opctl/opctl/scaffold/styles/go"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "envtest-bins:", err)
		os.Exit(1)
	}
}

func run() error {
	cache, err := filepath.Abs(".cache")
	if err != nil {
		return err
	}
	v := pins.DefaultVersions()
	// The go style's projects carry the sources (hack/envtest).
	style := golang.Style()
	p := scaffold.Project{Name: "envtest", Domain: "opctl.invalid", Repo: "opctl.invalid/envtest", Style: style.Name, Versions: v}
	tree, err := render.Project(p, style)
	if err != nil {
		return err
	}
	src := filepath.Join(cache, "envtest-src")
	for _, f := range tree.Files() {
		if !strings.HasPrefix(f.Path, "hack/envtest/") {
			continue
		}
		target := filepath.Join(src, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, f.Content, f.Mode); err != nil {
			return err
		}
	}
	userCache, err := os.UserCacheDir()
	if err != nil {
		return err
	}
	cmd := exec.Command("bash", filepath.Join(src, "hack/envtest/build.sh"), filepath.Join(userCache, assetsDir(v)))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// assetsDir is where the binaries go, under the user's cache directory.
func assetsDir(v pins.Versions) string { return filepath.Join("opctl", v.EnvtestDir()) }
