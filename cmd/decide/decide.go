// Package decide is opctl decide: the checklist asked (or answered by
// flags) and the styles ranked for it. opctl init asks the same questions.
package decide

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/internal/runtimecosts"
	"github.com/opctl/opctl/scaffold"
)

// ChecklistFlags are the flags that answer the checklist without prompts.
type ChecklistFlags struct {
	values      map[string]*string
	answersFile string
	// stopWhenSettled: once an existing operator settles it (decide), the
	// other questions are optional.
	stopWhenSettled bool
}

func (c *ChecklistFlags) Register(cmd *cobra.Command, styles scaffold.Styles) {
	c.values = map[string]*string{}
	for _, q := range checklist.Questions(styles.Profiles()) {
		var values []string
		for _, o := range q.Options {
			values = append(values, o.Value)
		}
		usage := "answer: " + strings.Join(values, "|")
		if len(values) == 0 {
			usage = "free text"
		}
		c.values[q.ID] = cmd.Flags().String(q.ID, "", q.Prompt+" ("+usage+")")
	}
	cmd.Flags().StringVar(&c.answersFile, "answers", "", "YAML file of answers keyed like the flags (existing: no ...)")
}

// Collect gathers the answers from --answers, then the flags, then (when
// prompting) the user, asking only questions that apply. Without prompts a
// missing answer is an error that names its flag.
func (c *ChecklistFlags) Collect(env cmdutil.Env, given cmdutil.Given, prompt bool) (checklist.Answers, error) {
	return c.CollectFrom(env, given, prompt, nil)
}

// CollectFrom is Collect, each question asked starting from its answer in
// prev (the user went back to change their answers).
func (c *ChecklistFlags) CollectFrom(env cmdutil.Env, given cmdutil.Given, prompt bool, prev checklist.Answers) (checklist.Answers, error) {
	a := checklist.Answers{}
	if c.answersFile != "" {
		if err := loadAnswers(env, c.answersFile, a); err != nil {
			return nil, err
		}
	}
	for id, v := range c.values {
		if given.Set(id) {
			a[id] = *v
		}
	}
	// A wrong value is reported before a missing one: it is what the user typed.
	questions := checklist.Questions(env.Styles.Profiles())
	for _, q := range questions {
		if v, given := a[q.ID]; given && (q.AskIf == nil || q.AskIf(a)) {
			if err := checklist.ValidateAnswer(q, v); err != nil {
				return nil, cmdutil.Usage(err)
			}
		}
	}
	for _, q := range questions {
		if q.AskIf != nil && !q.AskIf(a) {
			// An answer that does not apply is dropped; but the software,
			// free text, is still looked up in the catalog.
			if len(q.Options) > 0 {
				delete(a, q.ID)
			}
			continue
		}
		if _, given := a[q.ID]; given || (!prompt && len(q.Options) == 0) {
			if err := checklist.ValidateAnswer(q, a[q.ID]); err != nil {
				return nil, cmdutil.Usage(err)
			}
			continue
		}
		if c.stopWhenSettled && checklist.Settled(a) {
			continue // the advice is to run the existing operator
		}
		if !prompt {
			// An operator said to exist that the catalog does not know
			// settles nothing: say why the checklist goes on.
			if a["existing"] == "yes" && a["software"] != "" && !checklist.Settled(a) {
				return nil, cmdutil.UsageErrorf("--software %q is not in opctl's catalog of operators, so the checklist goes on: %v when not prompting", a["software"], checklist.ValidateAnswer(q, ""))
			}
			return nil, cmdutil.Usage(fmt.Errorf("%v when not prompting", checklist.ValidateAnswer(q, "")))
		}
		v, err := askQuestion(env.Prompter, q, prev[q.ID])
		if err != nil {
			return nil, err
		}
		a[q.ID] = v
	}
	return a, nil
}

func loadAnswers(env cmdutil.Env, file string, into checklist.Answers) error {
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return cmdutil.UsageErrorf("--answers %s: %v", file, err)
	}
	var raw map[string]any
	if err := yaml.UnmarshalStrict(b, &raw); err != nil {
		return cmdutil.UsageErrorf("--answers %s: %v", file, err)
	}
	known := map[string]bool{}
	for _, q := range checklist.Questions(env.Styles.Profiles()) {
		known[q.ID] = true
	}
	for k, v := range raw {
		if !known[k] {
			return cmdutil.UsageErrorf("--answers %s: unknown question %q", file, k)
		}
		switch v := v.(type) {
		case bool: // YAML reads an unquoted yes/no as a boolean
			into[k] = map[bool]string{true: "yes", false: "no"}[v]
		default:
			into[k] = fmt.Sprint(v)
		}
	}
	return nil
}

