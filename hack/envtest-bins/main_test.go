package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/pins"
)

// The Makefile's help for envtest-bins names the directory it builds into:
// the user cache's (~/.cache on Linux), not the repository's .cache/.
func TestMakefileHelpNamesTheCacheDirectory(t *testing.T) {
	b, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	help := regexp.MustCompile(`(?m)^envtest-bins:.*## (.*)$`).FindSubmatch(b)
	require.NotNil(t, help, "the Makefile has no help for envtest-bins")
	dir := filepath.Dir(assetsDir(pins.DefaultVersions()))
	assert.Contains(t, string(help[1]), "~/.cache/"+dir, "the help names the directory under the user cache")
}
