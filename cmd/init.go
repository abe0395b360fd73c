package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/scaffold"
)

type initOptions struct {
	style, domain, name, repo string
	yes                       bool
	write                     writeFlags
}

func newInitCmd(env Env) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a new operator project",
		Long: `Create a new operator project in DIR (default: the current directory).

On a terminal, init asks for what the flags leave out. With --yes, or when
not on a terminal, it never prompts and a missing answer is an error that
names its flag.`,
		Example: `  opctl init --style go --domain example.com --name db-operator --repo example.com/db-operator --yes ./demo`,
		Args:    maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(env.Dir, dir)
			}
			return runInit(env, dir, o, cmd.Flags().Changed("name"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.style, "style", "", "operator style: "+strings.Join(scaffold.StyleNames(), ", "))
	f.StringVar(&o.domain, "domain", "", "domain of the API groups (e.g. example.com)")
	f.StringVar(&o.name, "name", "", "project name, used for labels, namespace and image (default: the directory name)")
	f.StringVar(&o.repo, "repo", "", "Go module path, for the go style (default: <domain>/<name>)")
	f.BoolVarP(&o.yes, "yes", "y", false, "accept defaults and never prompt")
	o.write.register(cmd)
	return cmd
}

func runInit(env Env, dir string, o initOptions, nameGiven bool) error {
	if _, err := os.Stat(filepath.Join(dir, scaffold.ProjectFileName)); err == nil && !o.write.force {
		return usageErrorf("%s already has %s: add kinds with opctl create api, or use --force to start over", dir, scaffold.ProjectFileName)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !nameGiven {
		o.name = filepath.Base(dir)
	}
	interactive := env.IO.Interactive && !o.yes
	if interactive {
		if err := askInit(env.Prompter, &o); err != nil {
			return err
		}
	}
	if o.style == "" {
		return usageErrorf("--style is required when not prompting (styles: %s)", strings.Join(scaffold.StyleNames(), ", "))
	}
	if _, err := scaffold.LookupStyle(o.style); err != nil {
		return usageErrorf("--style %q: %v", o.style, err)
	}
	if o.domain == "" {
		return usageErrorf("--domain is required when not prompting (e.g. --domain example.com)")
	}
	if o.repo == "" {
		o.repo = o.domain + "/" + o.name
	}
	p := scaffold.Project{Name: o.name, Domain: o.domain, Style: o.style, Versions: scaffold.DefaultVersions()}
	if o.style == "go" {
		p.Repo = o.repo
	}
	if err := p.Validate(scaffold.FlagSource); err != nil {
		return err
	}
	if err := renderAndWrite(env.IO.Out, dir, p, o.write); err != nil {
		return err
	}
	if !o.write.dryRun {
		fmt.Fprintf(env.IO.Out, "\nNext: cd %s && opctl create api --group GROUP --version v1 --kind KIND --field NAME:TYPE\n", dir)
	}
	return nil
}

// askInit prompts for what the flags left out.
func askInit(pr Prompter, o *initOptions) error {
	var err error
	if o.style == "" {
		if o.style, err = pr.Select("Operator style", "opctl styles describes each one", scaffold.StyleNames(), ""); err != nil {
			return err
		}
	}
	if o.domain == "" {
		if o.domain, err = pr.Input("Domain of your API groups", "API groups are <group>.<domain>, e.g. myapp.example.com", ""); err != nil {
			return err
		}
	}
	if o.name, err = pr.Input("Project name", "used for labels, the namespace and the image", o.name); err != nil {
		return err
	}
	if o.style == "go" && o.repo == "" {
		if o.repo, err = pr.Input("Go module path", "", o.domain+"/"+o.name); err != nil {
			return err
		}
	}
	return nil
}