// askQuestion prompts one checklist question, showing labels and returning
// the value.
// askQuestion asks q, starting from the answer prev when it has one.
func askQuestion(pr cmdutil.Prompter, q checklist.Question, prev string) (string, error) {
	if len(q.Options) == 0 {
		return pr.Input(q.Prompt, q.Help, prev, nil)
	}
	var labels []string
	def := q.Options[0].Label
	for _, o := range q.Options {
		labels = append(labels, o.Label)
		if o.Value == prev {
			def = o.Label
		}
	}
	label, err := pr.Select(q.Prompt, q.Help, labels, def)
	if err != nil {
		return "", err
	}
	for _, o := range q.Options {
		if o.Label == label {
			return o.Value, nil
		}
	}
	return "", fmt.Errorf("internal error: %q is not an option of %s", label, q.ID)
}

type decideOptions struct {
	cmdutil.Given
	answers      ChecklistFlags
	output       string
	domain, name string
}

// NewCmd is opctl decide; runF, when not nil, gets the options in place of
// the run function.
func NewCmd(env cmdutil.Env, runF func(*decideOptions) error) *cobra.Command {
	var o decideOptions
	cmd := &cobra.Command{
		Use:   "decide",
		Short: "Answer six questions and get the operator style that fits your team",
		Long: `Walk the decision checklist and recommend an operator style, with the
runner-up, the reason each answer contributed, the styles' comparison rows and
the opctl init command to run next.

On a terminal, decide asks what the flags leave out. Otherwise every question
that applies must be answered by a flag or by --answers FILE.`,
		Example: `  opctl decide
  opctl decide --existing no --new-crd yes --stage production --scale large \
    --language go --logic imperative --maintainers yes -o json`,
		Args: cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runDecide(env, o)
		},
	}
	o.answers.Register(cmd, env.Styles)
	cmd.Flags().StringVarP(&o.output, "output", "o", "text", "output format: text or json")
	cmd.Flags().StringVar(&o.domain, "domain", "example.com", "domain to put in the suggested init command")
	cmd.Flags().StringVar(&o.name, "name", "my-operator", "project name to put in the suggested init command")
	return cmd
}

func runDecide(env cmdutil.Env, o decideOptions) error {
	if o.output != "text" && o.output != "json" {
		return cmdutil.UsageErrorf("-o %q: want text or json", o.output)
	}
	o.answers.stopWhenSettled = true
	a, err := o.answers.Collect(env, o.Given, env.IO.Interactive)
	if err != nil {
		return err
	}
	rec, err := checklist.Recommend(env.Styles.Profiles(), a)
	if err != nil {
		return cmdutil.Usage(err)
	}
	Weigh(&rec, a, env.Styles.Profiles())
	var next []string
	if rec.Style != "" {
		next = nextCommands(env.Styles, a, rec.Style, o.domain, o.name)
	}
	if o.output == "json" {
		return printDecisionJSON(env.IO.Out, a, rec, strings.Join(next, " && "))
	}
	printDecision(env.IO.Out, rec, next)
	return nil
}

// Weigh adds to rec's caveats, for a team in production at large scale,
// where the recommended style's figures in its real runtime fall short
// (runtimecosts.ShortOf, docs/runtime-costs.md), and what the team can do:
// the style's own advice, and the runner-up where its figures do not fall
// short.
func Weigh(rec *checklist.Recommendation, a checklist.Answers, profiles []checklist.Profile) {
	if rec.Style == "" || a["stage"] != "production" || a["scale"] != "large" {
		return
	}
	measured := runtimecosts.Measured()
	short := runtimecosts.ShortOf(measured, rec.Style, rec.RunnerUp)
	if short == "" {
		return
	}
	caveat := fmt.Sprintf("%s, measured in its real runtime (docs/runtime-costs.md): %s", rec.Style, short)
	if i := slices.IndexFunc(profiles, func(p checklist.Profile) bool { return p.Style == rec.Style }); i >= 0 && profiles[i].ScaleAdvice != "" {
		caveat += "; " + profiles[i].ScaleAdvice
	}
	if summary := runtimecosts.Summary(measured, rec.RunnerUp); summary != "not measured" && runtimecosts.ShortOf(measured, rec.RunnerUp, rec.Style) == "" {
		caveat += fmt.Sprintf("; or the runner-up, %s (%s)", rec.RunnerUp, summary)
	}
	rec.Caveats = append(rec.Caveats, checklist.Reason{Question: "scale", Answer: "large", Reason: caveat})
}

