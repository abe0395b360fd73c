package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
)

// seedAnswers answer interactive init like the seed example's flags, with
// two invalid answers that are refused and asked again.
func seedAnswers() map[string][]string {
	return map[string][]string{
		"Is there already a well-maintained operator for this software?":                          {"no, nothing fits"},
		"Do you need a new custom resource (CRD), or is automating built-in resources enough?":    {"a new CRD"},
		"Is this a prototype or for production?":                                                  {"production"},
		"In production, will it be large-scale or long-lived?":                                    {"yes: large scale or long-lived"},
		"What is the team's main language?":                                                       {"Go"},
		"Is the logic declarative or imperative?":                                                 {"imperative: steps, state, external calls"},
		"Can the people who will maintain it for years read and fix code in the team's language?": {"yes"},
		"Style to scaffold":                         {"toy-go"},
		"Domain of your API groups":                 {"example.com"},
		"Project name":                              {"db-operator"},
		"Go module path":                            {"example.com/db-operator"},
		"Where the operator sees its kinds":         {keepDefault},
		"API group (without the domain)":            {"myapp"},
		"API version":                               {"v1"},
		"Kind":                                      {"database", "Database"},
		"Is Database namespaced?":                   {"y"},
		"Add a spec field to Database?":             {"y", "y", "y", "y", "n"},
		"Field name":                                {"engine", "version", "storage", "replicas"},
		"Type of engine":                            {"string"},
		"Type of version":                           {"string"},
		"Type of storage":                           {"quantity"},
		"Type of replicas":                          {"int32"},
		"Modifiers of engine":                       {"enum,required"},
		"Modifiers of version":                      {""},
		"Modifiers of storage":                      {""},
		"Modifiers of replicas":                     {"default,min,max"},
		"Allowed values, comma-separated of engine": {"mysql,postgres"},
		"Minimum of replicas":                       {"1"},
		"Maximum of replicas":                       {"5"},
		"Default of replicas":                       {"9", "1"},
		"Child kinds each Database owns":            {"ConfigMap"},
	}
}

// TestInteractiveInitMatchesFlags answers every prompt and checks the
// written tree is byte-identical to init + create api with flags.
func TestInteractiveInitMatchesFlags(t *testing.T) {
	t.Parallel()
	viaFlags := initSeed(t)
	require.Equal(t, 0, run(t, viaFlags, nil, false, seedCreate...).code)

	dir := filepath.Join(t.TempDir(), "db-operator")
	answers := seedAnswers()
	answers[confirmWrite(written(snapshot(t, viaFlags)), dir)] = []string{"y"}
	// An autoscaler without its workload: the question is asked again.
	answers["Child kinds each Database owns"] = []string{"ConfigMap,HorizontalPodAutoscaler", "ConfigMap"}
	pr := newFakePrompter(t, answers)
	r := run(t, filepath.Dir(dir), pr, true, "init", "db-operator")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Recommended style: toy-go (runner-up: toy-python)")
	assert.Equal(t, []string{
		"Kind: must be UpperCamelCase (e.g. Database), at most 63 characters",
		"Default of replicas: default 9 is outside min/max",
		"Child kinds each Database owns: HorizontalPodAutoscaler needs Deployment or StatefulSet owned too: it refers to it",
	}, pr.rejected)
	assert.Equal(t, relative(t, viaFlags), relative(t, dir))
}

// confirmWrite is init's last question, for n files written into dir.
func confirmWrite(n int, dir string) string {
	return fmt.Sprintf("Write these %d files to %s?", n, dir)
}

// written is how many files of a snapshot opctl offers to write: the
// project's, not the bases it keeps beside them.
func written(files map[string]string) int {
	n := 0
	for path := range files {
		if !strings.Contains(filepath.ToSlash(path), "/"+machinery.BaseDir+"/") {
			n++
		}
	}
	return n
}

// filesOf is how many files the commands write into a new directory: what
// an interactive init that ends the same way offers to write.
func filesOf(t *testing.T, commands ...[]string) int {
	t.Helper()
	dir := t.TempDir()
	for _, args := range commands {
		r := run(t, dir, nil, false, args...)
		require.Equal(t, 0, r.code, r.stderr)
	}
	return written(snapshot(t, dir))
}

