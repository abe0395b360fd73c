// Package project holds the commands that make or move a whole project:
// init (asking for its first kind), generate, upgrade, migrate and verify.
package project

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/mod/modfile"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/cmd/decide"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/naming"
	"github.com/opctl/opctl/scaffold/pins"
)

type initOptions struct {
	cmdutil.Given
	// dir is where the project goes.
	dir                       string
	style, domain, name, repo string
	scope                     string
	yes                       bool
	nameGiven, resyncGiven    bool
	scopeGiven                bool
	domainGiven               bool
	resyncSeconds             int32
	answers                   decide.ChecklistFlags
	write                     cmdutil.WriteFlags
}

// NewInitCmd is opctl init; runF, when not nil, gets the options in place
// of the run function.
func NewInitCmd(env cmdutil.Env, runF func(*initOptions) error) *cobra.Command {
	o := initOptions{}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a new operator project",
		Long: `Create a new operator project in DIR (default: the current directory).

On a terminal, init walks the decision checklist (skip it with --style),
shows the recommendation, asks for the project and its first API field by
field, shows the files it will write and asks for confirmation. The result is
byte-identical to init + create api with flags.

With --yes, or when not on a terminal, init never prompts: a missing answer is
an error that names its flag, and only the project skeleton is written (add
kinds with opctl create api).`,
		Example: "  opctl init\n  " + decide.InitCommand(env.Styles, env.Styles[0].Name, "example.com", "db-operator") + " --yes",
		Args:    cmdutil.MaxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(env.Dir, dir)
			}
			o.Given, o.dir = cmdutil.GivenBy(cmd), dir
			if runF != nil {
				return runF(&o)
			}
			return runInit(env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.style, "style", "", "operator style: "+strings.Join(env.Styles.Names(), ", ")+" (skips the checklist)")
	cmdutil.CompleteFlag(cmd, "style", cmdutil.OneOf(env.Styles.Names))
	f.StringVar(&o.domain, "domain", "", "domain of the API groups (e.g. example.com; not for "+cmdutil.DecoratorStyles(env.Styles)+", which add none)")
	f.StringVar(&o.name, "name", "", "project name, used for labels, namespace and image (default: the directory name)")
	f.StringVar(&o.repo, "repo", "", cmdutil.StylesWith(env.Styles, func(s scaffold.Style) bool { return s.ModulePath })+": Go module path (default: <domain>/<name>)")
	f.StringVar(&o.scope, "scope", scaffold.ScopeCluster, "where the operator sees its kinds: "+scaffold.ScopeCluster+" (every namespace, with ClusterRoles) or "+scaffold.ScopeNamespace+
		" (the namespace it runs in alone, with Roles there; "+cmdutil.StylesWith(env.Styles, func(s scaffold.Style) bool { return s.CannotScopeNamespace == "" && !s.ExistingKinds })+")")
	cmdutil.CompleteFlag(cmd, "scope", cmdutil.OneOf(func() []string { return []string{scaffold.ScopeCluster, scaffold.ScopeNamespace} }))
	f.Int32Var(&o.resyncSeconds, "resync-seconds", scaffold.DefaultResyncSeconds, cmdutil.StylesWith(env.Styles, func(s scaffold.Style) bool { return s.Resync })+": how often every object is re-synced")
	f.BoolVarP(&o.yes, "yes", "y", false, "accept defaults and never prompt")
	o.answers.Register(cmd, env.Styles)
	o.write.Register(cmd)
	return cmd
}

