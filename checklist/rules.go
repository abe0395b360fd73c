package checklist

// rule is one row of the decision table: an answer and the general reason
// shown when it is given, in words that name no style (a style's own
// reason for an answer, and the points it gives, are part of its Profile).
type rule struct {
	question, answer string
	reason           string
}

// rules is the decision table; the README reproduces it. The language
// answers bring their own reasons (Language).
var rules = []rule{
	{"existing", "no", "nothing to reuse, so an operator of your own is justified"},
	{"existing", "yes", "run the existing operator instead of writing one; the ranking below is for when it does not fit"},
	{"existing", "unsure", "check the catalog and OperatorHub before building: a maintained operator beats a new one"},

	{"new-crd", "yes", "a new API of your own: a style that scaffolds a CRD; a decorator only extends existing resources"},
	{"new-crd", "no", "no new CRD: only the styles that react to existing resources are recommended, the least machinery first"},

	{"stage", "prototype", "a prototype wants the shortest path to a working loop: the styles with the least code"},
	{"stage", "production", "production: what the team can operate and extend for years matters more than speed of writing"},
	{"scale", "small", "modest scale: every style copes, none is ruled out by resources"},
	{"scale", "large", "large or long-lived: a compiled, typed operator has the lowest footprint and the richest tooling"},

	{"logic", "declarative", "declarative: a style that computes the diff and applies children for you; elsewhere you write create-or-update yourself"},
	{"logic", "imperative", "imperative steps, state machines and external calls need a general-purpose reconcile loop"},

	{"maintainers", "yes", "maintainers can fix code in the team's language, so that style gets the largest weight"},
	{"maintainers", "no", "maintainers outside the team: prefer the least code (a declarative sync hook) and document it well"},
	{"maintainers", "unsure", "settle who maintains it before building: it matters more than any other answer"},
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

// generalReason is the reason shown for an answer, whichever style it
// favours: its rule's, or a language's own.
func generalReason(profiles []Profile, question, answer string) string {
	for _, r := range rules {
		if r.question == question && r.answer == answer {
			return r.reason
		}
	}
	if question == "language" {
		for _, l := range languages(profiles) {
			if l.Value == answer {
				return l.Reason
			}
		}
	}
	return ""
}
