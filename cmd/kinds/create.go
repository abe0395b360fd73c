// Package kinds holds the commands that change a project's kinds: create api
// (and its other modes, create watch and create decorator), create
// webhook, edit api and delete api.
package kinds

import (
	"fmt"
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
	"github.com/opctl/opctl/scaffold/render"
)

// NewCreateCmd is opctl create and its subcommands.
func NewCreateCmd(env cmdutil.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Add something to the project in the current directory",
	}
	cmd.AddCommand(newCreateAPICmd(env, nil), newCreateWatchCmd(env, nil), newCreateDecoratorCmd(env, nil), newCreateWebhookCmd(env, nil))
	return cmd
}

// newCreateWatchCmd is create api --target's mode of a style that watches
// existing kinds, under its own name.
func newCreateWatchCmd(env cmdutil.Env, runF func(*createAPIOptions) error) *cobra.Command {
	var o createAPIOptions
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "React to an existing kind (" + watchStyles(env.Styles) + "): no CRD, a handler of yours per object; never prompts",
		Long: `React to an existing kind in the project in the current directory: no CRD,
read-only access to the kind, and a handler that hands each matching object
to a function of yours, narrowed with --namespace and --selector. The same
as create api --target.`,
		Example: `  opctl create watch --target v1/Secret --namespace payments --selector sync=vault`,
		Args:    cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runCreateWatch(env, o)
		},
	}
	o.existingKindFlags(cmd, "", "the existing kind to watch")
	cmd.Flags().StringVar(&o.namespace, "namespace", "", "watch the target in this namespace only")
	o.write.Register(cmd)
	return cmd
}

// newCreateDecoratorCmd is create api's mode in a style that decorates
// existing kinds, under its own name.
func newCreateDecoratorCmd(env cmdutil.Env, runF func(*createAPIOptions) error) *cobra.Command {
	var o createAPIOptions
	cmd := &cobra.Command{
		Use:   "decorator",
		Short: "Attach children to existing objects of a kind (" + cmdutil.DecoratorStyles(env.Styles) + "); never prompts",
		Long: `Attach children to each existing object of a kind, in a project of a style
that decorates existing kinds: no CRD, the children of --owns for each
object that --selector matches. The same as create api in such a project.`,
		Example: `  opctl create decorator --target apps/v1/Deployment --selector app-type=web --owns Service`,
		Args:    cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runCreateDecorator(env, o)
		},
	}
	o.existingKindFlags(cmd, "", "the existing kind to decorate")
	cmd.Flags().StringSliceVar(&o.owns, "owns", nil, "the children attached to each object: "+strings.Join(api.ChildKindNames(), ","))
	cmdutil.CompleteFlag(cmd, "owns", cmdutil.ListOf(api.ChildKindNames))
	o.write.Register(cmd)
	return cmd
}

// runCreateWatch is create watch: create api --target in a style that
// watches existing kinds.
func runCreateWatch(env cmdutil.Env, o createAPIOptions) error {
	p, style, err := cmdutil.LoadProject(env)
	if err != nil {
		return err
	}
	if !style.Watches {
		return cmdutil.UsageErrorf("create watch is for %s projects; this project's style is %s", watchStyles(env.Styles), p.Style)
	}
	if o.target == "" {
		return cmdutil.UsageErrorf("--target is required: the kind to watch, e.g. --target v1/Secret")
	}
	return createWatch(env, p, o)
}

// runCreateDecorator is create decorator: create api in a style that
// decorates existing kinds.
func runCreateDecorator(env cmdutil.Env, o createAPIOptions) error {
	p, style, err := cmdutil.LoadProject(env)
	if err != nil {
		return err
	}
	if !style.ExistingKinds {
		return cmdutil.UsageErrorf("create decorator is for %s projects; this project's style is %s", cmdutil.DecoratorStyles(env.Styles), p.Style)
	}
	return createDecorator(env, p, o)
}

// existingKindFlags are the flags that name an existing kind and its
// objects: --target, --selector, --name. Their help starts with applies
// (the styles they apply to) where the command serves others too.
func (o *createAPIOptions) existingKindFlags(cmd *cobra.Command, applies, target string) {
	f := cmd.Flags()
	f.StringVar(&o.target, "target", "", applies+target+", GROUP/VERSION/KIND (apps/v1/Deployment) or v1/KIND")
	f.StringVar(&o.selector, "selector", "", applies+"label selector of the targets, KEY=VALUE[,...]")
	f.StringVar(&o.name, "name", "", applies+"the name of the watch or decorator (default: the target's resource name)")
}