func runInit(env cmdutil.Env, o initOptions) error {
	dir := o.dir
	o.nameGiven, o.resyncGiven = o.Set("name"), o.Set("resync-seconds")
	o.domainGiven, o.scopeGiven = o.Set("domain"), o.Set("scope")
	if !o.nameGiven {
		o.name = filepath.Base(dir)
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return cmdutil.UsageErrorf("%s is a file: init needs a directory (new or existing)", dir)
	}
	// Starting over would leave the old kinds' files behind a project file
	// that no longer knows them, so init never replaces a project.
	if _, err := os.Stat(filepath.Join(dir, scaffold.ProjectFileName)); err == nil {
		return cmdutil.UsageErrorf("%s already has %s: add kinds with opctl create api, re-render with opctl generate, or remove %s to start over", dir, scaffold.ProjectFileName, scaffold.ProjectFileName)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// A Makefile of the user's would be kept, and the project's workflow,
	// README and own tests would call targets it lacks (make test).
	if _, err := os.Stat(filepath.Join(dir, "Makefile")); err == nil {
		return cmdutil.UsageErrorf("%s already has a Makefile: the project's workflow and README run the targets opctl writes into its own (make test); move yours aside (then add its targets to opctl's), or init in another directory", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	found, err := existingModule(dir)
	if err != nil {
		return err
	}
	if found != "" && o.style != "" {
		if style, err := env.Styles.Lookup(o.style); err == nil && style.ModulePath {
			// The code opctl writes imports the module's own packages: they
			// must be the go.mod's, which init keeps.
			if o.repo != "" && o.repo != found {
				return cmdutil.UsageErrorf("--repo %q: %s is module %s, which init keeps: give --repo %s, or init in another directory", o.repo, filepath.Join(dir, "go.mod"), found, found)
			}
			o.repo = found
		}
	}
	prompt := env.IO.Interactive && !o.yes
	// Going back asks every question again, from the flags as given.
	flags := o
	var prev initAnswers
	var p scaffold.Project
	for {
		o = flags
		if p, err = initProject(env, dir, &o, prompt, &prev); !errors.Is(err, errGoBack) {
			break
		}
	}
	if err != nil {
		return err
	}
	if found != "" && p.Repo == found && !o.write.DryRun {
		fmt.Fprintf(env.IO.Out, "note: go.mod (module %s) was there already and is kept: run go mod tidy to add the modules the project needs\n", found)
	}
	if !o.write.DryRun && !prompt {
		style, _ := env.Styles.Lookup(p.Style) // the project was validated against the registry
		next := "opctl create api --group GROUP --version v1 --kind KIND --field NAME:TYPE"
		if style.ExistingKinds {
			next = decide.ExistingKindExample(style)
		}
		fmt.Fprintf(env.IO.Out, "\nNext: cd %s && %s\n", dir, next)
		if style.Watches {
			fmt.Fprintf(env.IO.Out, "  or, to react to an existing kind: opctl create api --target v1/Secret --namespace NS --selector KEY=VALUE\n")
		}
	}
	return nil
}

// errGoBack is the user's choice, at init's last question, to answer the
// questions again.
var errGoBack = errors.New("going back to the questions")

// initProject asks what the flags left out (when prompt; prev holds the
// answers of a pass before, the defaults of this one, and gets this pass's
// answers), then renders and writes the project. errGoBack: the user
// chose to change the answers.
func initProject(env cmdutil.Env, dir string, o *initOptions, prompt bool, prev *initAnswers) (scaffold.Project, error) {
	var answers initAnswers
	if prompt {
		var err error
		if answers, err = askInit(env, o, *prev); err != nil {
			return scaffold.Project{}, err
		}
	}
	p, err := o.project(env.Styles)
	if err != nil {
		return p, err
	}
	if p, err = answers.addFirst(p); err != nil {
		return p, err
	}
	var confirm func(int) error
	if prompt {
		confirm = func(n int) error {
			ok, err := env.Prompter.Confirm(fmt.Sprintf("Write these %d files to %s?", n, dir), true)
			if err != nil || ok {
				return err
			}
			back, err := env.Prompter.Confirm("Go back and change your answers? (each question starts from your answer)", false)
			if err != nil {
				return err
			}
			if back {
				*prev = answers
				return errGoBack
			}
			// The answers need not be given again.
			shown := dir
			if rel, err := filepath.Rel(env.Dir, dir); err == nil {
				shown = rel
			}
			style, _ := env.Styles.Lookup(p.Style) // validated with the project
			if line, ok := equivalentCommand(shown, p, style); ok {
				fmt.Fprintf(env.IO.Out, "To write this project later without the questions:\n%s\n", line)
			}
			return cmdutil.ErrCancelled
		}
	}
	return p, cmdutil.RenderAndWrite(o.Ctx, env, dir, p, o.write, confirm)
}

// existingModule is the module path of dir's go.mod, "" when it has none.
func existingModule(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	path := modfile.ModulePath(b)
	if path == "" {
		return "", cmdutil.UsageErrorf("%s has no module line: fix it, or init in another directory", filepath.Join(dir, "go.mod"))
	}
	return path, nil
}

// Project checks the init flags (or answers) and builds the project.
func (o initOptions) project(styles scaffold.Styles) (scaffold.Project, error) {
	if o.style == "" {
		return scaffold.Project{}, cmdutil.UsageErrorf("--style is required when not prompting (styles: %s)", strings.Join(styles.Names(), ", "))
	}
	style, err := styles.Lookup(o.style)
	if err != nil {
		return scaffold.Project{}, cmdutil.UsageErrorf("--style %q: %v", o.style, err)
	}
	if o.domain == "" && !style.ExistingKinds {
		return scaffold.Project{}, cmdutil.UsageErrorf("--domain is required when not prompting (e.g. --domain example.com)")
	}
	// A flag the style has no use for would be dropped without a word.
	switch {
	case o.repo != "" && !style.ModulePath:
		return scaffold.Project{}, cmdutil.UsageErrorf("--repo is the Go module path of %s projects; %s projects have none", cmdutil.StylesWith(styles, func(s scaffold.Style) bool { return s.ModulePath }), o.style)
	case o.domainGiven && style.ExistingKinds:
		return scaffold.Project{}, cmdutil.UsageErrorf("--domain names the API groups of a project's own kinds; %s projects decorate existing kinds and add none", o.style)
	case o.resyncGiven && !style.Resync:
		return scaffold.Project{}, cmdutil.UsageErrorf("--resync-seconds is for %s projects; %s projects re-sync as their runtime does", cmdutil.StylesWith(styles, func(s scaffold.Style) bool { return s.Resync }), o.style)
	}
	p := scaffold.Project{Name: o.name, Domain: o.domain, Version: scaffold.DefaultVersion, Style: o.style, Versions: pins.DefaultVersions()}
	if o.scope != scaffold.ScopeCluster {
		// The default is written as nothing; any other value is checked
		// with the project.
		p.Scope = o.scope
	}
	if style.Resync {
		if o.resyncSeconds < 1 {
			return scaffold.Project{}, cmdutil.UsageErrorf("--resync-seconds %d: must be at least 1", o.resyncSeconds)
		}
		p.ResyncSeconds = o.resyncSeconds
	}
	if style.ModulePath {
		p.Repo = o.repo
		if p.Repo == "" {
			p.Repo = o.domain + "/" + o.name
		}
	}
	src := input.FlagSource
	if !o.nameGiven {
		// The name came from the directory, not from a flag.
		src = func(key string) string {
			if key == "name" {
				return "directory name (the project name without --name)"
			}
			return input.FlagSource(key)
		}
	}
	return p, p.Validate(src, styles)
}

// initAnswers are the answers of one pass of init's questions: the first
// API or decorator to add, and, when the user goes back, the defaults of
// the next pass.
type initAnswers struct {
	style              string
	checklist          checklist.Answers
	domain, name, repo string
	scope              string
	api                *api.API
	decorator          *scaffold.Decorator
}

// addFirst adds the API or decorator answered to p.
func (a initAnswers) addFirst(p scaffold.Project) (scaffold.Project, error) {
	switch {
	case a.decorator != nil:
		return p.AddDecorator(input.FlagSource, *a.decorator)
	case a.api != nil:
		return p.AddAPI(input.FlagSource, *a.api)
	}
	return p, nil
}

// askInit prompts for everything the flags left out: the checklist and
// Style, the project metadata, and the first API (or decorator). Each
// question starts from prev's answer, when the user went back.
func askInit(env cmdutil.Env, o *initOptions, prev initAnswers) (initAnswers, error) {
	pr := env.Prompter
	var err error
	var asked checklist.Answers
	if o.style == "" {
		if o.style, asked, err = chooseStyle(env, o, prev); err != nil {
			return prev, err
		}
	}
	style, err := env.Styles.Lookup(o.style)
	if err != nil {
		return prev, cmdutil.UsageErrorf("--style %q: %v", o.style, err)
	}
	if o.domain == "" && !style.ExistingKinds {
		if o.domain, err = pr.Input("Domain of your API groups", "API groups are <group>.<domain>, e.g. myapp.example.com", prev.domain, checkAnswer(naming.ValidateDomain)); err != nil {
			return prev, err
		}
	}
	if !o.nameGiven {
		if o.name, err = pr.Input("Project name", "used for labels, the namespace <name>-system and the image", cmp.Or(prev.name, o.name), checkAnswer(style.ValidateName)); err != nil {
			return prev, err
		}
	}
	if style.ModulePath && o.repo == "" {
		if o.repo, err = pr.Input("Go module path", "the module line of go.mod", cmp.Or(prev.repo, o.domain+"/"+o.name), checkAnswer(naming.ValidateRepo)); err != nil {
			return prev, err
		}
	}
	if !o.scopeGiven && style.CannotScopeNamespace == "" && !style.ExistingKinds {
		options := []string{scaffold.ScopeCluster, scaffold.ScopeNamespace}
		if o.scope, err = pr.Select("Where the operator sees its kinds", "cluster: every namespace, with ClusterRoles; namespace: the namespace it runs in alone, with Roles there", options, cmp.Or(prev.scope, scaffold.ScopeCluster)); err != nil {
			return prev, err
		}
	}
	answers := initAnswers{style: o.style, checklist: asked, domain: o.domain, name: o.name, repo: o.repo, scope: o.scope}
	if style.ExistingKinds {
		d, err := askDecorator(pr, prev.decorator)
		answers.decorator = &d
		return answers, err
	}
	api, err := askAPI(pr, o.domain, prev.api)
	answers.api = &api
	return answers, err
}

// checkAnswer adapts a flag validator to a prompt validator.
func checkAnswer(check func(input.Source, string) error) func(string) error {
	return func(v string) error { return cmdutil.PromptError(check(input.FlagSource, v)) }
}

// chooseStyle walks the checklist, shows the recommendation and lets the
// user accept it or pick another style. Going back, each question starts
// from prev's answer, and the style from prev's pick while the answers
// are the same.
func chooseStyle(env cmdutil.Env, o *initOptions, prev initAnswers) (string, checklist.Answers, error) {
	answers, err := o.answers.CollectFrom(env, o.Given, true, prev.checklist)
	if err != nil {
		return "", nil, err
	}
	rec, err := checklist.Recommend(env.Styles.Profiles(), answers)
	if err != nil {
		return "", nil, cmdutil.Usage(err)
	}
	decide.Weigh(&rec, answers, env.Styles.Profiles())
	w := env.IO.Out
	fmt.Fprintf(w, "\nRecommended style: %s (runner-up: %s)\n", rec.Style, rec.RunnerUp)
	for _, r := range rec.Reasons {
		fmt.Fprintf(w, "  - %s\n", r.Reason)
	}
	for _, r := range rec.Caveats {
		fmt.Fprintf(w, "  - against it: %s\n", r.Reason)
	}
	for _, c := range rec.Candidates {
		fmt.Fprintf(w, "  Consider running %s (%s) instead: %s\n", c.Project, c.Software, c.Site)
	}
	fmt.Fprintln(w)
	styles := env.Styles.Names()
	def := styles[0]
	for _, s := range styles {
		if s == rec.Style {
			def = s
		}
	}
	help := "the recommendation is preselected; opctl styles describes each"
	if prev.style != "" && maps.Equal(prev.checklist, answers) {
		def, help = prev.style, "your answer is preselected; opctl styles describes each"
	}
	style, err := env.Prompter.Select("Style to scaffold", help, styles, def)
	return style, answers, err
}