func relative(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	for path, content := range snapshot(t, dir) {
		rel, err := filepath.Rel(dir, path)
		require.NoError(t, err)
		out[rel] = content
	}
	return out
}

func TestInteractiveInitDeclinedWritesNothing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "db-operator")
	answers := seedAnswers()
	answers["Kind"] = []string{"Database"}
	answers["Default of replicas"] = []string{"1"}
	answers[confirmWrite(filesOf(t, seedInit, seedCreate), dir)] = []string{"n"}
	answers[goBack] = []string{"n"}
	r := run(t, filepath.Dir(dir), newFakePrompter(t, answers), true, "init", "db-operator")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: cancelled: nothing was written\n", r.stderr)
	assert.NoDirExists(t, dir)

	// The command it prints writes what the answers would have.
	_, lines, found := strings.Cut(r.stdout, "To write this project later without the questions:\n")
	require.True(t, found, r.stdout)
	initLine, createLine, _ := strings.Cut(strings.TrimSpace(lines), "\n")
	assert.Equal(t, "opctl init --style toy-go --domain example.com --name db-operator --repo example.com/db-operator --yes db-operator", initLine)
	create, found := strings.CutPrefix(createLine, "cd db-operator && opctl ")
	require.True(t, found, createLine)
	require.Equal(t, 0, run(t, filepath.Dir(dir), nil, false, strings.Fields(initLine)[1:]...).code)
	require.Equal(t, 0, run(t, dir, nil, false, strings.Fields(create)...).code)
	viaFlags := initSeed(t)
	require.Equal(t, 0, run(t, viaFlags, nil, false, seedCreate...).code)
	assert.Equal(t, relative(t, viaFlags), relative(t, dir))
}

// goBack is the question after a declined write.
const goBack = "Go back and change your answers? (each question starts from your answer)"

// TestInteractiveInitGoesBack declines the write, goes back, and changes
// one answer: every other question starts from the answer given, so Enter
// keeps it, and the project written is the flags' one with that change.
func TestInteractiveInitGoesBack(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "db-operator")
	answers := seedAnswers()
	n := filesOf(t, seedInit, seedCreate)
	answers[confirmWrite(n, dir)] = []string{"n", "y"}
	answers[goBack] = []string{"y"}
	// The second pass: every question again, the checklist's too, each
	// starting from the first pass's answer.
	accepted := map[string]int{"Kind": 1, "Default of replicas": 1}
	for message, queue := range seedAnswers() {
		count := len(queue)
		if c, ok := accepted[message]; ok {
			count = c
		}
		for range count {
			answers[message] = append(answers[message], keepDefault)
		}
	}
	// The one change: replicas' maximum.
	answers["Maximum of replicas"] = []string{"5", "7"}
	pr := newFakePrompter(t, answers)
	r := run(t, filepath.Dir(dir), pr, true, "init", "db-operator")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "To write this project later")
	for _, q := range checklist.Questions(toyStyles().Profiles()) {
		if first, ok := seedAnswers()[q.Prompt]; ok {
			require.Len(t, pr.defaults[q.Prompt], 2, q.Prompt)
			assert.Equal(t, first[0], pr.defaults[q.Prompt][1], "going back, %q starts from the answer given", q.Prompt)
		}
	}

	viaFlags := initSeed(t)
	create := slices.Clone(seedCreate)
	for i, a := range create {
		create[i] = strings.Replace(a, "max=5", "max=7", 1)
	}
	require.NotEqual(t, seedCreate, create, "the seed's replicas have max=5")
	require.Equal(t, 0, run(t, viaFlags, nil, false, create...).code)
	assert.Equal(t, relative(t, viaFlags), relative(t, dir))
}

