package project

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/styles/ansible"
)

// The cases of a kind that runs the user's playbook are shown as not
// checked, not as a difference, and the others still count.
func TestVerifyLeavesOutPlaybookKinds(t *testing.T) {
	cases := map[string][]byte{"test/conformance/database/sample.yaml": nil, "test/conformance/cache/sample.yaml": nil}
	playbook := scaffold.Project{APIs: []api.API{{Kind: "Database", Options: map[string]string{"playbook": "playbooks/site.yml"}}, {Kind: "Cache"}}}
	sides := [2]verified{
		{dir: "db-ansible", project: playbook, style: scaffold.Style{Name: "ansible", KindOptions: []scaffold.KindOption{ansible.PlaybookOption()}}, cases: cases},
		{dir: "db-kopf", project: scaffold.Project{APIs: []api.API{{Kind: "Database"}, {Kind: "Cache"}}}, style: scaffold.Style{Name: "kopf"}, cases: cases},
	}
	assert.Equal(t, map[string]string{"test/conformance/database/sample.yaml": "Database runs the playbook playbooks/site.yml"}, notRun(sides[0]))

	var out bytes.Buffer
	outcomes := [2]map[string]string{{"cache/sample.yaml": "pass"}, {"cache/sample.yaml": "pass", "database/sample.yaml": "pass"}}
	require.NoError(t, printVerification(&out, sides, outcomes))
	assert.Regexp(t, `(?m)^database/sample.yaml +n/a +pass  \(not checked: Database runs the playbook playbooks/site.yml\)$`, out.String())

	outcomes[1]["cache/sample.yaml"] = "fail"
	assert.Error(t, printVerification(&out, sides, outcomes), "a case that differs still counts")
}
