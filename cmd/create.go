package cmd

import (
	"path/filepath"
	"strings"

	"github.com/gobuffalo/flect"
	"github.com/spf13/cobra"

	"github.com/opctl/opctl/scaffold"
)

func newCreateCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Add something to the project in the current directory",
	}
	cmd.AddCommand(newCreateAPICmd(env))
	return cmd
}

type createAPIOptions struct {
	group, version, kind, plural, from string
	target, selector, name             string
	namespaced                         bool
	fields, rules, owns                []string
	write                              writeFlags
}

// modelFlags are the flags that describe the API; --from replaces them all.
var modelFlags = []string{"group", "version", "kind", "plural", "namespaced", "field", "rule", "owns"}

func newCreateAPICmd(env Env) *cobra.Command {
	var o createAPIOptions
	cmd := &cobra.Command{
		Use:   "api",
		Short: "Add a kind (CRD, RBAC, starter code) to the project; never prompts",
		Long: `Add a kind to the project in the current directory. Generated files are
re-rendered; your files already there are left alone.

--field NAME:TYPE[:MODIFIER...] (repeatable)
  types:     ` + strings.Join(typeNames(), ", ") + `
             nested objects through dotted names: backup.schedule:string
  modifiers: required, default=V, enum=a,b,c, min=N, max=N, minLength=N,
             maxLength=N, pattern=REGEX (last: takes the rest), column,
             immutable (no change once created),
             rule=CEL[#MESSAGE] (last: takes the rest; self is the field)

--rule CEL[#MESSAGE] (repeatable): a rule on the whole spec, for rules across
  fields: --rule 'self.replicas <= 3 || self.engine == "postgres"#over 3 replicas needs postgres'
  Every rule is compiled with the API server's CEL support, cost included.`,
		Example: `  opctl create api --group myapp --version v1 --kind Database \
    --field engine:string:enum=mysql,postgres:required --field version:string \
    --field storage:quantity --field replicas:int32:min=1:max=5:default=1 --owns ConfigMap
  opctl create api --from database.yaml`,
		Args: maxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.from != "" {
				for _, name := range modelFlags {
					if cmd.Flags().Changed(name) {
						return usageErrorf("--from %s cannot be combined with --%s: put it in the file", o.from, name)
					}
				}
			}
			return runCreateAPI(env, cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.group, "group", "", "API group, without the domain (e.g. myapp)")
	f.StringVar(&o.version, "version", "", "API version (e.g. v1, v1alpha1)")
	f.StringVar(&o.kind, "kind", "", "kind, UpperCamelCase (e.g. Database)")
	f.StringVar(&o.plural, "plural", "", "resource name (default: the inflected plural of the kind)")
	f.BoolVar(&o.namespaced, "namespaced", true, "namespaced kind; --namespaced=false for cluster-scoped")
	f.StringArrayVar(&o.fields, "field", nil, "spec field NAME:TYPE[:MODIFIER...] (repeatable)")
	f.StringArrayVar(&o.rules, "rule", nil, "CEL rule on the spec, CEL[#MESSAGE] (repeatable)")
	f.StringSliceVar(&o.owns, "owns", nil, "owned child kinds: "+strings.Join(scaffold.ChildKindNames(), ","))
	f.StringVar(&o.from, "from", "", "read the API from a YAML file instead of flags")
	f.StringVar(&o.target, "target", "", existingKindStyles(env.Styles)+": the kind to decorate, GROUP/VERSION/KIND (apps/v1/Deployment) or v1/KIND")
	f.StringVar(&o.selector, "selector", "", existingKindStyles(env.Styles)+": label selector of the targets, KEY=VALUE[,...]")
	f.StringVar(&o.name, "name", "", existingKindStyles(env.Styles)+": the decorator's name (default: the target's resource name)")
	o.write.register(cmd)
	return cmd
}

func runCreateAPI(env Env, cmd *cobra.Command, o createAPIOptions) error {
	p, err := scaffold.LoadProject(env.Dir, env.Styles)
	if err != nil {
		return err
	}
	style, err := env.Styles.Lookup(p.Style)
	if err != nil {
		return err
	}
	if style.ExistingKinds {
		return createDecorator(env, cmd, p, o)
	}
	for _, name := range []string{"target", "selector", "name"} {
		if cmd.Flags().Changed(name) {
			return usageErrorf("--%s is for %s projects; this project's style is %s", name, existingKindStyles(env.Styles), p.Style)
		}
	}
	api, src, err := o.api(env.Dir)
	if err != nil {
		return err
	}
	if p, err = p.AddAPI(src, api); err != nil {
		return err
	}
	return renderAndWrite(cmd.Context(), env, env.Dir, p, o.write, nil)
}

// createDecorator adds a decorator: no CRD, children attached to existing
// resources of the target kind.
func createDecorator(env Env, cmd *cobra.Command, p scaffold.Project, o createAPIOptions) error {
	for _, name := range append([]string{"from"}, modelFlags...) {
		if name != "owns" && cmd.Flags().Changed(name) {
			return usageErrorf("--%s does not apply to a %s project, which adds no CRD: use --target, --selector, --owns", name, p.Style)
		}
	}
	if o.target == "" {
		return usageErrorf("--target is required: the kind to decorate, e.g. --target apps/v1/Deployment")
	}
	target, err := scaffold.ParseTarget(o.target, pluralize)
	if err != nil {
		return err
	}
	selector, err := scaffold.ParseSelector(o.selector)
	if err != nil {
		return err
	}
	d := scaffold.Decorator{Name: o.name, Target: target, Selector: selector, Owns: o.owns}
	if d.Name == "" {
		d.Name = target.Resource
	}
	if p, err = p.AddDecorator(scaffold.FlagSource, d); err != nil {
		return err
	}
	return renderAndWrite(cmd.Context(), env, env.Dir, p, o.write, nil)
}

// api builds the model from --from or from the flags, and says where its
// values came from so errors name the flag or the file.
func (o createAPIOptions) api(dir string) (scaffold.API, scaffold.Source, error) {
	if o.from != "" {
		path := o.from
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		a, err := scaffold.LoadAPIFile(path)
		if err == nil && a.Plural == "" {
			a.Plural = pluralize(a.Kind)
		}
		return a, scaffold.FileSource(o.from), err
	}
	for _, name := range []string{"group", "version", "kind"} {
		if map[string]string{"group": o.group, "version": o.version, "kind": o.kind}[name] == "" {
			return scaffold.API{}, nil, usageErrorf("--%s is required", name)
		}
	}
	a := scaffold.API{Group: o.group, Version: o.version, Kind: o.kind, Plural: o.plural, Namespaced: o.namespaced, Owns: o.owns}
	if a.Plural == "" {
		a.Plural = pluralize(a.Kind)
	}
	for _, spec := range o.fields {
		f, err := scaffold.ParseField(spec)
		if err != nil {
			return scaffold.API{}, nil, err
		}
		a.Fields = append(a.Fields, f)
	}
	for _, r := range o.rules {
		a.Rules = append(a.Rules, scaffold.ParseRule(r))
	}
	return a, scaffold.FlagSource, nil
}

// pluralize lower-cases and inflects a kind: Database → databases,
// Policy → policies.
func pluralize(kind string) string { return strings.ToLower(flect.Pluralize(kind)) }

func typeNames() []string {
	var out []string
	for _, t := range scaffold.FieldTypes() {
		out = append(out, string(t))
	}
	return out
}

// existingKindStyles names the styles that decorate existing kinds.
func existingKindStyles(styles scaffold.Styles) string {
	return stylesWith(styles, func(s scaffold.Style) bool { return s.ExistingKinds })
}
