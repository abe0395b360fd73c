package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/migrate"
	"github.com/opctl/opctl/scaffold/render"
)

type migrateOptions struct {
	cmdutil.Given
	// dir is where the new project goes.
	dir              string
	to, domain, repo string
	write            cmdutil.WriteFlags
}

// NewMigrateCmd is opctl migrate; runF, when not nil, gets the options in
// place of the run function.
func NewMigrateCmd(env cmdutil.Env, runF func(*migrateOptions) error) *cobra.Command {
	var o migrateOptions
	cmd := &cobra.Command{
		Use:   "migrate --to STYLE DIR",
		Short: "Write the project in the current directory again, in another style, into DIR",
		Long: `Write the project in the current directory again in another style, into DIR
(new, or without an opctl.yaml), and leave the original untouched. The kinds
stay as they are, so the CRDs and samples are byte for byte the same (checked);
the conformance cases in test/conformance, yours included, are copied as
they are, and the new style's tests run them; the code is the new style's
starter code, with its RBAC and Deployment.

Then it reports what carried over, the files of the original that hold your
logic to port (the starter files you changed, by the hashes opctl.yaml
recorded, and the files you added), what the new runtime needs in the
cluster, and how it behaves unlike the old one.`,
		Example: "  opctl migrate --to go ../db-operator-go",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.UsageErrorf("%s takes the directory to write the new project into, got %q", cmd.CommandPath(), args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Given, o.dir = cmdutil.GivenBy(cmd), args[0]
			if !filepath.IsAbs(o.dir) {
				o.dir = filepath.Join(env.Dir, o.dir)
			}
			if runF != nil {
				return runF(&o)
			}
			return runMigrate(env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.to, "to", "", "the style to move to: "+strings.Join(env.Styles.Names(), ", "))
	cmdutil.CompleteFlag(cmd, "to", cmdutil.OneOf(env.Styles.Names))
	f.StringVar(&o.domain, "domain", "", "domain of the API groups, when the project has none (a decorator project)")
	f.StringVar(&o.repo, "repo", "", cmdutil.StylesWith(env.Styles, func(s scaffold.Style) bool { return s.ModulePath })+": Go module path (default: the project's, else <domain>/<name>)")
	o.write.Register(cmd)
	return cmd
}

func runMigrate(env cmdutil.Env, o migrateOptions) error {
	dir := o.dir
	if o.to == "" {
		return cmdutil.UsageErrorf("--to is required (styles: %s)", strings.Join(env.Styles.Names(), ", "))
	}
	to, err := env.Styles.Lookup(o.to)
	if err != nil {
		return cmdutil.UsageErrorf("--to %q: %v", o.to, err)
	}
	p, from, err := cmdutil.LoadProject(env)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, scaffold.ProjectFileName)); err == nil {
		// The project itself among them: migrate leaves it untouched.
		return cmdutil.UsageErrorf("%s already has %s: migrate writes a new project; choose another directory", dir, scaffold.ProjectFileName)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if p.Domain == "" && o.domain == "" && !to.ExistingKinds {
		return cmdutil.UsageErrorf("--domain is required: the project has none, and %s projects need one (e.g. --domain example.com)", to.Name)
	}
	m, err := migrate.To(p, input.FlagSource, from, to, env.Styles, o.domain, o.repo)
	if err != nil {
		return err
	}
	// Read before writing: dir may be inside the project.
	changed, added, err := migrate.YourChanges(env.Dir, p)
	if err != nil {
		return err
	}
	cases, err := cmdutil.ReadTree(env.Dir, render.ConformanceDir)
	if err != nil {
		return err
	}
	if err := cmdutil.RenderAndWrite(o.Ctx, env, dir, m.Project, o.write, nil); err != nil || o.write.DryRun {
		return err
	}
	carried, err := carriedOver(env.Dir, dir, m.Project)
	if err != nil {
		return err
	}
	// The conformance cases as they are, yours included: the new style's
	// tests run them.
	for _, path := range slices.Sorted(maps.Keys(cases)) {
		target := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, cases[path], 0o644); err != nil {
			return err
		}
		carried = append(carried, path)
	}
	changed, added = withoutCases(changed), withoutCases(added)
	r := migrationReport{From: from, To: to, Dir: dir, Carried: carried, Changed: changed, Added: added, Dropped: m.Dropped,
		Needs: migrate.NewPrerequisites(p, from, m.Project, to), Differences: migrate.Differences(p, from, to)}
	return r.print(env.IO.Out)
}

// withoutCases leaves out the conformance cases: they carry over.
func withoutCases(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !strings.HasPrefix(p, render.ConformanceDir+"/") {
			out = append(out, p)
		}
	}
	return out
}

// carriedOver checks that each kind's CRD and sample in the new project is
// byte for byte the original's, and lists them.
func carriedOver(oldDir, newDir string, p scaffold.Project) ([]string, error) {
	var out []string
	for _, a := range p.APIs {
		for _, path := range []string{render.CRDPath(p, a), render.SamplePath(p, a)} {
			old, err := os.ReadFile(filepath.Join(oldDir, filepath.FromSlash(path)))
			if err != nil {
				return nil, err
			}
			written, err := os.ReadFile(filepath.Join(newDir, filepath.FromSlash(path)))
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(old, written) {
				return nil, fmt.Errorf("%s differs between the projects: the original was edited, or opctl generate has not run since opctl changed it; run opctl generate in the original and migrate again", path)
			}
			out = append(out, path)
		}
	}
	return out, nil
}

// migrationReport is what migrate tells the user once the new project is
// written.
type migrationReport struct {
	From, To                         scaffold.Style
	Dir                              string
	Carried, Changed, Added, Dropped []string
	Needs                            []api.Prerequisite
	Differences                      []string
}

func (r migrationReport) print(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\nmigrated from %s to %s into %s; the original is untouched.\n", r.From.Name, r.To.Name, r.Dir)
	section := func(title, empty string, lines []string) {
		fmt.Fprintf(&b, "\n%s:\n", title)
		if len(lines) == 0 {
			fmt.Fprintf(&b, "  %s\n", empty)
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	section("Carried over byte for byte", "nothing (the project has no kinds of its own)", r.Carried)
	var port []string
	for _, c := range r.Changed {
		port = append(port, c+" (changed)")
	}
	for _, a := range r.Added {
		port = append(port, a+" (added)")
	}
	port = append(port, r.Dropped...)
	section("Your logic to port to the "+r.To.Name+" starter code (see its README)", "none: the "+r.From.Name+" starter files are as opctl wrote them", port)
	var needs []string
	for _, n := range r.Needs {
		needs = append(needs, n.CRD+": "+n.Install)
	}
	section("What the "+r.To.Name+" runtime needs that "+r.From.Name+" did not", "nothing more", needs)
	section("How the runtimes differ", "nothing that matters here", r.Differences)
	_, err := io.WriteString(w, b.String())
	return err
}
