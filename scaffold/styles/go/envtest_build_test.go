package golang_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	golang "github.com/opctl/opctl/scaffold/styles/go"
)

// fakeGo stands in for go build: it records each build in $BUILDS, takes a
// second, and writes an executable where -o says.
const fakeGo = `#!/usr/bin/env bash
while [ "$1" != "-o" ]; do shift; done
echo "$2" >>"$BUILDS"
sleep 1
printf '#!/bin/sh\n' >"$2"
chmod +x "$2"
`

// Two builds of the API-server binaries into one directory at once (two
// projects' make test, or opctl's and a project's): the second waits for
// the first and builds nothing, and a lock left by a builder that is gone
// is taken over.
func TestEnvtestBuildsOnceAtATime(t *testing.T) {
	bash, err := exec.LookPath("bash")
	require.NoError(t, err, "the test runs hack/envtest/build.sh: install bash")
	p := scaffold.Project{Name: "envtest", Domain: "example.com", Repo: "example.com/envtest", Style: "go", Versions: pins.DefaultVersions()}
	tree, err := render.Project(p, golang.Style())
	require.NoError(t, err)
	src := t.TempDir()
	for _, f := range tree.Files() {
		if strings.HasPrefix(f.Path, "hack/envtest/") {
			path := filepath.Join(src, filepath.FromSlash(f.Path))
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, f.Content, f.Mode))
		}
	}
	goPath := filepath.Join(t.TempDir(), "go")
	require.NoError(t, os.WriteFile(goPath, []byte(fakeGo), 0o755))
	build := func(dir, builds string) *exec.Cmd {
		cmd := exec.Command(bash, filepath.Join(src, "hack/envtest/build.sh"), dir)
		cmd.Env = append(os.Environ(), "GO="+goPath, "BUILDS="+builds)
		return cmd
	}

	dir, builds := t.TempDir(), filepath.Join(t.TempDir(), "builds")
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := build(dir, builds).Output()
			assert.NoError(t, err)
			outs[i] = string(out)
		}()
	}
	wg.Wait()
	assert.Equal(t, []string{dir + "\n", dir + "\n"}, outs, "both print the directory for KUBEBUILDER_ASSETS")
	b, err := os.ReadFile(builds)
	require.NoError(t, err)
	assert.Len(t, strings.Fields(string(b)), 2, "kube-apiserver and etcd built once each:\n%s", b)
	assert.NoFileExists(t, filepath.Join(dir, ".build.lock"), "the lock is gone after the build")

	// A builder killed mid-build leaves its lock: the next build takes it.
	dir, builds = t.TempDir(), filepath.Join(t.TempDir(), "builds")
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	require.NoError(t, os.Symlink(strconv.Itoa(gone.Process.Pid), filepath.Join(dir, ".build.lock")))
	out, err := build(dir, builds).Output()
	require.NoError(t, err)
	assert.Equal(t, dir+"\n", string(out))
}