type createWebhookOptions struct {
	cmdutil.Given
	kind               string
	validate, defaults bool
	rules              []string
	write              cmdutil.WriteFlags
}

func newCreateWebhookCmd(env cmdutil.Env, runF func(*createWebhookOptions) error) *cobra.Command {
	var o createWebhookOptions
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Add admission (validating, defaulting) to a kind of the project; never prompts",
		Long: `Add admission to a kind of the project in the current directory: objects
are checked (--validate) or filled in (--default) when they are created or
updated, before they are stored.

Styles whose runtime serves webhooks (` + webhookStyles(env.Styles, true) + `) get the
runtime's own webhook, a starter handler in your code (it enforces one
check: names short enough for the children's labels), its Service and
configuration, and a cert-manager Certificate for its TLS.

The others (` + webhookStyles(env.Styles, false) + `) get a ValidatingAdmissionPolicy: the API
server checks the starter rule and each --rule with CEL itself. A policy
cannot change objects (no --default: defaults go in the schema) nor call
other systems.

Rules on the spec alone belong on the CRD: create api --rule and rule=.`,
		Example: `  opctl create webhook --kind Database --validate --default
  # --rule: in ` + webhookStyles(env.Styles, false) + ` projects, whose policy the API server runs
  opctl create webhook --kind Database --validate \
    --rule "request.operation != 'UPDATE' || object.spec.engine == oldObject.spec.engine#engine cannot change"`,
		Args: cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runCreateWebhook(env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kind, "kind", "", "the project's kind to admit (e.g. Database)")
	cmdutil.CompleteFlag(cmd, "kind", cmdutil.OneOf(cmdutil.ProjectNames(env, false)))
	f.BoolVar(&o.validate, "validate", false, "check objects on create and update")
	f.BoolVar(&o.defaults, "default", false, "fill objects in on create and update (styles with webhooks)")
	f.StringArrayVar(&o.rules, "rule", nil, "ValidatingAdmissionPolicy rule, CEL[#MESSAGE] over object, oldObject and request (styles without webhooks; repeatable)")
	o.write.Register(cmd)
	return cmd
}

func runCreateWebhook(env cmdutil.Env, o createWebhookOptions) error {
	if o.kind == "" {
		return cmdutil.UsageErrorf("--kind is required: the kind to admit")
	}
	if !o.validate && !o.defaults {
		return cmdutil.UsageErrorf("--validate, --default or both are required")
	}
	p, style, err := cmdutil.LoadProject(env)
	if err != nil {
		return err
	}
	if style.ExistingKinds {
		return cmdutil.UsageErrorf("create webhook admits the project's own kinds; %s projects decorate existing kinds and have none", p.Style)
	}
	adm := api.Admission{Validate: o.validate, Default: o.defaults}
	for _, r := range o.rules {
		adm.Rules = append(adm.Rules, api.ParseRule(r))
	}
	if p, err = p.AddAdmission(input.FlagSource, style, o.kind, adm); err != nil {
		return err
	}
	if err := cmdutil.RenderAndWrite(o.Ctx, env, env.Dir, p, o.write, nil); err != nil || o.write.DryRun {
		return err
	}
	if style.Webhooks {
		_, err = fmt.Fprintln(env.IO.Out, "admission: the webhook's certificate comes from cert-manager, which the cluster needs (https://cert-manager.io/docs/installation/)")
	} else {
		_, err = fmt.Fprintf(env.IO.Out, "admission: a ValidatingAdmissionPolicy (%s); the API server checks its rules itself, but it cannot change objects nor call other systems\n", render.PolicyPath(api.API{Kind: o.kind}))
	}
	return err
}

// webhookStyles names the styles whose runtime serves webhooks (or not),
// among those that add kinds.
func webhookStyles(styles scaffold.Styles, webhooks bool) string {
	return cmdutil.StylesWith(styles, func(s scaffold.Style) bool { return !s.ExistingKinds && s.Webhooks == webhooks })
}

type createAPIOptions struct {
	cmdutil.Given
	group, version, kind, plural, from string
	fromCRD                            string
	target, selector, name             string
	namespace                          string
	namespaced                         bool
	fields, statusFields, rules, owns  []string
	rbac                               []string
	scaleReplicas                      string
	shortNames, categories             []string
	// options are the values of the styles' kind options (--NAME), by name.
	options map[string]*string
	write   cmdutil.WriteFlags
}

// fromCRDFlags are the model flags --from-crd takes: which CRD and
// version of the file, and what the CRD does not say.
var fromCRDFlags = []string{"kind", "version", "owns", "rbac"}

