package project

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
)

// verifyOptions are opctl verify's: the two project directories.
type verifyOptions struct {
	cmdutil.Given
	dirs [2]string
}

// NewVerifyCmd is opctl verify; runF, when not nil, gets the options in
// place of the run function.
func NewVerifyCmd(env cmdutil.Env, runF func(*verifyOptions) error) *cobra.Command {
	var o verifyOptions
	return &cobra.Command{
		Use:   "verify OLD NEW",
		Short: "Check that two projects of the same kinds do the same: CRDs, conformance cases, and each case's outcome",
		Long: `Check that two projects of the same kinds, in any two styles (a project and
the one opctl migrate wrote from it, say), do the same: their CRDs are byte
for byte the same, their conformance cases (test/conformance) are the same,
and each project's code, run over those cases by its own tests, gives every
case the same outcome. It lists every case whose outcome differs, and every
case that fails in either, and exits 1 if there is one.

It runs the tests of each project (Go, pytest with the Python its Makefile
picks, bash and jq, ansible-playbook, as the style needs), from its
directory. The cases of a kind that runs your playbook (ansible) are not
checked: opctl's role, which the cases describe, does not run.`,
		Example: "  opctl verify db-kopf db-go",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return cmdutil.UsageErrorf("%s takes the two project directories, got %q", cmd.CommandPath(), args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			for i, a := range args {
				o.dirs[i] = a
				if !filepath.IsAbs(a) {
					o.dirs[i] = filepath.Join(env.Dir, a)
				}
			}
			if runF != nil {
				return runF(&o)
			}
			return runVerify(env, o)
		},
	}
}

// verified is one project of opctl verify.
type verified struct {
	dir     string
	project scaffold.Project
	style   scaffold.Style
	cases   map[string][]byte
}

func runVerify(env cmdutil.Env, o verifyOptions) error {
	ctx, dirs := o.Ctx, o.dirs
	var sides [2]verified
	for i, dir := range dirs {
		p, err := scaffold.LoadProject(dir, env.Styles)
		if err != nil {
			return err
		}
		style, err := env.Styles.Lookup(p.Style)
		if err != nil {
			return err
		}
		if len(p.APIs) == 0 {
			return cmdutil.UsageErrorf("%s has no kinds of its own: there are no conformance cases to compare", dir)
		}
		cases, err := cmdutil.ReadTree(dir, render.ConformanceDir)
		if err != nil {
			return err
		}
		sides[i] = verified{dir: dir, project: p, style: style, cases: cases}
	}
	var problems []string
	problems = append(problems, sameFiles(sides, crdFiles, "CRD")...)
	problems = append(problems, sameFiles(sides, func(v verified) map[string][]byte { return v.cases }, "conformance case")...)
	if len(problems) > 0 {
		return fmt.Errorf("%s and %s differ: %s", dirs[0], dirs[1], strings.Join(problems, "; "))
	}
	var outcomes [2]map[string]string
	for i, side := range sides {
		var err error
		if outcomes[i], err = conformanceOutcomes(ctx, side); err != nil {
			return err
		}
	}
	return printVerification(env.IO.Out, sides, outcomes)
}

// crdFiles are the project's CRDs by path; a missing one is left out, so
// it differs from the other project's.
func crdFiles(v verified) map[string][]byte {
	out := map[string][]byte{}
	for _, a := range v.project.APIs {
		path := render.CRDPath(v.project, a)
		if b, err := os.ReadFile(filepath.Join(v.dir, filepath.FromSlash(path))); err == nil {
			out[path] = b
		}
	}
	return out
}

// sameFiles lists, one line each, the files (of what) only one side has
// or that differ.
func sameFiles(sides [2]verified, files func(verified) map[string][]byte, what string) []string {
	a, b := files(sides[0]), files(sides[1])
	var out []string
	for _, path := range slices.Sorted(maps.Keys(a)) {
		other, ok := b[path]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %s is only in %s", what, path, sides[0].dir))
		case !bytes.Equal(a[path], other):
			out = append(out, fmt.Sprintf("%s %s differs", what, path))
		}
	}
	for _, path := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[path]; !ok {
			out = append(out, fmt.Sprintf("%s %s is only in %s", what, path, sides[1].dir))
		}
	}
	return out
}

