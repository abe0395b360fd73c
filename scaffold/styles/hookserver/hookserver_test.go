package hookserver_test

import (
	"encoding/json"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/styles/hookserver"
)

// The patch the project installs Metacontroller with adds the client rate
// after the arguments its release gives, keeping them.
func TestRatePatchAddsTheClientRate(t *testing.T) {
	release := `{"spec":{"template":{"spec":{"containers":[{"name":"metacontroller","args":["--zap-log-level=4","--discovery-interval=20s"]}]}}}}`
	patch, err := jsonpatch.DecodePatch([]byte(hookserver.RatePatch()))
	require.NoError(t, err)
	b, err := patch.Apply([]byte(release))
	require.NoError(t, err)
	var got struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args []string `json:"args"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, append([]string{"--zap-log-level=4", "--discovery-interval=20s"}, hookserver.ClientRate()...), got.Spec.Template.Spec.Containers[0].Args)
}