func TestInteractiveInitStyleFlagSkipsChecklist(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pr := newFakePrompter(t, map[string][]string{
		"Domain of your API groups":         {"Example.com", "example.com"},
		"Project name":                      {"demo"},
		"Go module path":                    {"example.com/demo"},
		"Where the operator sees its kinds": {keepDefault},
		"API group (without the domain)":    {"my_app", "myapp"},
		"API version":                       {"1", "v1alpha1"},
		"Kind":                              {"Widget"},
		"Is Widget namespaced?":             {"n"},
		"Add a spec field to Widget?":       {"y", "y", "n"},
		"Field name":                        {"status", "size", "size", "tags"},
		"Type of size":                      {"int64"},
		"Type of tags":                      {"[]string"},
		"Modifiers of size":                 {"required,min,max,column"},
		"Modifiers of tags":                 {""},
		"Minimum of size":                   {"ten", "10"},
		"Maximum of size":                   {"5", "20"},
		confirmWrite(filesOf(t, []string{"init", "--style", "toy-go", "--domain", "example.com", "--name", "demo", "--yes"},
			[]string{"create", "api", "--group", "myapp", "--version", "v1alpha1", "--kind", "Widget", "--namespaced=false",
				"--field", "size:int64:required:min=10:max=20:column", "--field", "tags:[]string"}), dir): {"y"},
	})
	r := run(t, dir, pr, true, "init", "--style", "toy-go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []string{
		"Domain of your API groups: must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')",
		"API group (without the domain): must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')",
		"API version: must look like v1, v1alpha1 or v2beta3",
		`Field name: name "status" is reserved`,
		`Minimum of size: min=ten is not an integer`,
		`Maximum of size: min 10 is greater than max 5`,
		`Field name: defined twice`,
	}, pr.rejected)
	b, err := os.ReadFile(filepath.Join(dir, "config/crd/bases/myapp.example.com_widgets.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "scope: Cluster")
}

var goAnswers = []string{"decide", "--existing", "no", "--new-crd", "yes", "--stage", "production", "--scale", "large",
	"--language", "go", "--logic", "imperative", "--maintainers", "yes"}

func TestDecideWithFlags(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), nil, false, goAnswers...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Recommended style: toy-go\nRunner-up:         toy-python\n")
	assert.Contains(t, r.stdout, "language=go")
	assert.Contains(t, r.stdout, "  best fit")
	assert.Contains(t, r.stdout, "Next:\n  opctl init --style toy-go --domain example.com --name my-operator --repo example.com/my-operator my-operator\n")
}

func TestDecideJSON(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), nil, false, append(goAnswers, "-o", "json", "--name", "db", "--domain", "acme.io")...)
	require.Equal(t, 0, r.code, r.stderr)
	var got struct {
		Style, RunnerUp, Next string
		Reasons               []map[string]string
		Ranking               []map[string]any
		Comparison            []map[string]string
		Answers               map[string]string
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, "toy-go", got.Style)
	assert.Equal(t, "toy-python", got.RunnerUp)
	assert.Equal(t, "opctl init --style toy-go --domain acme.io --name db --repo acme.io/db db", got.Next)
	assert.Len(t, got.Reasons, 7)
	assert.Len(t, got.Ranking, len(toyStyles()))
	assert.Equal(t, "large", got.Answers["scale"])
}

func TestDecideFromAnswersFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(
		"existing: yes\nsoftware: Kafka\nnew-crd: yes\nstage: prototype\nlanguage: python\nlogic: imperative\nmaintainers: yes\n"), 0o644))
	r := run(t, dir, nil, false, "decide", "--answers", "a.yaml")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "An operator already exists for this: run it instead of building one.")
	assert.Contains(t, r.stdout, "Kafka: Strimzi  https://strimzi.io")
	assert.Contains(t, r.stdout, "Recommended style: toy-python")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("colour: blue\n"), 0o644))
	r = run(t, dir, nil, false, "decide", "--answers", "bad.yaml")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --answers bad.yaml: unknown question \"colour\"\n", r.stderr)
}

// A project decorating existing kinds needs no domain, and the command
// init suggests next runs.
func TestDecoratorInitNeedsNoDomainAndItsNextRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := run(t, dir, nil, false, "init", "--style", "toy-shell", "--name", "web", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	_, next, found := strings.Cut(r.stdout, "Next: cd "+dir+" && opctl ")
	require.True(t, found, r.stdout)
	r = run(t, dir, nil, false, strings.Fields(next)...)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(filepath.Join(dir, "opctl.yaml"))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "domain")
}

