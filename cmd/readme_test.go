package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's --from example is what users copy: it must scaffold as it
// stands (its optional pattern field once failed for want of a sample).
func TestREADMEFromExampleRuns(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)## `--from FILE`.*?```yaml\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, block, "README.md has no yaml example under ## `--from FILE`")
	dir := initSeed(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api.yaml"), block[1], 0o644))
	r := run(t, dir, nil, false, "create", "api", "--from", "api.yaml")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "create    config/samples/myapp_v1_database.yaml")
}