// conformanceOutcomes runs the project's conformance test and returns each
// case's outcome (pass, fail or skip) as its runner records it.
func conformanceOutcomes(ctx context.Context, v verified) (map[string]string, error) {
	results, err := os.CreateTemp("", "opctl-verify-*.jsonl")
	if err != nil {
		return nil, err
	}
	results.Close()
	defer os.Remove(results.Name())
	// The project's make runs the style's recipe, so the tests run as make
	// test runs them: with the Makefile's variables, as the user set them.
	cmd := exec.CommandContext(ctx, "make", "-s", "--no-print-directory", "--eval", "opctl-conformance: ; "+v.style.ConformanceTest, "opctl-conformance")
	cmd.Dir = v.dir
	cmd.Env = append(os.Environ(), "OPCTL_CONFORMANCE_RESULTS="+results.Name())
	out, runErr := cmd.CombinedOutput()
	b, err := os.ReadFile(results.Name())
	if err != nil {
		return nil, err
	}
	outcomes := map[string]string{}
	scanner := bufio.NewScanner(bytes.NewReader(b))
	for scanner.Scan() {
		var r struct{ Case, Result string }
		if err := json.Unmarshal(scanner.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %s: %v", v.dir, scanner.Text(), err)
		}
		outcomes[r.Case] = r.Result
	}
	if want := len(v.cases) - len(notRun(v)); len(outcomes) < want {
		// The runner stopped before the cases (a build error, say).
		why := "it stopped before the others"
		if runErr != nil {
			why = runErr.Error()
		}
		return nil, fmt.Errorf("%s: %s ran %d of %d conformance cases (%s):\n%s", v.dir, v.style.ConformanceTest, len(outcomes), want, why, out)
	}
	return outcomes, nil
}

// notRun are the conformance cases the project's runner does not run, by
// path: those of its kinds that run the user's playbook, for which the
// Cases (opctl's starter children) say nothing.
func notRun(v verified) map[string]string {
	out := map[string]string{}
	for _, a := range v.project.APIs {
		instead := v.style.RunsInstead(a)
		if instead == "" {
			continue
		}
		for path := range v.cases {
			if strings.HasPrefix(path, render.ConformanceDir+"/"+a.Singular()+"/") {
				out[path] = a.Kind + " runs " + instead
			}
		}
	}
	return out
}

// printVerification writes each case's outcome on both sides and fails
// when one differs or fails.
func printVerification(w io.Writer, sides [2]verified, outcomes [2]map[string]string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-50s %-14s %s\n", "conformance case", sides[0].style.Name, sides[1].style.Name)
	bad := 0
	skipped := [2]map[string]string{notRun(sides[0]), notRun(sides[1])}
	for _, path := range slices.Sorted(maps.Keys(sides[0].cases)) {
		name := strings.TrimPrefix(path, render.ConformanceDir+"/")
		a, c := outcomes[0][name], outcomes[1][name]
		mark := ""
		for i, side := range []*string{&a, &c} {
			if why, ok := skipped[i][path]; ok {
				*side, mark = "n/a", "  (not checked: "+why+")"
			}
		}
		switch {
		case mark != "":
		case a != c:
			mark, bad = "  <- differs", bad+1
		case a == "fail":
			mark, bad = "  <- fails in both", bad+1
		}
		fmt.Fprintf(&b, "%-50s %-14s %s%s\n", name, a, c, mark)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d conformance cases do not give the same outcome, as the case says, in %s and %s: run each project's make test to see why",
			bad, len(sides[0].cases), sides[0].dir, sides[1].dir)
	}
	fmt.Fprintf(w, "\n%s (%s) and %s (%s) give every conformance case the same outcome; skip: the API server rejects it (make test-e2e, or go's make test, checks that).\n",
		sides[0].dir, sides[0].style.Name, sides[1].dir, sides[1].style.Name)
	return nil
}