// modelFlags are the flags that describe the API, the styles' kind
// options after them; --from replaces them all.
var modelFlags = []string{"group", "version", "kind", "plural", "namespaced", "field", "status-field", "scale-replicas", "rule", "owns", "rbac", "short-names", "categories"}

func newCreateAPICmd(env cmdutil.Env, runF func(*createAPIOptions) error) *cobra.Command {
	var o createAPIOptions
	cmd := &cobra.Command{
		Use:   "api",
		Short: "Add a kind (CRD, RBAC, starter code) to the project; never prompts",
		Long: `Add a kind to the project in the current directory. Generated files are
re-rendered; your files already there are left alone.

--field NAME:TYPE[:MODIFIER...] (repeatable)
  types:     ` + strings.Join(typeNames(), ", ") + `
             nested objects through dotted names: backup.schedule:string
             lists of objects through []: users[].name:string:required,
             keyed by a required name (or fields marked key), so that
             server-side apply merges them
  modifiers: required, default=V, enum=a,b,c, min=N, max=N, minLength=N,
             maxLength=N, pattern=REGEX (last: takes the rest), column,
             key (a key of a list's objects),
             immutable (no change once created),
             rule=CEL[#MESSAGE] (last: takes the rest; self is the field)

--status-field NAME:TYPE[:MODIFIER...] (repeatable): a status field of the
  kind's own (an endpoint, a phase), beside observedGeneration and Ready;
  your code sets it through the style's status seam (the README names it).
  Modifiers: column, enum, bounds, pattern.

--scale-replicas FIELD: a scale subresource on the int32 spec field FIELD
  (replicas), so that kubectl scale and autoscalers can target the kind;
  every style writes status.FIELD and status.selector.

--rule CEL[#MESSAGE] (repeatable): a rule on the whole spec, for rules across
  fields: --rule '!has(self.replicas) || self.replicas <= 3 || self.engine == "postgres"#over 3 replicas needs postgres'
  (has() guards an optional field: without it, an object that leaves the field
  out is refused)
  Every rule is compiled with the API server's CEL support, cost included.

--rbac RESOURCE[.GROUP][/SUBRESOURCE]:VERB,... (repeatable): access the kind's
  code needs beyond its owned kinds (a Secret it reads, a playbook's objects),
  granted by the operator's role in config/rbac/role.yaml and the chart:
  --rbac secrets:get,list,watch --rbac deployments.apps/scale:get,patch

--from-crd FILE takes the API from a CRD, as an operator's release ships it:
  its group, names, scope and the schema of its storage version (--version
  names another; --kind picks a CRD of a file of several), each field in the
  field language where that writes its schema exactly, the others whole
  (type schema, which opctl.yaml holds). --owns and --rbac add what a CRD
  does not say.

--target GROUP/VERSION/KIND (or v1/KIND for the core group) reacts to an
  existing kind instead of adding one: no CRD, read-only access to it, and a
  handler that hands each matching object to a function of yours,
  narrowed with --namespace and --selector; --rbac gives your function the
  access it needs beyond reading (--rbac deployments.apps:patch to label the
  Deployments it sees).`,
		Example: `  opctl create api --group myapp --version v1 --kind Database \
    --field engine:string:enum=mysql,postgres:required --field version:string \
    --field storage:quantity --field replicas:int32:min=1:max=5:default=1 --owns ConfigMap
  opctl create api --from database.yaml
  opctl create api --from-crd certificates.yaml --owns Secret
  opctl create api --target v1/Secret --namespace payments --selector sync=vault
  opctl create api --target apps/v1/Deployment --rbac deployments.apps:patch`,
		Args: cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runCreateAPI(env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.group, "group", "", "API group, without the domain (e.g. myapp)")
	f.StringVar(&o.version, "version", "", "API version (e.g. v1, v1alpha1)")
	f.StringVar(&o.kind, "kind", "", "kind, UpperCamelCase (e.g. Database)")
	f.StringVar(&o.plural, "plural", "", "resource name (default: the inflected plural of the kind)")
	f.BoolVar(&o.namespaced, "namespaced", true, "namespaced kind; --namespaced=false for cluster-scoped")
	f.StringArrayVar(&o.fields, "field", nil, "spec field NAME:TYPE[:MODIFIER...] (repeatable)")
	f.StringArrayVar(&o.statusFields, "status-field", nil, "status field of the kind's own NAME:TYPE[:MODIFIER...] (repeatable)")
	f.StringVar(&o.scaleReplicas, "scale-replicas", "", "the int32 spec field (replicas) a scale subresource scales, for kubectl scale and autoscalers")
	f.StringArrayVar(&o.rules, "rule", nil, "CEL rule on the spec, CEL[#MESSAGE] (repeatable)")
	f.StringSliceVar(&o.owns, "owns", nil, "owned child kinds: "+strings.Join(api.ChildKindNames(), ","))
	cmdutil.CompleteFlag(cmd, "owns", cmdutil.ListOf(api.ChildKindNames))
	f.StringArrayVar(&o.rbac, "rbac", nil, "access the kind's code needs beyond the owned kinds, RESOURCE[.GROUP][/SUB]:VERB,... (secrets:get,list,watch; repeatable)")
	f.StringSliceVar(&o.shortNames, "short-names", nil, "kubectl's abbreviations of the resource (e.g. db)")
	f.StringSliceVar(&o.categories, "categories", nil, "groups of resources kubectl get lists it in (e.g. all)")
	o.options = map[string]*string{}
	for _, s := range env.Styles {
		for _, opt := range s.KindOptions {
			if o.options[opt.Name] == nil {
				o.options[opt.Name] = f.String(opt.Name, "", cmdutil.StylesWith(env.Styles, func(s scaffold.Style) bool { _, ok := s.KindOption(opt.Name); return ok })+": "+opt.Usage)
			}
		}
	}
	f.StringVar(&o.from, "from", "", "read the API from a YAML file instead of flags")
	f.StringVar(&o.fromCRD, "from-crd", "", "take the API from a CRD file (an operator's release's): its schema exactly, --kind and --version choosing among its CRDs and versions")
	o.existingKindFlags(cmd, targetStyles(env.Styles)+": ", "the existing kind to watch or decorate")
	f.StringVar(&o.namespace, "namespace", "", watchStyles(env.Styles)+": watch the target in this namespace only")
	o.write.Register(cmd)
	return cmd
}

func runCreateAPI(env cmdutil.Env, o createAPIOptions) error {
	if o.from != "" && o.fromCRD != "" {
		return cmdutil.UsageErrorf("--from and --from-crd are two ways to give the API: use one")
	}
	if o.fromCRD != "" {
		for _, name := range modelFlags {
			if o.Set(name) && !slices.Contains(fromCRDFlags, name) {
				return cmdutil.UsageErrorf("--from-crd %s cannot be combined with --%s: the CRD gives it", o.fromCRD, name)
			}
		}
	}
	if o.from != "" {
		for _, name := range append(slices.Clone(modelFlags), slices.Sorted(maps.Keys(o.options))...) {
			if o.Set(name) {
				return cmdutil.UsageErrorf("--from %s cannot be combined with --%s: put it in the file", o.from, name)
			}
		}
	}
	p, style, err := cmdutil.LoadProject(env)
	if err != nil {
		return err
	}
	if style.ExistingKinds {
		if o.Set("namespace") {
			return cmdutil.UsageErrorf("--namespace is for watches (%s projects); a decorator watches every namespace: narrow it with --selector", watchStyles(env.Styles))
		}
		return createDecorator(env, p, o)
	}
	if style.Watches && o.Set("target") {
		return createWatch(env, p, o)
	}
	for _, name := range []string{"target", "selector", "name", "namespace"} {
		if o.Set(name) {
			return cmdutil.UsageErrorf("--%s is for %s projects; this project's style is %s", name, targetStyles(env.Styles), p.Style)
		}
	}
	api, src, err := o.api(env.Dir, p.Domain)
	if err != nil {
		return err
	}
	if err := scaffold.ValidateOptions(src, style, env.Styles, api, os.DirFS(env.Dir)); err != nil {
		return err
	}
	if p, err = p.AddAPI(src, api); err != nil {
		return err
	}
	cmdutil.WarnUnguarded(env, api, api.Rules)
	if err := cmdutil.RenderAndWrite(o.Ctx, env, env.Dir, p, o.write, nil); err != nil || o.write.DryRun {
		return err
	}
	// The README, written once, may predate the kind that needs them.
	for _, pre := range p.ChildPrerequisites() {
		if _, err := fmt.Fprintf(env.IO.Out, "prerequisite: the cluster needs the CRD %s: %s\n", pre.CRD, pre.Install); err != nil {
			return err
		}
	}
	return nil
}

// createWatch adds a watch of an existing kind: no CRD, a handler that
// hands each object to the user's code.
func createWatch(env cmdutil.Env, p scaffold.Project, o createAPIOptions) error {
	for _, name := range append([]string{"from"}, modelFlags...) {
		if o.Set(name) && name != "rbac" {
			return cmdutil.UsageErrorf("--%s does not apply with --target, which watches an existing kind: use --namespace, --selector, --name, --rbac", name)
		}
	}
	target, selector, name, err := o.existingKind()
	if err != nil {
		return err
	}
	if p, err = p.AddWatch(input.FlagSource, scaffold.Watch{Name: name, Target: target, Namespace: o.namespace, Selector: selector, RBAC: o.rbac}); err != nil {
		return err
	}
	return cmdutil.RenderAndWrite(o.Ctx, env, env.Dir, p, o.write, nil)
}

// createDecorator adds a decorator: no CRD, children attached to existing
// resources of the target kind.
func createDecorator(env cmdutil.Env, p scaffold.Project, o createAPIOptions) error {
	for _, name := range append([]string{"from"}, modelFlags...) {
		if name != "owns" && o.Set(name) {
			return cmdutil.UsageErrorf("--%s does not apply to %s projects, which add no CRD: use --target, --selector, --owns", name, p.Style)
		}
	}
	if o.target == "" {
		return cmdutil.UsageErrorf("--target is required: the kind to decorate, e.g. --target apps/v1/Deployment")
	}
	target, selector, name, err := o.existingKind()
	if err != nil {
		return err
	}
	if p, err = p.AddDecorator(input.FlagSource, scaffold.Decorator{Name: name, Target: target, Selector: selector, Owns: o.owns}); err != nil {
		return err
	}
	return cmdutil.RenderAndWrite(o.Ctx, env, env.Dir, p, o.write, nil)
}

// existingKind parses --target and --selector, and names the watch or
// decorator: --name, else the target's resource.
func (o createAPIOptions) existingKind() (scaffold.Target, map[string]string, string, error) {
	target, err := scaffold.ParseTarget(o.target, cmdutil.Pluralize)
	if err != nil {
		return target, nil, "", err
	}
	selector, err := scaffold.ParseSelector(o.selector)
	if err != nil {
		return target, nil, "", err
	}
	name := o.name
	if name == "" {
		name = target.Resource
	}
	return target, selector, name, nil
}

// api builds the model from --from or from the flags, and says where its
// values came from so errors name the flag or the file.
func (o createAPIOptions) api(dir, domain string) (api.API, input.Source, error) {
	if o.from != "" {
		path := o.from
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		a, err := scaffold.LoadAPIFile(path)
		if err == nil && a.Plural == "" {
			a.Plural = cmdutil.Pluralize(a.Kind)
		}
		return a, input.FileSource(o.from), err
	}
	if o.fromCRD != "" {
		path := o.fromCRD
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		a, err := scaffold.LoadCRDFile(path, o.kind, o.version, domain)
		a.Owns, a.RBAC, a.Options = o.owns, o.rbac, o.kindOptions()
		return a, input.FileSource(o.fromCRD), err
	}
	for _, name := range []string{"group", "version", "kind"} {
		if map[string]string{"group": o.group, "version": o.version, "kind": o.kind}[name] == "" {
			return api.API{}, nil, cmdutil.UsageErrorf("--%s is required", name)
		}
	}
	a := api.API{Group: o.group, Version: o.version, Kind: o.kind, Plural: o.plural, Namespaced: o.namespaced, Owns: o.owns, RBAC: o.rbac,
		ShortNames: o.shortNames, Categories: o.categories, ScaleReplicas: o.scaleReplicas}
	if a.Plural == "" {
		a.Plural = cmdutil.Pluralize(a.Kind)
	}
	for _, spec := range o.fields {
		f, err := api.ParseField(spec)
		if err != nil {
			return api.API{}, nil, err
		}
		a.Fields = append(a.Fields, f)
	}
	for _, spec := range o.statusFields {
		f, err := api.ParseStatusField(spec)
		if err != nil {
			return api.API{}, nil, err
		}
		a.Status = append(a.Status, f)
	}
	for _, r := range o.rules {
		a.Rules = append(a.Rules, api.ParseRule(r))
	}
	a.Options = o.kindOptions()
	return a, input.FlagSource, nil
}

// kindOptions are the styles' kind options given, by name.
func (o createAPIOptions) kindOptions() map[string]string {
	var out map[string]string
	for name, value := range o.options {
		if *value != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = *value
		}
	}
	return out
}

func typeNames() []string {
	var out []string
	for _, t := range api.FieldTypes() {
		out = append(out, string(t))
	}
	return out
}

// watchStyles names the styles that watch existing kinds beside their own.
func watchStyles(styles scaffold.Styles) string {
	return cmdutil.StylesWith(styles, func(s scaffold.Style) bool { return s.Watches })
}

// targetStyles names the styles that take --target: they watch or
// decorate existing kinds.
func targetStyles(styles scaffold.Styles) string {
	return cmdutil.StylesWith(styles, func(s scaffold.Style) bool { return s.Watches || s.ExistingKinds })
}
