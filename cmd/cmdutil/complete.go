package cmdutil

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/scaffold"
)

// completion is what the shell offers for a flag's value or an argument
// (opctl completion bash|zsh|fish|powershell writes the shell's script).
type completion func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// OneOf offers the words choices gives.
func OneOf(choices func() []string) completion {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return choices(), cobra.ShellCompDirectiveNoFileComp
	}
}

// ListOf offers, for a comma-separated value, the words choices gives that
// the value does not hold yet, after what it holds.
func ListOf(choices func() []string) completion {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		held := ""
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			held = toComplete[:i+1]
		}
		var out []cobra.Completion
		for _, c := range choices() {
			if !slices.Contains(strings.Split(held, ","), c) {
				out = append(out, held+c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// ProjectNames are the names the project in the current directory gives
// its kinds (and, with watches, its decorators and watches); none outside
// a project.
func ProjectNames(env Env, watches bool) func() []string {
	return func() []string {
		p, err := scaffold.LoadProject(env.Dir, env.Styles)
		if err != nil {
			return nil
		}
		var out []string
		for _, a := range p.APIs {
			out = append(out, a.Kind)
		}
		if watches {
			for _, d := range p.Decorators {
				out = append(out, d.Name)
			}
			for _, w := range p.Watches {
				out = append(out, w.Name)
			}
		}
		return out
	}
}

// CompleteFlag registers the completion of a flag's value.
func CompleteFlag(cmd *cobra.Command, flag string, c completion) {
	// The flag is the command's own: registering cannot fail.
	_ = cmd.RegisterFlagCompletionFunc(flag, c)
}
