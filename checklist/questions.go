// Package checklist is opctl's decision checklist: six questions about the
// team and the problem, and Recommend, which ranks the operator styles from
// the answers. Each style brings its own Profile (comparison row and points
// per answer) from the style registry; the checklist knows no style by name.
// It does no I/O.
package checklist

// Option is one possible answer.
type Option struct {
	Value string // what flags and answer files use
	Label string // what a prompt shows
}

// Question is one item of the checklist.
type Question struct {
	ID     string // key in answer files and JSON; the flag is --<ID>
	Prompt string
	Help   string
	// Options lists the answers; the first is the default.
	Options []Option
	// AskIf skips the question when it returns false for the answers so far.
	AskIf func(Answers) bool
}

// Answers maps question IDs to answer values, as flags, answer files and
// prompts produce them.
type Answers map[string]string

// Language is a team language a style is written in: the checklist's
// language question offers it, with its label and the general reason
// shown when a team answers it.
type Language struct {
	Value, Label, Reason string
}

// other is the language answer of a team no style is written for.
var other = Language{"other", "something else", "another language: a style whose hook is a plain HTTP webhook, in any language"}

// languages are the language answers: each language a style of profiles
// is written in, in the registry's order, then other.
func languages(profiles []Profile) []Language {
	var out []Language
	seen := map[string]bool{}
	for _, p := range profiles {
		for _, l := range p.Languages {
			if !seen[l.Value] {
				seen[l.Value] = true
				out = append(out, l)
			}
		}
	}
	return append(out, other)
}

// Questions returns the checklist in the order it is asked, its language
// answers those of the styles of profiles. "software" is a free-text
// follow-up of "existing" (it has no options; given as a flag, it is
// looked up whatever "existing" says); "scale" follows a production
// "stage".
func Questions(profiles []Profile) []Question {
	var spoken []Option
	for _, l := range languages(profiles) {
		spoken = append(spoken, Option{l.Value, l.Label})
	}
	return []Question{
		{
			ID:     "existing",
			Prompt: "Is there already a well-maintained operator for this software?",
			Help:   "Databases, message queues, monitoring and certificates usually have mature operators. Running one is far cheaper than writing and maintaining your own.",
			Options: []Option{
				{"no", "no, nothing fits"},
				{"yes", "yes, one exists"},
				{"unsure", "not sure"},
			},
		},
		{
			ID:     "software",
			Prompt: "What software are you automating? (e.g. PostgreSQL, Kafka; empty to skip)",
			Help:   "opctl looks it up in a small catalog of well-known operators.",
			AskIf:  func(a Answers) bool { return a["existing"] != "no" },
		},
		{
			ID:     "new-crd",
			Prompt: "Do you need a new custom resource (CRD), or is automating built-in resources enough?",
			Help:   "A new CRD gives users their own API (kind: Database). Reacting to Deployments, Secrets or ConfigMaps that already exist needs no CRD.",
			Options: []Option{
				{"yes", "a new CRD"},
				{"no", "built-in resources are enough"},
			},
		},
		{
			ID:     "stage",
			Prompt: "Is this a prototype or for production?",
			Help:   "Prototypes favour the fastest path to something working; production favours what you can operate and extend for years.",
			Options: []Option{
				{"production", "production"},
				{"prototype", "prototype"},
			},
		},
		{
			ID:     "scale",
			Prompt: "In production, will it be large-scale or long-lived?",
			Help:   "Thousands of objects, tight resource budgets or many years of life favour a compiled, typed controller.",
			Options: []Option{
				{"small", "no: modest scale"},
				{"large", "yes: large scale or long-lived"},
			},
			AskIf: func(a Answers) bool { return a["stage"] == "production" },
		},
		{
			ID:      "language",
			Prompt:  "What is the team's main language?",
			Help:    "Operators are maintained for years: write them in what the team already knows.",
			Options: spoken,
		},
		{
			ID:     "logic",
			Prompt: "Is the logic declarative or imperative?",
			Help:   `Declarative: "this spec becomes these children", computed from the spec alone. Imperative: ordered steps, state machines, calls to external APIs.`,
			Options: []Option{
				{"declarative", "declarative: spec in, children out"},
				{"imperative", "imperative: steps, state, external calls"},
			},
		},
		{
			ID:     "maintainers",
			Prompt: "Can the people who will maintain it for years read and fix code in the team's language?",
			Help:   "The most important question: an operator nobody can fix is worse than a slower one they can.",
			Options: []Option{
				{"yes", "yes"},
				{"no", "no, others will maintain it"},
				{"unsure", "not sure"},
			},
		},
	}
}