// The catalog is consulted whenever the software is named; an existing
// operator the catalog knows settles it without the other answers.
func TestDecideConsultsTheCatalog(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), nil, false, "decide", "--existing", "yes", "--software", "PostgreSQL")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "An operator already exists for this: run it instead of building one.")
	assert.Contains(t, r.stdout, "PostgreSQL: CloudNativePG")
	assert.NotContains(t, r.stdout, "Recommended style")
	assert.Contains(t, r.stdout, "answer the other questions")

	r = run(t, t.TempDir(), nil, false, append(goAnswers, "--software", "PostgreSQL")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Well-maintained operators to consider first:\n  PostgreSQL: CloudNativePG")
	assert.Contains(t, r.stdout, "Recommended style: toy-go")

	// Unknown to the catalog, an existing operator settles nothing.
	r = run(t, t.TempDir(), nil, false, "decide", "--existing", "yes", "--software", "our billing system")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --software \"our billing system\" is not in opctl's catalog of operators, so the checklist goes on: --new-crd is required (one of yes, no) when not prompting\n", r.stderr)
}

func TestDecideNeverPromptsOffTerminal(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), nil, false, "decide", "--existing", "no")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --new-crd is required (one of yes, no) when not prompting\n", r.stderr)
	r = run(t, t.TempDir(), nil, false, "decide", "--existing", "maybe")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --existing \"maybe\": want one of no, yes, unsure\n", r.stderr)
}

func TestDecidePromptsOnTerminal(t *testing.T) {
	t.Parallel()
	answers := seedAnswers()
	pr := newFakePrompter(t, map[string][]string{})
	for _, q := range []string{
		"Is there already a well-maintained operator for this software?",
		"Do you need a new custom resource (CRD), or is automating built-in resources enough?",
		"Is this a prototype or for production?",
		"In production, will it be large-scale or long-lived?",
		"What is the team's main language?",
		"Is the logic declarative or imperative?",
		"Can the people who will maintain it for years read and fix code in the team's language?",
	} {
		pr.answers[q] = answers[q]
	}
	pr.answers["What is the team's main language?"] = []string{"Python"}
	r := run(t, t.TempDir(), pr, true, "decide")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Recommended style: toy-python\nRunner-up:         toy-go\n")
}

func TestInteractiveInitDecorator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pr := newFakePrompter(t, map[string][]string{
		"Kind to decorate": {"Deployment", "apps/v1/Deployment"},
		"Label selector of the objects to decorate (empty: all)": {"app type=web", "app-type=web"},
		confirmWrite(filesOf(t, []string{"init", "--style", "toy-shell", "--name", "web-services", "--yes"},
			[]string{"create", "api", "--target", "apps/v1/Deployment", "--selector", "app-type=web", "--owns", "Service"}), dir): {"y"},
	})
	decorator := styleWith(t, func(s scaffold.Style) bool { return s.ExistingKinds })
	r := run(t, dir, pr, true, "init", "--style", decorator, "--name", "web-services")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, pr.rejected, 2)
	viaFlags := t.TempDir()
	require.Equal(t, 0, run(t, viaFlags, nil, false, "init", "--style", decorator, "--name", "web-services", "--yes").code)
	require.Equal(t, 0, run(t, viaFlags, nil, false, "create", "api", "--target", "apps/v1/Deployment", "--selector", "app-type=web", "--owns", "Service").code)
	assert.Equal(t, relative(t, viaFlags), relative(t, dir), "the same bytes as with flags")
}

// Without a new CRD, decide's next step uses an existing kind as a runnable
// line: a watch of Secrets selected by a label a Secret would carry.
func TestDecideNextForAnExistingKind(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), nil, false, "decide", "--existing", "no", "--new-crd", "no", "--stage", "production", "--scale", "small",
		"--language", "python", "--logic", "imperative", "--maintainers", "yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "cd my-operator && opctl create api --target v1/Secret --selector sync=vault\n")
}

// create webhook's help says which styles take --rule, as it works in those
// alone.
func TestCreateWebhookHelpNamesTheRuleStyles(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), nil, false, "create", "webhook", "--help")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^  # --rule: in toy-[a-z-]+(, toy-[a-z-]+)* projects, whose policy the API server runs$`, r.stdout)
}

