package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/apicompat"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
)

// generateOptions are opctl generate's.
type generateOptions struct {
	cmdutil.Given
	write cmdutil.WriteFlags
}

// NewGenerateCmd is opctl generate; runF, when not nil, gets the options
// in place of the run function.
func NewGenerateCmd(env cmdutil.Env, runF func(*generateOptions) error) *cobra.Command {
	var o generateOptions
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Re-render every generated file of the project in the current directory from opctl.yaml",
		Long: `Re-render every generated file from opctl.yaml, for example after editing it
or upgrading opctl. Files you own are left alone; generated files edited by
hand are reported and left alone unless --force. Generated files the project
no longer produces (a kind taken out of opctl.yaml) are removed when unchanged.

In the go style the types in api/ are yours: after make manifests has
written a kind's CRD from them again, generate first takes the kind back
from that CRD into opctl.yaml (as edit api --from-crd does), refusing a
change that breaks a served stable version.`,
		Args: cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runGenerate(env, o)
		},
	}
	o.write.Register(cmd)
	return cmd
}

func runGenerate(env cmdutil.Env, o generateOptions) error {
	p, style, err := cmdutil.LoadProject(env)
	if err != nil {
		return err
	}
	if style.TypesFile != nil {
		if p, err = takeBackFromCode(env, p, style); err != nil {
			return err
		}
	}
	return cmdutil.RenderAndWrite(o.Ctx, env, env.Dir, p, o.write, nil)
}

// takeBackFromCode takes back each kind whose CRD the project's own tool
// (make manifests) wrote again since opctl did (cmdutil.TakeBack).
func takeBackFromCode(env cmdutil.Env, p scaffold.Project, style scaffold.Style) (scaffold.Project, error) {
	for _, a := range p.APIs {
		path := render.CRDPath(p, a)
		b, err := os.ReadFile(filepath.Join(env.Dir, filepath.FromSlash(path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return p, err
		case p.Generated[path] == "" || p.Generated[path] == machinery.ContentHash(b):
			continue // opctl's own, unchanged
		}
		edited, old, err := cmdutil.TakeBack(env, p, style, a.Kind, path)
		if err != nil {
			return p, err
		}
		now := edited.APIs[slices.IndexFunc(edited.APIs, func(e api.API) bool { return e.Kind == a.Kind })]
		if breaks := apicompat.Check(old, now); len(breaks) > 0 {
			b := breaks[0]
			if !apicompat.Prerelease(a.Version) {
				return p, input.Errorf("%s: %s %q breaks %s of %s, which is served: %s; undo that change in the types, or make it in a new version of %s (opctl edit api --kind %s --new-version VERSION)",
					path, b.Key, b.Value, a.Version, a.Kind, b.Why, a.Kind, a.Kind)
			}
			fmt.Fprintf(env.IO.ErrOut, "opctl: warning: %s: %s %q breaks %s of %s (allowed, a pre-release version): %s\n", path, b.Key, b.Value, a.Version, a.Kind, b.Why)
		}
		fmt.Fprintf(env.IO.Out, "taken back: %s from %s\n", a.Kind, path)
		p = edited
	}
	return p, nil
}
