package kinds

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/apicompat"
	"github.com/opctl/opctl/scaffold/input"
)

// NewEditCmd is opctl edit and its subcommands.
func NewEditCmd(env cmdutil.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "edit",
		Short: "Change part of the project in the current directory",
		Args:  cmdutil.MaxArgs(0),
	}
	cmd.AddCommand(newEditAPICmd(env, nil))
	return cmd
}

type editAPIOptions struct {
	cmdutil.Given
	kind                   string
	fields, removeFields   []string
	status, removeStatus   []string
	owns, removeOwns       []string
	rules, removeRules     []string
	rbac, removeRBAC       []string
	shortNames, categories []string
	scaleReplicas          string
	newVersion             string
	renames                []string
	allowBreaking          bool
	fromCRD                string
	write                  cmdutil.WriteFlags
}

func newEditAPICmd(env cmdutil.Env, runF func(*editAPIOptions) error) *cobra.Command {
	var o editAPIOptions
	cmd := &cobra.Command{
		Use:   "api",
		Short: "Change a kind of the project: fields, owned kinds, rules, names; checked against its served version",
		Long: `Change a kind of the project in the current directory, then re-render the
project: the CRD, the types, the wiring, the samples and, where you have not
changed them, the conformance cases and starters. Files you changed are
left alone; a starter for a newly owned kind is written beside them.

--field takes the syntax of create api: a new field, or a new definition of
the field of that name (give all its modifiers). --remove-field removes a
field, or an object or a list of objects with every field below it.
--status-field and --remove-status-field do the same for the kind's own
status fields; --scale-replicas gives it a scale subresource. --rbac grants
the operator access its code needs beyond the owned kinds (a Secret it reads):
config/rbac/role.yaml and the chart's role are generated from it.

The kind's version is served: objects of it are stored and clients send
them. A change that would break them is refused, naming the field and the
rule (Kubernetes' API change rules):
  - removing a field, or changing its type
  - making a field required, or adding a required field, without a default
  - adding, changing or removing a default
  - narrowing: an enum losing a value or added, min or minLength raised,
    max or maxLength lowered, a pattern added or changed
  - a field becoming immutable, or a new rule (on a field or the spec)
  - a list of objects keyed by other fields
  - removing a status field, or changing its type (clients read it)
  - removing the scale subresource, or moving it to another field
Widening is safe: new optional fields, relaxed bounds and enums, removed
rules, owned kinds added or removed. A pre-release version (v1alpha1,
v1beta2) may break with --allow-breaking; a stable one changes in a new
version.

--new-version adds a version to the kind, made from its version by the
other flags: it becomes the storage version and the one the operator's code
reads, and ranks above the others (v2 after v1, v1 after v1beta1); the
versions before it stay served as they are. The API server converts objects
between them by their apiVersion alone (None conversion), so a new version
may differ only by fields with defaults, added or removed; anything else is
refused, naming the field. --rename-field OLD=NEW renames a field, an object
or a list of objects in the new version (under the same parent), and
--remove-field removes one that has no default: then the operator serves a
conversion webhook that renames it both ways, and keeps a removed field's
values in an annotation of the new version's objects (GROUP/removed-in-
VERSION), giving them back to clients of the older version, as Kubernetes'
own conversions do. The go and shell-operator styles write it (the
conversion to the next version is yours to extend, in
api/VERSION/KIND_conversion.go or hooks/lib/PLURAL/convert_*.jq); the other
styles refuse, saying why.

--from-crd FILE takes the kind back from a CRD of it, as create api
--from-crd takes a new one: a CRD you changed, or one a tool wrote. Its
fields keep their order in opctl.yaml, new ones after; owned kinds, access,
admission and older versions stay the kind's. It is checked against the
served version like any other change.`,
		Example: `  opctl edit api --kind Database --field backup.schedule:string --owns Secret
  opctl edit api --kind Database --field replicas:int32:min=1:max=9:default=1
  opctl edit api --kind Database --field 'users[].name:string:required' --status-field endpoint:string
  opctl edit api --kind Database --rbac secrets:get,list,watch --rbac deployments.apps/scale:get,patch
  opctl edit api --kind Database --remove-field version --allow-breaking   # a v1alpha1 kind
  opctl edit api --kind Database --new-version v2 --field tier:string:default=standard
  opctl edit api --kind Database --new-version v2 --rename-field engine=flavor   # go, shell-operator
  opctl edit api --kind Database --new-version v2 --remove-field version   # go, shell-operator
  opctl edit api --kind Database --from-crd config/crd/bases/myapp.example.com_databases.yaml`,
		Args: cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runEditAPI(env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kind, "kind", "", "the project's kind to change (e.g. Database)")
	cmdutil.CompleteFlag(cmd, "kind", cmdutil.OneOf(cmdutil.ProjectNames(env, false)))
	f.StringArrayVar(&o.fields, "field", nil, "add a spec field, or define one again: NAME:TYPE[:MODIFIER...] (repeatable)")
	f.StringArrayVar(&o.removeFields, "remove-field", nil, "remove a field, or an object or a list of objects and its fields (repeatable)")
	f.StringArrayVar(&o.status, "status-field", nil, "add a status field, or define one again: NAME:TYPE[:MODIFIER...] (repeatable)")
	f.StringArrayVar(&o.removeStatus, "remove-status-field", nil, "remove a status field (repeatable)")
	f.StringSliceVar(&o.owns, "owns", nil, "own these child kinds too: "+strings.Join(api.ChildKindNames(), ","))
	f.StringSliceVar(&o.removeOwns, "remove-owns", nil, "own these child kinds no more")
	cmdutil.CompleteFlag(cmd, "owns", cmdutil.ListOf(api.ChildKindNames))
	cmdutil.CompleteFlag(cmd, "remove-owns", cmdutil.ListOf(api.ChildKindNames))
	f.StringArrayVar(&o.rules, "rule", nil, "add a CEL rule on the spec, CEL[#MESSAGE] (repeatable)")
	f.StringArrayVar(&o.removeRules, "remove-rule", nil, "remove the spec rule with this CEL expression (repeatable)")
	f.StringArrayVar(&o.rbac, "rbac", nil, "grant the operator access its code needs, RESOURCE[.GROUP][/SUB]:VERB,... (secrets:get,list,watch), replacing the kind's rule for that resource (repeatable)")
	f.StringArrayVar(&o.removeRBAC, "remove-rbac", nil, "remove the kind's access rule for RESOURCE[.GROUP][/SUB] (repeatable)")
	f.StringSliceVar(&o.shortNames, "short-names", nil, "kubectl's abbreviations of the resource, replacing the kind's (--short-names= for none)")
	f.StringSliceVar(&o.categories, "categories", nil, "groups of resources kubectl get lists it in, replacing the kind's (--categories= for none)")
	f.StringVar(&o.scaleReplicas, "scale-replicas", "", "the int32 spec field a scale subresource scales (--scale-replicas= for none)")
	f.StringVar(&o.newVersion, "new-version", "", "add this version, made by the other flags from the kind's version (e.g. v2)")
	f.StringArrayVar(&o.renames, "rename-field", nil, "with --new-version: a field, object or list of objects the new version calls otherwise, OLD=NEW (repeatable)")
	f.BoolVar(&o.allowBreaking, "allow-breaking", false, "make a breaking change in a pre-release version (v1alpha1, v1beta1)")
	f.StringVar(&o.fromCRD, "from-crd", "", "take the kind back from a CRD of it (one you or controller-gen changed): its schema, names and subresources, checked as the other changes")
	o.write.Register(cmd)
	return cmd
}

func runEditAPI(env cmdutil.Env, o editAPIOptions) error {
	if o.kind == "" {
		return cmdutil.UsageErrorf("--kind is required: the kind to change")
	}
	p, style, err := cmdutil.LoadProject(env)
	if err != nil {
		return err
	}
	if style.ExistingKinds {
		return cmdutil.UsageErrorf("edit api changes the project's own kinds; %s projects decorate existing kinds and have none", p.Style)
	}
	if o.fromCRD != "" {
		return takeBack(env, p, o)
	}
	edit := api.APIEdit{RemoveFields: o.removeFields, RemoveStatusFields: o.removeStatus, Owns: o.owns, RemoveOwns: o.removeOwns, RemoveRules: o.removeRules,
		RBAC: o.rbac, RemoveRBAC: o.removeRBAC}
	for _, spec := range o.fields {
		f, err := api.ParseField(spec)
		if err != nil {
			return err
		}
		edit.Fields = append(edit.Fields, f)
	}
	for _, spec := range o.status {
		f, err := api.ParseStatusField(spec)
		if err != nil {
			return err
		}
		edit.StatusFields = append(edit.StatusFields, f)
	}
	for _, r := range o.rules {
		edit.Rules = append(edit.Rules, api.ParseRule(r))
	}
	if o.Set("short-names") {
		edit.ShortNames = &o.shortNames
	}
	if o.Set("categories") {
		edit.Categories = &o.categories
	}
	if o.Set("scale-replicas") {
		edit.ScaleReplicas = &o.scaleReplicas
	}
	for _, r := range o.renames {
		from, to, ok := strings.Cut(r, "=")
		if !ok || from == "" || to == "" {
			return cmdutil.UsageErrorf("--rename-field %q: must be OLD=NEW (engine=flavor, users[].name=users[].login)", r)
		}
		edit.Renames = append(edit.Renames, api.Rename{From: from, To: to})
	}
	if o.newVersion != "" {
		return addVersion(env, p, o, edit)
	}
	if len(edit.Renames) > 0 {
		return cmdutil.UsageErrorf("--rename-field renames a field in a new version (--new-version): in a served version, a rename removes a field")
	}
	if edit.Empty() {
		return cmdutil.UsageErrorf("nothing to change: give --new-version, --field, --remove-field, --status-field, --remove-status-field, --scale-replicas, --owns, --remove-owns, --rule, --remove-rule, --rbac, --remove-rbac, --short-names or --categories")
	}
	edited, old, err := p.EditAPI(input.FlagSource, o.kind, edit)
	if err != nil {
		return err
	}
	if err := edited.Validate(input.FlagSource, env.Styles); err != nil {
		return err
	}
	breaks := apicompat.Check(old, edited.APIs[slices.IndexFunc(edited.APIs, func(a api.API) bool { return a.Kind == o.kind })])
	if err := refuseBreaks(old, style, o.removeFields, breaks, o.allowBreaking); err != nil {
		return err
	}
	cmdutil.WarnUnguarded(env, edited.APIs[slices.IndexFunc(edited.APIs, func(a api.API) bool { return a.Kind == o.kind })], edit.Rules)
	for _, b := range breaks {
		fmt.Fprintf(env.IO.ErrOut, "opctl: warning: --%s %q breaks %s of %s (allowed, a pre-release version): %s\n", b.Key, b.Value, old.Version, old.Kind, b.Why)
	}
	return cmdutil.WriteChange(o.Ctx, env, p, edited, o.write)
}

// takeBack takes the kind back from the CRD of --from-crd, checked
// against its served version as the other changes are.
func takeBack(env cmdutil.Env, p scaffold.Project, o editAPIOptions) error {
	for _, name := range []string{"field", "remove-field", "status-field", "remove-status-field", "owns", "remove-owns", "rule", "remove-rule",
		"rbac", "remove-rbac", "short-names", "categories", "scale-replicas", "new-version", "rename-field"} {
		if o.Set(name) {
			return cmdutil.UsageErrorf("--from-crd %s cannot be combined with --%s: change the CRD, or run edit api twice", o.fromCRD, name)
		}
	}
	style, err := env.Styles.Lookup(p.Style)
	if err != nil {
		return err
	}
	edited, old, err := cmdutil.TakeBack(env, p, style, o.kind, o.fromCRD)
	if err != nil {
		return err
	}
	// The kind's own CRD, taken, is opctl's to write again.
	p.Generated = edited.Generated
	if err := edited.Validate(input.FlagSource, env.Styles); err != nil {
		return err
	}
	breaks := apicompat.Check(old, edited.APIs[slices.IndexFunc(edited.APIs, func(a api.API) bool { return a.Kind == o.kind })])
	if err := refuseBreaks(old, style, nil, breaks, o.allowBreaking); err != nil {
		return err
	}
	return cmdutil.WriteChange(o.Ctx, env, p, edited, o.write)
}

// addVersion adds o.newVersion to the kind, refusing a version the API
// server could not convert to and from the one before by None conversion.
func addVersion(env cmdutil.Env, p scaffold.Project, o editAPIOptions, edit api.APIEdit) error {
	if o.allowBreaking {
		return cmdutil.UsageErrorf("--allow-breaking changes a pre-release version in place; --new-version adds one, converted by None conversion, and cannot break")
	}
	edited, old, err := p.AddVersion(input.FlagSource, o.kind, o.newVersion, edit)
	if err != nil {
		return err
	}
	if err := edited.Validate(input.FlagSource, env.Styles); err != nil {
		return err
	}
	a := edited.APIs[slices.IndexFunc(edited.APIs, func(a api.API) bool { return a.Kind == o.kind })]
	if breaks := apicompat.NoneBreaks(a.Onward(a.Served[len(a.Served)-1]), a); len(breaks) > 0 {
		b := breaks[0]
		return cmdutil.UsageErrorf("--%s %q: %s of %s cannot be converted from %s by the API server alone (None conversion): %s; a new version may differ only by fields with defaults, and by fields renamed (--rename-field) or removed (--remove-field)",
			b.Key, b.Value, a.Version, a.Kind, old.Version, b.Why)
	}
	cmdutil.WarnUnguarded(env, a, edit.Rules)
	return cmdutil.WriteChange(o.Ctx, env, p, edited, o.write)
}

// refuseBreaks refuses the first breaking change, unless the version is a
// pre-release one and the user allowed it. A stable version's fields are
// removed in a new version: removed names the fields the user removed, for
// the command that does it, in the style's projects.
func refuseBreaks(a api.API, style scaffold.Style, removed []string, breaks []apicompat.Break, allow bool) error {
	if len(breaks) == 0 || (allow && apicompat.Prerelease(a.Version)) {
		return nil
	}
	b := breaks[0]
	way := fmt.Sprintf("%s is a stable version: make the change in a new version of %s", a.Version, a.Kind)
	switch {
	case apicompat.Prerelease(a.Version):
		way = fmt.Sprintf("%s is a pre-release version: --allow-breaking makes the change anyway", a.Version)
	case b.Key == "remove-field" && len(removed) > 0:
		way = removalWay(a, style, removed)
	}
	if allow && !apicompat.Prerelease(a.Version) {
		way += " (--allow-breaking is for pre-release versions only)"
	}
	return cmdutil.UsageErrorf("--%s %q: breaks %s of %s, which is served: %s; %s", b.Key, b.Value, a.Version, a.Kind, b.Why, way)
}

// removalWay says how fields are removed from a stable version: in a new
// version, whose conversion webhook keeps the values of those without a
// default, where the style's runtime serves one.
func removalWay(a api.API, style scaffold.Style, removed []string) string {
	next := api.NextGA(a.Version)
	noDefault := slices.ContainsFunc(a.Fields, func(f api.Field) bool {
		return f.Default == nil && slices.ContainsFunc(removed, func(r string) bool { return api.Below(f.Name, r) })
	})
	if noDefault && style.CannotConvert != "" {
		return fmt.Sprintf("%s is a stable version, and a version without a field that has no default takes a conversion webhook to keep its values, which %s projects cannot serve: %s",
			a.Version, style.Name, style.CannotConvert)
	}
	command := "opctl edit api --kind " + a.Kind + " --new-version " + next
	for _, r := range removed {
		command += " --remove-field " + r
	}
	if noDefault {
		return fmt.Sprintf("%s is a stable version: remove it in a new version (%s), whose conversion webhook keeps its values in an annotation for %s clients", a.Version, command, a.Version)
	}
	return fmt.Sprintf("%s is a stable version: remove it in a new version (%s)", a.Version, command)
}