// nextCommands are the exact command lines that scaffold the recommendation:
// init and, when no new CRD is wanted, a first use of an existing kind, so
// that what decide prints runs as it is (a test runs every one of them).
func nextCommands(styles scaffold.Styles, a checklist.Answers, style, domain, name string) []string {
	cmds := []string{InitCommand(styles, style, domain, name)}
	s, err := styles.Lookup(style)
	if existing := ExistingKindExample(s); err == nil && a["new-crd"] == "no" && existing != "" {
		cmds = append(cmds, "cd "+name+" && "+existing)
	}
	return cmds
}

// InitCommand is the exact command that creates a project of the style.
func InitCommand(styles scaffold.Styles, style, domain, name string) string {
	s, err := styles.Lookup(style)
	cmd := "opctl init --style " + style
	if err != nil || !s.ExistingKinds {
		cmd += " --domain " + domain
	}
	cmd += " --name " + name
	if err == nil && s.ModulePath {
		cmd += fmt.Sprintf(" --repo %s/%s", domain, name)
	}
	return cmd + " " + name
}

// ExistingKindExample is a runnable create api for an existing kind in a
// Style that serves them (empty for the others).
func ExistingKindExample(s scaffold.Style) string {
	switch {
	case s.ExistingKinds:
		return "opctl create api --target apps/v1/Deployment --selector app-type=web --owns Service"
	case s.Watches:
		return "opctl create api --target v1/Secret --selector sync=vault"
	}
	return ""
}

// decisionJSON is the -o json schema of opctl decide.
type decisionJSON struct {
	Answers checklist.Answers `json:"answers"`
	checklist.Recommendation
	Next string `json:"next"`
}

func printDecisionJSON(w io.Writer, a checklist.Answers, rec checklist.Recommendation, next string) error {
	// next is a shell line: its && stays readable.
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(decisionJSON{Answers: a, Recommendation: rec, Next: next})
}

func printDecision(w io.Writer, rec checklist.Recommendation, next []string) {
	if rec.UseExisting {
		fmt.Fprintln(w, "An operator already exists for this: run it instead of building one.")
	}
	if len(rec.Candidates) > 0 {
		fmt.Fprintln(w, "Well-maintained operators to consider first:")
		for _, c := range rec.Candidates {
			fmt.Fprintf(w, "  %s: %s  %s\n", c.Software, c.Project, c.Site)
		}
		fmt.Fprintln(w)
	}
	if rec.Style == "" {
		fmt.Fprintln(w, "If none fits and you build anyway, answer the other questions (--existing no, --new-crd ...) for a style.")
		return
	}
	if rec.UseExisting {
		fmt.Fprintln(w, "If it does not fit and you build anyway:")
	}
	fmt.Fprintf(w, "Recommended style: %s\nRunner-up:         %s\n\nWhy, answer by answer:\n", rec.Style, rec.RunnerUp)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range rec.Reasons {
		fmt.Fprintf(tw, "  %s=%s\t%s\n", r.Question, r.Answer, r.Reason)
	}
	tw.Flush()
	if len(rec.Caveats) > 0 {
		fmt.Fprintf(w, "\nAgainst it:\n")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, r := range rec.Caveats {
			fmt.Fprintf(tw, "  %s=%s\t%s\n", r.Question, r.Answer, r.Reason)
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	a, b := rec.Comparison[0], rec.Comparison[1]
	// In the real runtimes, by make bench-runtimes (docs/runtime-costs.md).
	measured := runtimecosts.Measured()
	rows := [][3]string{
		{"", a.Style, b.Style},
		{"language", a.Language, b.Language},
		{"learning curve", a.LearningCurve, b.LearningCurve},
		{"expressiveness", a.Expressiveness, b.Expressiveness},
		{"performance", a.Performance, b.Performance},
		{"idempotency", a.Idempotency, b.Idempotency},
		{"maturity", a.Maturity, b.Maturity},
		{"best fit", a.BestFit, b.BestFit},
		{"measured", runtimecosts.Summary(measured, a.Style), runtimecosts.Summary(measured, b.Style)},
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r[0], r[1], r[2])
	}
	tw.Flush()
	fmt.Fprintf(w, "\nNext:\n  %s\n", strings.Join(next, "\n  "))
}
