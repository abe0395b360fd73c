package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest/seed"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
)

// docExample is one indented code block of the docs that runs opctl.
type docExample struct {
	where    string   // file:line
	commands []string // continuation lines joined
	// after is the prose that follows the block, up to the next one: what
	// the page says the commands do.
	after string
}

// docExamples reads the indented code blocks of a Markdown file that run
// opctl; the others run make or go, which CI runs itself.
func docExamples(t *testing.T, path string) []docExample {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var all []docExample
	inBlock, fenced, pending := false, false, ""
	scanner := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		code, ok := strings.CutPrefix(line, "    ")
		if fenced || !ok {
			inBlock = inBlock && strings.TrimSpace(line) == ""
			if !inBlock && len(all) > 0 {
				all[len(all)-1].after += line + "\n"
			}
			continue
		}
		if !inBlock {
			all = append(all, docExample{where: fmt.Sprintf("%s:%d", filepath.Base(path), n)})
			inBlock = true
		}
		pending += strings.TrimSpace(code)
		if strings.HasSuffix(pending, `\`) {
			pending = strings.TrimSuffix(pending, `\`) + " "
			continue
		}
		all[len(all)-1].commands = append(all[len(all)-1].commands, pending)
		pending = ""
	}
	require.NoError(t, scanner.Err())
	var out []docExample
	for _, e := range all {
		for _, c := range e.commands {
			if strings.HasPrefix(c, "opctl ") {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// TestDocsExamplesRun runs every opctl example of README.md and docs/ with
// the built opctl, as a reader would paste it, in a directory prepared for
// it (a project for create api, answers for decide). A line marked "on a
// terminal" needs one: the pseudo-terminal tests cover those.
func TestDocsExamplesRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds opctl and runs the docs' examples")
	}
	bin := buildOpctl(t)
	// opctl verify runs the tests of Python projects.
	python := tools.Python(t)
	decorating := realStyleWith(t, func(s scaffold.Style) bool { return s.ExistingKinds })
	watching := realStyleWith(t, func(s scaffold.Style) bool { return s.Watches })
	newKinds := realStyleWith(t, func(s scaffold.Style) bool { return s.ModulePath })
	initArgs := func(style string) string {
		if style == decorating {
			return "opctl init --style " + style + " --name demo --yes ."
		}
		return "opctl init --style " + style + " --domain example.com --name demo --yes ."
	}
	// setups prepare the directory of an example by its first command.
	setups := []struct{ prefix, script string }{
		// docs/scenarios/playbooks.md: the organisation's playbook, as the
		// page shows it, beside the project.
		{"opctl init --style ansible --domain example.com --name backup-operator", "mkdir ops-playbooks && cat > ops-playbooks/backup.yml <<'EOF'\n" +
			fencedBlock(t, filepath.Join("..", "docs", "scenarios", "playbooks.md"), "yaml") + "EOF"},
		{"opctl init", ""},
		{"opctl decide", "printf 'existing: no\\nnew-crd: yes\\nstage: prototype\\nlanguage: python\\nlogic: imperative\\nmaintainers: yes\\n' > answers.yaml"},
		{"opctl create api --target v1/Secret", initArgs(watching)},
		{"opctl create api --target", initArgs(decorating)},
		{"opctl create api --group ops", initArgs(realStyleWith(t, func(s scaffold.Style) bool { _, ok := s.KindOption("playbook"); return ok })) +
			" && mkdir -p playbooks && printf -- '- name: backup\\n  hosts: localhost\\n  tasks: []\\n' > playbooks/backup.yml"},
		{"opctl create api", initArgs(newKinds)},
		{"opctl delete api Cache", initArgs(newKinds) + " && opctl create api --group cache --version v1 --kind Cache"},
		{"opctl edit api", initArgs(newKinds) + " && opctl " + strings.Join(seed.Create(), " ")},
		{"opctl create webhook", initArgs(newKinds) + " && opctl create api --group myapp --version v1 --kind Database"},
		{"opctl upgrade", initArgs(newKinds) + " && opctl " + strings.Join(seed.Create(), " ")},
	}
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	require.NoError(t, err)
	scenarios, err := filepath.Glob(filepath.Join("..", "docs", "scenarios", "*.md"))
	require.NoError(t, err)
	files = append(files, scenarios...)
	var examples []docExample
	for _, f := range append([]string{filepath.Join("..", "README.md")}, files...) {
		examples = append(examples, docExamples(t, f)...)
	}
	require.GreaterOrEqual(t, len(examples), 6, "the README's examples were not found")
	for _, e := range examples {
		t.Run(e.where, func(t *testing.T) {
			var script []string
			for _, c := range e.commands {
				if !strings.Contains(c, "# on a terminal") {
					script = append(script, c)
				}
			}
			setup, found := "", false
			for _, s := range setups {
				if strings.HasPrefix(script[0], s.prefix) {
					setup, found = s.script, true
					break
				}
			}
			require.True(t, found, "no setup for the example %q: add one to this test", script[0])
			dir := t.TempDir()
			cmd := exec.Command("bash", "-euo", "pipefail", "-c", strings.Join(append([]string{setup}, script...), "\n"))
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "PYTHON="+python)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s\n%s", strings.Join(script, "\n"), out)
			// A page's "decide recommends **STYLE**" is what decide says.
			if claim := recommendsClaim.FindStringSubmatch(e.after); claim != nil && strings.HasPrefix(script[0], "opctl decide") {
				assert.Contains(t, string(out), "Recommended style: "+claim[1]+"\n", "%s says decide recommends %s", e.where, claim[1])
			}
		})
	}
}

// recommendsClaim is how the docs say what decide recommends.
var recommendsClaim = regexp.MustCompile("`decide` recommends \\*\\*([a-z-]+)\\*\\*")

// fencedBlock is the first fenced code block of lang in the Markdown file.
func fencedBlock(t *testing.T, path, lang string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	_, rest, found := strings.Cut(string(b), "\n```"+lang+"\n")
	require.True(t, found, "%s has no ```%s block", path, lang)
	block, _, found := strings.Cut(rest, "\n```\n")
	require.True(t, found, "%s: the ```%s block is not closed", path, lang)
	return block + "\n"
}

// The Microservice scenario's page and the e2e suite, which runs its
// Microservice in every style, add the same kind.
func TestMicroserviceScenarioIsTheE2EOne(t *testing.T) {
	t.Parallel()
	var page string
	for _, e := range docExamples(t, filepath.Join("..", "docs", "scenarios", "microservice.md")) {
		for _, c := range e.commands {
			if strings.HasPrefix(c, "opctl create api") {
				page = strings.Join(strings.Fields(c), " ")
			}
		}
	}
	assert.Equal(t, "opctl "+strings.Join(seed.Microservice(), " "), page)
}