// TestInteractiveFieldTakesEveryModifier: the prompts offer each modifier
// --field takes (from the same table), and set it as the flag does.
func TestInteractiveFieldTakesEveryModifier(t *testing.T) {
	t.Parallel()
	initArgs := []string{"init", "--style", "toy-go", "--domain", "example.com", "--name", "demo", "--yes"}
	createArgs := []string{"create", "api", "--group", "myapp", "--version", "v1alpha1", "--kind", "Widget",
		"--field", "name:string:minLength=3:maxLength=20:immutable:rule=self.startsWith('db')#starts with db",
		"--field", "users[].id:string:required:key:pattern=^[a-z]+$"}
	viaFlags := t.TempDir()
	for _, args := range [][]string{initArgs, createArgs} {
		r := run(t, viaFlags, nil, false, args...)
		require.Equal(t, 0, r.code, r.stderr)
	}
	dir := t.TempDir()
	pr := newFakePrompter(t, map[string][]string{
		"Domain of your API groups":         {"example.com"},
		"Project name":                      {"demo"},
		"Go module path":                    {"example.com/demo"},
		"Where the operator sees its kinds": {keepDefault},
		"API group (without the domain)":    {"myapp"},
		"API version":                       {"v1alpha1"},
		"Kind":                              {"Widget"},
		"Is Widget namespaced?":             {"y"},
		"Add a spec field to Widget?":       {"y", "y", "n"},
		"Field name":                        {"name", "users[].id"},
		"Type of name":                      {"string"},
		"Type of users[].id":                {"string"},
		"Modifiers of name":                 {"minLength,maxLength,immutable,rule"},
		"Minimum length of name":            {"3"},
		"Maximum length of name":            {"2", "20"},
		"CEL rule, self being the field (a message after #) of name": {"self.startsWith('db')#starts with db"},
		"Modifiers of users[].id":                                    {"key", "required,key,pattern"},
		"Pattern (a regular expression) of users[].id":               {"^[a-z]+$"},
		"Child kinds each Widget owns":                               {""},
		confirmWrite(written(snapshot(t, viaFlags)), dir):            {"y"},
	})
	r := run(t, dir, pr, true, "init", "--style", "toy-go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []string{
		"Maximum length of name: minLength 3 is greater than maxLength 2",
		"Modifiers of users[].id: a key must be in every object of the list: make it required, or give it a default",
	}, pr.rejected)
	assert.Equal(t, relative(t, viaFlags), relative(t, dir))
}

// TestInteractiveDefaultBreakingItsRule: a default the field's own rule
// refuses is refused when it is asked, as with flags (exit 2, naming
// --field), not after every question.
func TestInteractiveDefaultBreakingItsRule(t *testing.T) {
	t.Parallel()
	initArgs := []string{"init", "--style", "toy-go", "--domain", "example.com", "--name", "demo", "--yes"}
	// rule= takes the rest of the spec, so it comes last.
	field := func(def string) string {
		return "n:int32:min=10:max=20:default=" + def + ":rule=self % 2 == 0#must be even"
	}
	viaFlags := t.TempDir()
	r := run(t, viaFlags, nil, false, initArgs...)
	require.Equal(t, 0, r.code, r.stderr)
	createArgs := []string{"create", "api", "--group", "myapp", "--version", "v1alpha1", "--kind", "Widget", "--field"}
	r = run(t, viaFlags, nil, false, append(createArgs, field("11"))...)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --field \"n\": default 11 breaks the field's rule: must be even\n", r.stderr)
	r = run(t, viaFlags, nil, false, append(createArgs, field("12"))...)
	require.Equal(t, 0, r.code, r.stderr)
	dir := t.TempDir()
	pr := newFakePrompter(t, map[string][]string{
		"Domain of your API groups":         {"example.com"},
		"Project name":                      {"demo"},
		"Go module path":                    {"example.com/demo"},
		"Where the operator sees its kinds": {keepDefault},
		"API group (without the domain)":    {"myapp"},
		"API version":                       {"v1alpha1"},
		"Kind":                              {"Widget"},
		"Is Widget namespaced?":             {"y"},
		"Add a spec field to Widget?":       {"y", "n"},
		"Field name":                        {"n"},
		"Type of n":                         {"int32"},
		"Modifiers of n":                    {"default,min,max,rule"},
		"Minimum of n":                      {"10"},
		"Maximum of n":                      {"20"},
		"CEL rule, self being the field (a message after #) of n": {"self % 2 == 0#must be even"},
		"Default of n":                                    {"11", "12"},
		"Child kinds each Widget owns":                    {""},
		confirmWrite(written(snapshot(t, viaFlags)), dir): {"y"},
	})
	r = run(t, dir, pr, true, "init", "--style", "toy-go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []string{"Default of n: default 11 breaks the field's rule: must be even"}, pr.rejected)
	assert.Equal(t, relative(t, viaFlags), relative(t, dir))
}
