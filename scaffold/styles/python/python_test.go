package python

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A project's package must not shadow a module it imports: Python would
// import the project's instead.
func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"db-operator": true, "json": false, "logging": false, "kopf": false, "yaml": false, "pytest": false,
		"http": false, "json-sync": true, "conftest": false, "2fa": true, "test-suite": true,
	} {
		err := CheckName(name)
		if ok {
			assert.NoError(t, err, name)
			continue
		}
		assert.ErrorContains(t, err, "would shadow the module", name)
	}
}

// A project's package must not be one of its own directories: the
// Dockerfile would copy that directory's files into the image.
func TestCheckNameProjectDirs(t *testing.T) {
	for _, name := range []string{"test", "tests", "config", "dist"} {
		assert.ErrorContains(t, CheckName(name), "would be the project's own "+name+" directory", name)
	}
}
