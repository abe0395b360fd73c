package checklist

// weights adds points to styles; negative points push a style down.
type weights map[string]int

// rule is one row of the decision table: an answer, what it does to each
// style's score, and the reason shown to the user.
type rule struct {
	question, answer string
	weights          weights
	reason           string
}

// maintainersBonus is added to the style written in the team's language when
// the maintainers can read that language: maintainability outweighs raw
// performance, so it is the largest single weight.
const maintainersBonus = 4

// languageStyle is the style whose code is written in each team language.
var languageStyle = map[string]string{
	"go": Go, "python": Kopf, "shell": ShellOperator, "ansible": Ansible, "other": Metacontroller,
}

// rules is the decision table; the README reproduces it.
var rules = []rule{
	{"existing", "no", nil, "nothing to reuse, so an operator of your own is justified"},
	{"existing", "yes", nil, "run the existing operator instead of writing one; the ranking below is for when it does not fit"},
	{"existing", "unsure", nil, "check the catalog and OperatorHub before building: a maintained operator beats a new one"},

	{"new-crd", "yes", weights{Go: 1, Kopf: 1, Metacontroller: 1, Ansible: 1, MetacontrollerDecorator: -3},
		"a new API is what go, kopf, metacontroller and ansible scaffold; a decorator only extends existing resources"},
	{"new-crd", "no", weights{MetacontrollerDecorator: 4, ShellOperator: 4, Metacontroller: -8, Go: -1, Kopf: -1, Ansible: -1},
		"no new CRD: a DecoratorController or shell-operator hooks react to built-in resources with the least machinery"},

	{"stage", "prototype", weights{Kopf: 2, Metacontroller: 2, ShellOperator: 1},
		"a prototype wants the shortest path to a working loop: kopf and metacontroller need the least code"},
	{"stage", "production", nil, "production: what the team can operate and extend for years matters more than speed of writing"},
	{"scale", "small", weights{Go: 1, Kopf: 1, Metacontroller: 1, Ansible: 1},
		"modest scale: every style copes, none is ruled out by resources"},
	{"scale", "large", weights{Go: 3, Kopf: 1},
		"large or long-lived: a compiled, typed controller-runtime operator has the lowest footprint and the richest tooling"},

	{"language", "go", weights{Go: 4, Metacontroller: 1}, "a Go team: controller-runtime is native to it"},
	{"language", "python", weights{Kopf: 4, Metacontroller: 1}, "a Python team: Kopf handlers are plain Python and can call your Python SDKs"},
	{"language", "shell", weights{ShellOperator: 4, MetacontrollerDecorator: 1}, "a shell/kubectl team with small automations: shell-operator runs bash hooks"},
	{"language", "ansible", weights{Ansible: 5}, "existing Ansible roles and playbooks run unchanged under the Ansible Operator"},
	{"language", "other", weights{Metacontroller: 3, MetacontrollerDecorator: 2}, "another language: a Metacontroller sync hook is a plain HTTP webhook in any language"},

	{"logic", "declarative", weights{Metacontroller: 5, MetacontrollerDecorator: 2, Ansible: 1, Go: -1, Kopf: -1},
		"declarative: Metacontroller computes the diff and applies children for you; elsewhere you write create-or-update yourself"},
	{"logic", "imperative", weights{Go: 2, Kopf: 2, ShellOperator: 1, Ansible: 1, Metacontroller: -1, MetacontrollerDecorator: -1},
		"imperative steps, state machines and external calls need a general-purpose reconcile loop (go, kopf)"},

	{"maintainers", "yes", nil, "maintainers can fix code in the team's language, so that style gets the largest weight"},
	{"maintainers", "no", weights{Metacontroller: 2, MetacontrollerDecorator: 2},
		"maintainers outside the team: prefer the least code (a declarative sync hook) and document it well"},
	{"maintainers", "unsure", nil, "settle who maintains it before building: it matters more than any other answer"},
}

// Comparison is one style's row of the comparison table.
type Comparison struct {
	Style          string `json:"style"`
	Language       string `json:"language"`
	LearningCurve  string `json:"learningCurve"`
	Expressiveness string `json:"expressiveness"`
	Performance    string `json:"performance"`
	Idempotency    string `json:"idempotency"`
	Maturity       string `json:"maturity"`
	BestFit        string `json:"bestFit"`
}

// Comparisons returns the comparison row of every style, in AllStyles order.
func Comparisons() []Comparison {
	return []Comparison{
		{Go, "Go", "steep: controller-runtime, informers, typed clients", "anything", "best: one static binary, shared caches",
			"you: reconcile must be idempotent (CreateOrUpdate helps)", "highest: kubebuilder, operator-sdk, most production operators", "large, long-lived, performance-sensitive operators"},
		{Kopf, "Python", "gentle: decorated Python functions", "anything Python can do", "moderate: one Python process, higher memory",
			"you: handlers must be idempotent; Kopf retries and records progress", "mature, single-maintainer project", "Python teams, glue to Python SDKs and external APIs"},
		{Metacontroller, "any (HTTP webhook)", "gentle: one pure function, JSON in and out", "declarative: desired children from the parent", "good: Metacontroller does watches and applies",
			"Metacontroller: it diffs and applies what the hook returns", "stable, community-maintained", "spec → children mappings without external calls"},
		{MetacontrollerDecorator, "any (HTTP webhook)", "gentle: one pure function", "adds children to existing resources", "good: Metacontroller does watches and applies",
			"Metacontroller", "stable, community-maintained", "extending built-in or third-party resources without a CRD"},
		{ShellOperator, "bash + jq", "gentle for shell users", "limited: scripts and kubectl-style patches", "light: a Go runner executing hooks",
			"you: hooks must tolerate replays of every binding context", "mature (Flant, used by Deckhouse)", "small automations by ops teams"},
		{Ansible, "Ansible YAML", "gentle for Ansible users", "what Ansible modules can do", "heaviest: ansible-runner per reconcile",
			"Ansible modules (k8s state: present is idempotent)", "maintained by the Operator Framework", "organisations with many existing playbooks"},
	}
}
