package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold/api"
)

func newTypesCmd(env cmdutil.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "types",
		Short: "List the field types --field takes, Kubernetes' own among them",
		Long: "List the field types --field takes: the scalars, object, any, lists and maps of any of them\n" +
			"([]TYPE, map[string]TYPE), and the Kubernetes types a field may have by name, whose schema\n" +
			"is Kubernetes' own (a go project declares them with k8s.io/api's Go types).",
		Args: cmdutil.MaxArgs(0),
		RunE: func(*cobra.Command, []string) error {
			w := tabwriter.NewWriter(env.IO.Out, 0, 4, 2, ' ', 0)
			for _, t := range api.ScalarTypes() {
				fmt.Fprintf(w, "%s\t%s\n", t.Name, t.Help)
			}
			fmt.Fprintf(w, "%s\t%s\n", api.TypeObject, "an object: the fields named below it (issuerRef.name), or with none any object (free-form)")
			fmt.Fprintf(w, "%s\t%s\n", api.TypeAny, "any JSON value (free-form; json is another name for it)")
			fmt.Fprintf(w, "%s\t%s\n", "[]TYPE", "a list of TYPE: []string, []object (its objects' fields are users[].name), []core/v1.Toleration")
			fmt.Fprintf(w, "%s\t%s\n", "map[string]TYPE", "a map of TYPE: map[string]string, map[string]quantity, map[string]any")
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(env.IO.Out, "\nKubernetes types (also spelt as Go names them: corev1.ResourceRequirements):")
			var group string
			var line []string
			flush := func() {
				if len(line) > 0 {
					fmt.Fprintf(env.IO.Out, "  %s: %s\n", group, strings.Join(line, ", "))
				}
			}
			for _, k := range api.KubeTypes() {
				gv := strings.TrimSuffix(k.Name, "."+k.GoName)
				if gv != group {
					flush()
					group, line = gv, nil
				}
				line = append(line, k.GoName)
			}
			flush()
			return nil
		},
	}
}
