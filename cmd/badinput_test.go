package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
)

// TestBadInputs runs the real commands with bad input of every kind: each
// must exit 2 (usage) or 1 (failure) with one line on stderr naming the
// flag or file and the value, and leave the directory exactly as it was.
func TestBadInputs(t *testing.T) {
	t.Parallel()
	example := toyStyles()[0].Name
	decorating := styleWith(t, func(s scaffold.Style) bool { return s.ExistingKinds })
	goStyle := styleWith(t, func(s scaffold.Style) bool { return s.ModulePath })
	noModule := styleWith(t, func(s scaffold.Style) bool { return !s.ModulePath && !s.ExistingKinds })
	noResync := styleWith(t, func(s scaffold.Style) bool { return !s.Resync && !s.ExistingKinds })
	create := func(extra ...string) []string {
		return append([]string{"create", "api", "--group", "myapp", "--version", "v1", "--kind", "Widget"}, extra...)
	}
	tests := []struct {
		name  string
		setup string // empty, makefile, seed, corrupt, blank, newer, symlink, from
		args  []string
		code  int
		want  string
	}{
		{"init without style", "empty", []string{"init", "--domain", "example.com"}, 2, "--style is required"},
		{"init unknown style", "empty", []string{"init", "--style", "rust", "--domain", "example.com"}, 2, `--style "rust": unknown style`},
		{"init without domain", "empty", []string{"init", "--style", example}, 2, "--domain is required"},
		{"init domain upper case", "empty", []string{"init", "--style", example, "--domain", "Example.com"}, 2, `--domain "Example.com"`},
		{"init domain underscore", "empty", []string{"init", "--style", example, "--domain", "my_domain.com"}, 2, `--domain "my_domain.com"`},
		{"init name upper case", "empty", []string{"init", "--style", example, "--domain", "example.com", "--name", "DB"}, 2, `--name "DB"`},
		{"init where a Makefile is", "makefile", []string{"init", "--style", example, "--domain", "example.com", "--name", "db", "--yes"}, 2, "already has a Makefile: the project's workflow and README run the targets opctl writes"},
		{"init name too long", "empty", []string{"init", "--style", example, "--domain", "example.com", "--name", strings.Repeat("a", 64)}, 2, "--name"},
		{"init resync zero", "empty", []string{"init", "--style", styleWith(t, func(s scaffold.Style) bool { return s.Resync }), "--domain", "example.com", "--resync-seconds", "0"}, 2, "--resync-seconds 0"},
		{"init over a project", "seed", []string{"init", "--style", example, "--domain", "example.com", "--yes"}, 2, "already has opctl.yaml"},
		{"init two directories", "empty", []string{"init", "a", "b"}, 2, `takes at most 1 argument`},
		{"unknown flag", "empty", []string{"init", "--colour"}, 2, "unknown flag: --colour"},
		{"unknown command", "empty", []string{"destroy"}, 1, `unknown command "destroy"`},
		{"kind lower case", "seed", create("--kind", "widget"), 2, `--kind "widget"`},
		{"version without v", "seed", create("--version", "1"), 2, `--version "1"`},
		{"version alpha0", "seed", create("--version", "v1alpha0"), 2, `--version "v1alpha0"`},
		{"group underscore", "seed", create("--group", "my_app"), 2, `--group "my_app"`},
		{"group upper case", "seed", create("--group", "MyApp"), 2, `--group "MyApp"`},
		{"plural upper case", "seed", create("--plural", "Widgets"), 2, `--plural "Widgets"`},
		{"unknown type", "seed", create("--field", "size:decimal"), 2, `--field "size:decimal": unknown type "decimal"`},
		{"unknown modifier", "seed", create("--field", "size:int32:positive"), 2, `unknown modifier "positive"`},
		{"modifier for another type", "seed", create("--field", "size:int32:minLength=1"), 2, `modifier "minLength" does not apply to type int32`},
		{"min above max", "seed", create("--field", "size:int32:min=5:max=1"), 2, `--field "size": min 5 is greater than max 1`},
		{"minLength above maxLength", "seed", create("--field", "s:string:minLength=5:maxLength=1"), 2, "minLength 5 is greater than maxLength 1"},
		{"default outside enum", "seed", create("--field", "mode:string:enum=a,b:default=c"), 2, `default "c" is not in enum a,b`},
		{"default outside range", "seed", create("--field", "size:int32:max=3:default=4"), 2, "default 4 is outside min/max"},
		{"default not a bool", "seed", create("--field", "on:bool:default=yes"), 2, `default "yes" is not true or false`},
		{"default not a duration", "seed", create("--field", "ttl:duration:default=soon"), 2, `default "soon" is not a duration`},
		{"default not a datetime", "seed", create("--field", "at:datetime:default=today"), 2, `default "today" is not an RFC 3339 date-time`},
		{"default not a quantity", "seed", create("--field", "mem:quantity:default=Gi"), 2, `default "Gi" is not a quantity`},
		{"enum value twice", "seed", create("--field", "mode:string:enum=a,a"), 2, `enum value "a" listed twice`},
		{"invalid regex", "seed", create("--field", "host:string:pattern=([a-z"), 2, `pattern "([a-z" does not compile`},
		{"duplicate field", "seed", create("--field", "size:int32", "--field", "size:string"), 2, `--field "size": defined twice`},
		{"field and object", "seed", create("--field", "backup:string", "--field", "backup.at:string"), 2, `"backup" is a field of type string, so it cannot also be an object`},
		{"reserved status", "seed", create("--field", "status:string"), 2, `name "status" is reserved`},
		{"reserved deepCopy", "seed", create("--field", "deepCopy:string"), 2, `name "deepCopy" is reserved`},
		{"dash in a name", "seed", create("--field", "my-size:int32"), 2, `name "my-size" must be letters, digits and underscores`},
		{"unknown owned kind", "seed", create("--owns", "Pod"), 2, `--owns "Pod": unknown kind`},
		{"owned kind in lower case", "seed", create("--owns", "configmap"), 2, `--owns "configmap": unknown kind; kinds are case-sensitive: ConfigMap`},
		{"decide bad value before a missing one", "empty", []string{"decide", "--language", "java"}, 2, `--language "java": want one of go, python, shell, other`}, // the toy registry's languages
		{"cluster-scoped owner", "seed", create("--namespaced=false", "--owns", "ConfigMap"), 2, "a cluster-scoped kind has no namespace"},
		{"kind already there", "seed", create("--kind", "Database"), 2, `--kind "Database": the project already has this kind`},
		{"decorator flag elsewhere", "seed", create("--target", "apps/v1/Deployment"), 2, "--target is for toy-python, toy-shell projects; this project's style is toy-go"},
		// Watches of existing kinds.
		{"watch with a field", "watching", []string{"create", "api", "--target", "v1/Secret", "--field", "a:string"}, 2, "--field does not apply with --target"},
		{"watch namespace of a cluster-scoped kind", "watching", []string{"create", "api", "--target", "v1/Node", "--namespace", "payments"}, 2, `--namespace "payments": Node is cluster-scoped`},
		{"watch bad namespace", "watching", []string{"create", "api", "--target", "v1/Secret", "--namespace", "Pay_ments"}, 2, `--namespace "Pay_ments": must be a DNS-1123 label`},
		{"watch bad selector", "watching", []string{"create", "api", "--target", "v1/Secret", "--selector", "sync"}, 2, `--selector "sync"`},
		{"watch twice", "watched", []string{"create", "api", "--target", "v1/Secret"}, 2, `--name "secrets": the project already has this watch`},
		{"decorator in a namespace", "decorator", []string{"create", "api", "--target", "apps/v1/Deployment", "--namespace", "web", "--owns", "Service"}, 2, "--namespace is for watches (toy-python projects)"},
		{"from missing file", "seed", []string{"create", "api", "--from", "nope.yaml"}, 2, "--from"},
		{"from not YAML", "from", []string{"create", "api", "--from", "bad.yaml"}, 2, "--from"},
		{"from unknown key", "from", []string{"create", "api", "--from", "unknown.yaml"}, 2, `unknown.yaml: colour: a kind has no key colour (its keys: group, domain, version, kind`},
		{"from and flags", "from", []string{"create", "api", "--from", "unknown.yaml", "--kind", "X"}, 2, "--from unknown.yaml cannot be combined with --kind"},
		{"outside a project", "empty", create(), 2, "opctl.yaml not found"},
		{"corrupt project file", "corrupt", create(), 2, "opctl.yaml is not a valid project file"},
		{"empty project file", "blank", create(), 2, "opctl.yaml is empty"},
		{"newer project file", "newer", create(), 2, "format 9 is newer than this opctl reads"},
		{"output leaves the project", "symlink", create(), 1, "resolves outside"},
		{"decide unknown language", "empty", []string{"decide", "--existing", "no", "--new-crd", "yes", "--stage", "prototype", "--language", "rust"}, 2, `--language "rust": want one of`},
		{"decide missing answers", "empty", []string{"decide", "--existing", "no"}, 2, "--new-crd is required"},
		{"decide with an operator the catalog lacks", "empty", []string{"decide", "--existing", "yes", "--software", "FooDB"}, 2,
			`--software "FooDB" is not in opctl's catalog of operators, so the checklist goes on: --new-crd is required`},
		{"decide unknown answer key", "from", []string{"decide", "--answers", "unknown.yaml"}, 2, `unknown question "colour"`},
		{"decide bad output", "empty", []string{"decide", "-o", "xml"}, 2, `-o "xml": want text or json`},
		{"kind reserved: List", "seed", create("--kind", "List"), 2, `--kind "List": Kubernetes has a kind of this name`},
		{"kind reserved: Status", "seed", create("--kind", "Status"), 2, `--kind "Status": Kubernetes has a kind of this name`},
		{"built-in kind in another group", "seed", create("--group", "apps", "--kind", "Pod"), 2, `--kind "Pod": Kubernetes has a kind of this name`},
		{"init --force over a project", "seed", []string{"init", "--style", example, "--domain", "example.com", "--yes", "--force"}, 2, "already has opctl.yaml"},
		{"init into a file", "seed", []string{"init", "opctl.yaml", "--style", example, "--domain", "example.com", "--yes"}, 2, "opctl.yaml is a file: init needs a directory"},
		{"name from the directory", "empty", []string{"init", "Capital_Dir", "--style", example, "--domain", "example.com", "--yes"}, 2,
			`directory name (the project name without --name) "Capital_Dir": must be a DNS-1123 label`},
		{"delete an unknown kind", "seed", []string{"delete", "api", "Nope"}, 2, `NAME "Nope": the project has no such kind, decorator or watch (it has Database)`},
		{"delete outside a project", "empty", []string{"delete", "api", "Database"}, 2, "opctl.yaml not found"},
		{"delete without a name", "seed", []string{"delete", "api"}, 2, "takes one argument"},
		{"delete two names", "seed", []string{"delete", "api", "Database", "Cache"}, 2, "takes one argument"},
		{"generate outside a project", "empty", []string{"generate"}, 2, "opctl.yaml not found"},
		// A hand-edited generated file stops every command that writes, a
		// dry run included, naming the file.
		{"create over an edited file", "edited", create(), 1, "config/rbac/role.yaml changed by hand since opctl generated them"},
		{"generate over an edited file", "edited", []string{"generate"}, 1, "config/rbac/role.yaml changed by hand"},
		{"delete over an edited file", "edited", []string{"delete", "api", "Database"}, 1, "config/rbac/role.yaml no longer produced but changed by hand"},
		{"dry run over an edited file", "edited", append(create(), "--dry-run"), 1, "config/rbac/role.yaml changed by hand"},
		// A file at a generated path that opctl never wrote.
		{"init over a hand-written manifest", "foreign", []string{"init", "--style", example, "--domain", "example.com", "--yes"}, 1,
			"config/manager/manager.yaml not written by opctl"},
		{"init dry run over a hand-written manifest", "foreign", []string{"init", "--style", example, "--domain", "example.com", "--yes", "--dry-run"}, 1,
			"config/manager/manager.yaml not written by opctl"},
		// A hand-edited opctl.yaml meets the rules flags meet.
		{"project file: unknown style", "yaml:style: rust\n", create(), 2, `style "rust": unknown style`},
		{"init scope unknown", "empty", []string{"init", "--style", example, "--domain", "example.com", "--scope", "world", "--yes"}, 2, `--scope "world": must be cluster (the default) or namespace`},
		{"init scope namespace where the runtime cannot", "empty", []string{"init", "--style", decorating, "--scope", "namespace", "--yes"}, 2,
			`--scope "namespace": toy-shell projects cannot watch one namespace alone: its toy runtime watches every namespace; toy-go, toy-python can`},
		{"namespace scope: a cluster-scoped kind", "yaml:style: toy-python\nscope: namespace\n", create("--namespaced=false"), 2,
			"--namespaced: Widget is cluster-scoped, and the project is namespace-scoped (scope: namespace in opctl.yaml)"},
		{"namespace scope: a watch in another namespace", "yaml:style: toy-python\nscope: namespace\n", []string{"create", "api", "--target", "v1/Secret", "--namespace", "payments"}, 2,
			`--namespace "payments": the project is namespace-scoped (scope: namespace in opctl.yaml): its watches see the namespace the operator runs in, and no other`},
		{"namespace scope: a watch of a cluster-scoped kind", "yaml:style: toy-python\nscope: namespace\n", []string{"create", "api", "--target", "v1/Node"}, 2,
			`--target "v1/Node": is cluster-scoped, and the project is namespace-scoped`},
		{"project file: unknown scope", "yaml:style: toy-python\nscope: Namespace\n", []string{"generate"}, 2, `scope "Namespace": must be cluster (the default) or namespace`},
		{"project file: no module path", "yaml:style: " + example + "\nrepo: \"\"\n", []string{"generate"}, 2, "repo: the " + example + " style needs the Go module path"},
		{"project file: bad domain", "yaml:style: " + example + "\ndomain: Example.com\n", create(), 2, `domain "Example.com"`},
		{"project file: version with a v", "yaml:style: " + example + "\nversion: v1.0.0\n", []string{"generate"}, 2,
			`version "v1.0.0": must be a SemVer version such as 0.1.0 or 1.2.0-rc.1 (no v)`},
		{"project file: decorators in a style of kinds", "yaml:style: " + example + "\n" + decoratorEntry("web"), []string{"generate"}, 2, "they have apis, not decorators"},
		{"project file: bad decorator name", "yaml:style: " + decorating + "\n" + decoratorEntry("Bad_Name"), []string{"generate"}, 2, `name "Bad_Name": must be a DNS-1123 label`},
		{"project file: apis in a style of decorators", "yaml:style: " + decorating + "\napis:\n- {group: g, version: v1, kind: K, plural: ks, namespaced: true}\n",
			[]string{"generate"}, 2, "they have decorators, not apis"},
		{"project file: kind twice", "yaml:style: " + example + "\napis:\n- {group: g, version: v1, kind: K, plural: ks, namespaced: true}\n- {group: h, version: v1, kind: K, plural: ks, namespaced: true}\n",
			[]string{"generate"}, 2, `kind "K": the project already has this kind`},
		{"project file: unknown field type", "yaml:style: " + example + "\napis:\n- {group: g, version: v1, kind: K, plural: ks, namespaced: true, fields: [{name: size, type: decimal}]}\n",
			[]string{"generate"}, 2, `unknown type "decimal"`},
		// Decorators: bad targets, selectors and attachments.
		{"decorator target in lower case", "decorator", []string{"create", "api", "--target", "apps/v1/deployment", "--owns", "Service"}, 2, `--target "apps/v1/deployment": kind "deployment"`},
		{"decorator of a cluster-scoped kind", "decorator", []string{"create", "api", "--target", "v1/Namespace", "--owns", "Service"}, 2, `--target "v1/Namespace": a cluster-scoped kind: the attachments (Service) are namespaced`},
		{"decorator attaches a Job", "decorator", []string{"create", "api", "--target", "apps/v1/Deployment", "--owns", "Job"}, 2, `--owns "Job": a decorator attaches Service`},
		{"decorator bad selector", "decorator", []string{"create", "api", "--target", "apps/v1/Deployment", "--selector", "a=b=c", "--owns", "Service"}, 2, `--selector "a=b=c"`},
		{"decorator without attachments", "decorator", []string{"create", "api", "--target", "apps/v1/Deployment"}, 2, "--owns is required"},
		// Modifiers that do not apply, and a sample no value fits.
		{"default on a map not JSON", "seed", create("--field", "labels:map[string]string:default=x"), 2, `--field "labels": default x is not JSON (a map[string]string's default is JSON: {"key":"value"})`},
		{"column on a list", "seed", create("--field", "tags:[]string:column"), 2, `modifier "column" does not apply to type []string`},
		// CEL rules, compiled with the API server's CEL support at scaffold time.
		{"rule syntax error", "seed", create("--field", "size:int32:rule=self >"), 2,
			`--field "size": rule "self >" does not compile: Syntax error: mismatched input '<EOF>'`},
		{"rule of the wrong type", "seed", create("--field", "size:int32:rule=self == 'a'"), 2,
			`--field "size": rule "self == 'a'" does not compile: found no matching overload for '_==_' applied to '(int, string)'`},
		{"rule over the cost budget", "seed", create("--field", "tags:[]string:rule=self.all(x, self.all(y, self.all(z, x == y)))"), 2,
			`--field "tags": rule "self.all(x, self.all(y, self.all(z, x == y)))" is too expensive: estimated rule cost exceeds budget`},
		{"spec rule naming no field", "seed", create("--field", "size:int32", "--rule", "self.nope > 1"), 2,
			`--rule "self.nope > 1": does not compile: undefined field 'nope'`},
		{"spec rule syntax error", "seed", create("--field", "size:int32", "--rule", "self.size >>> 1#bad"), 2,
			`--rule "self.size >>> 1": does not compile: Syntax error`},
		{"rule message over two lines", "seed", create("--field", "size:int32:rule=self > 0#one\ntwo"), 2,
			`--field "size": rule "self > 0" has a message the API server refuses`},
		{"required field whose sample breaks its rule", "seed", create("--field", "code:string:required:rule=self.startsWith('x')"), 2,
			`--field "code": the sample's value (its default, or a made-up one) breaks its rule`},
		{"spec rule the sample breaks", "seed", create("--field", "size:int32:default=5", "--rule", "self.size < 3#size under 3"), 2,
			`--rule "self.size < 3": the sample (defaults, first enum values, made-up values) breaks it`},
		{"required field no sample fits", "seed", create("--field", "code:string:maxLength=3:required:pattern=^zz[0-9]{3}$"), 2,
			`--field "code": no value for the sample fits pattern "^zz[0-9]{3}$" and the length bounds`},
		// An existing playbook, in a style that runs playbooks only.
		{"playbook in a style without playbooks", "seed", create("--playbook", "playbooks/site.yml"), 2, "--playbook is for toy-python projects; this project's style is toy-go"},
		{"playbook outside playbooks/", "policy-seed", create("--playbook", "site.yml"), 2, `--playbook "site.yml": must be a file directly under playbooks/`},
		{"playbook with a generated name", "policy-seed", create("--playbook", "playbooks/run-x.yml"), 2, `--playbook "playbooks/run-x.yml": local-*.yml and run-*.yml are the playbooks opctl generates`},
		{"playbook missing", "policy-seed", create("--playbook", "playbooks/site.yml"), 2, `--playbook "playbooks/site.yml": no such file in the project`},
		{"playbook not a playbook", "policy-seed", create("--playbook", "playbooks/vars.yml"), 2, `--playbook "playbooks/vars.yml": is not a playbook (a YAML list of plays)`},
		{"playbook play without hosts", "policy-seed", create("--playbook", "playbooks/tasks.yml"), 2, `--playbook "playbooks/tasks.yml": play 1 has no hosts`},
		{"short name not a resource name", "seed", create("--short-names", "W"), 2, `--short-names "W": must be lower-case letters, digits and '-', starting with a letter`},
		{"short name twice", "seed", create("--short-names", "w,w"), 2, `--short-names "w": listed twice`},
		{"short name the plural", "seed", create("--short-names", "widgets"), 2, `--short-names "widgets": is already the kind's plural or singular`},
		{"short name of another kind", "seed", create("--short-names", "database"), 2, `--short-names "database": already names Database in this project`},
		{"category not a DNS label", "seed", create("--categories", "my_things"), 2, `--categories "my_things": must be lower-case letters, digits and '-'`},
		// Issue 40's defects: values accepted that fail later, flags dropped.
		{"repo not a module path", "empty", []string{"init", "--style", goStyle, "--domain", "example.com", "--name", "x", "--repo", "not a module", "--yes"}, 2, `--repo "not a module": is not a Go module path`},
		{"repo in a style without a module", "empty", []string{"init", "--style", noModule, "--domain", "example.com", "--repo", "example.com/x", "--yes"}, 2, "--repo is the Go module path of"},
		{"domain in a style without kinds", "empty", []string{"init", "--style", decorating, "--domain", "example.com", "--yes"}, 2, "--domain names the API groups of a project's own kinds"},
		{"resync in a style without resync", "empty", []string{"init", "--style", noResync, "--domain", "example.com", "--resync-seconds", "30", "--yes"}, 2, "--resync-seconds is for"},
		{"repo other than the go.mod's", "gomod", []string{"init", "--style", goStyle, "--domain", "example.com", "--name", "x", "--repo", "example.com/x", "--yes"}, 2, `--repo "example.com/x": `},
		{"group with the domain", "seed", []string{"create", "api", "--group", "myapp.example.com", "--version", "v1", "--kind", "Widget"}, 2, `--group "myapp.example.com": already ends with the project's domain example.com, which opctl appends: give the group without it (myapp)`},
		{"enum value with a comma", "from", []string{"create", "api", "--from", "enumcomma.yaml"}, 2, `enumcomma.yaml: field "tier": enum value "a,b" must be non-empty and free of , ; " and `},
		// edit api: what it changes must exist, and must not break v1.
		{"edit without a kind", "seed", []string{"edit", "api", "--field", "x:string"}, 2, "--kind is required"},
		{"edit of an unknown kind", "seed", []string{"edit", "api", "--kind", "Widget", "--field", "x:string"}, 2, `--kind "Widget": the project has no such kind (kinds: Database)`},
		{"edit before any kind", "empty-project", []string{"edit", "api", "--kind", "Database", "--field", "x:string"}, 2, "--kind Database: the project has no kinds yet"},
		{"edit changing nothing", "seed", []string{"edit", "api", "--kind", "Database"}, 2, "nothing to change: give --new-version, --field"},
		{"edit in a decorator project", "decorator", []string{"edit", "api", "--kind", "Database", "--field", "x:string"}, 2, "decorate existing kinds and have none"},
		{"edit removing an unknown field", "seed", []string{"edit", "api", "--kind", "Database", "--remove-field", "size"}, 2, `--remove-field "size": Database has no such field or object (fields: engine, version, storage, replicas)`},
		{"edit owning a kind twice", "seed", []string{"edit", "api", "--kind", "Database", "--owns", "ConfigMap"}, 2, `--owns "ConfigMap": Database already owns this kind`},
		// Access beyond the owned kinds (issue 40 item 6).
		{"rbac without verbs", "seed", create("--rbac", "secrets"), 2, `--rbac "secrets": want RESOURCE[.GROUP][/SUBRESOURCE]:VERB,...`},
		{"rbac with a wildcard verb", "seed", create("--rbac", "secrets:*"), 2, `--rbac "secrets:*": name the verbs the code uses`},
		{"rbac with an unknown verb", "seed", create("--rbac", "secrets:get,fetch"), 2, `--rbac "secrets:get,fetch": verb "fetch": one of get, list, watch`},
		{"rbac with a kind for a resource", "seed", create("--rbac", "Secret:get"), 2, `--rbac "Secret:get": resource "Secret": a resource is lower-case`},
		{"rbac with a bad group", "seed", create("--rbac", "deployments.Apps:get"), 2, `--rbac "deployments.Apps:get": group "Apps"`},
		{"rbac for one resource twice", "seed", create("--rbac", "secrets:get", "--rbac", "secrets:list"), 2, `--rbac "secrets:list": Widget has a rule for secrets already: give its verbs in one rule`},
		{"watch rbac with a wildcard", "watching", []string{"create", "api", "--target", "apps/v1/Deployment", "--rbac", "deployments.apps:*"}, 2, `--rbac "deployments.apps:*": name the verbs the code uses`},
		{"watch rbac twice for a resource", "watching", []string{"create", "api", "--target", "apps/v1/Deployment", "--rbac", "deployments.apps:patch", "--rbac", "deployments.apps:update"}, 2,
			`--rbac "deployments.apps:update": the watch deployments has a rule for deployments.apps already`},
		{"edit removing rbac it has not", "seed", []string{"edit", "api", "--kind", "Database", "--remove-rbac", "pods"}, 2, `--remove-rbac "pods": Database has no access rule for this resource (rules for: none)`},
		{"edit disowning a kind not owned", "seed", []string{"edit", "api", "--kind", "Database", "--remove-owns", "Secret"}, 2, `--remove-owns "Secret": Database does not own this kind (it owns ConfigMap)`},
		{"edit removing an unknown rule", "seed", []string{"edit", "api", "--kind", "Database", "--remove-rule", "true"}, 2, `--remove-rule "true": Database has no spec rule with this expression (rules: none)`},
		{"edit with a bad field", "seed", []string{"edit", "api", "--kind", "Database", "--field", "size:int9"}, 2, `--field "size:int9": unknown type "int9"`},
		{"new version with a field without a default", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v2", "--field", "tier:string"}, 2,
			`--field "tier": v2 of Database cannot be converted from v1 by the API server alone (None conversion): it is new and has no default: objects written as v1 would lose it; a new version may differ only by fields with defaults, and by fields renamed (--rename-field) or removed (--remove-field)`},
		{"rename without a new version", "seed", []string{"edit", "api", "--kind", "Database", "--rename-field", "engine=flavor"}, 2,
			"--rename-field renames a field in a new version (--new-version): in a served version, a rename removes a field"},
		{"rename without a new name", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "engine"}, 2,
			`--rename-field "engine": must be OLD=NEW (engine=flavor, users[].name=users[].login)`},
		{"rename to another parent", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "engine=db.flavor"}, 2,
			`--rename-field "engine=db.flavor": a field keeps its parent: only the last part of its name changes (engine=NEW)`},
		{"rename of a field it lacks", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "flavor=engine"}, 2,
			`--rename-field "flavor=engine": Database has no such field, object or list of objects (fields: engine, version, storage, replicas)`},
		{"rename onto a field", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "engine=version"}, 2,
			`--rename-field "engine=version": Database has a field version already`},
		{"new version with a field without a default", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v2", "--field", "tier:string"}, 2,
			`--field "tier": v2 of Database cannot be converted from v1 by the API server alone (None conversion): it is new and has no default: objects written as v1 would lose it`},
		{"new version ranking below", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v2alpha1"}, 2,
			`--new-version "v2alpha1": ranks below v1, Database's version (Kubernetes prefers GA, then beta, then alpha, then the higher number): a new version ranks above it, e.g. v2`},
		{"new version already there", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v1"}, 2, `--new-version "v1": Database has this version already`},
		{"new version not a version", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "2"}, 2, `--new-version "2": must look like v1, v1alpha1 or v2beta3`},
		{"new version allowed to break", "seed", []string{"edit", "api", "--kind", "Database", "--new-version", "v2", "--allow-breaking"}, 2, `--allow-breaking changes a pre-release version in place; --new-version adds one`},
		{"edit removing a field of v1", "seed", []string{"edit", "api", "--kind", "Database", "--remove-field", "engine"}, 2,
			`--remove-field "engine": breaks v1 of Database, which is served: removing a field drops what objects already stored hold in it; v1 is a stable version: remove it in a new version (opctl edit api --kind Database --new-version v2 --remove-field engine), whose conversion webhook keeps its values in an annotation for v1 clients`},
		{"edit breaking v1 with --allow-breaking", "seed", []string{"edit", "api", "--kind", "Database", "--field", "replicas:int32:min=1:max=3:default=1", "--allow-breaking"}, 2,
			`--field "replicas": breaks v1 of Database, which is served: its max goes from 5 to 3: values already accepted between them would be refused; v1 is a stable version: make the change in a new version of Database (--allow-breaking is for pre-release versions only)`},
		{"list without fields", "seed", create("--field", "users[]:string"), 2, `--field "users[]": users[] ends the name: a list of objects holds fields, name them (users[].name:string)`},
		{"list and field", "seed", create("--field", "users:string", "--field", "users[].name:string"), 2, `--field "users[].name": "users" is a field of type string, so it cannot also be an object or a list; declare it users:object (or users:[]object) to give it fields`},
		{"list and object", "seed", create("--field", "users.admin:bool", "--field", "users[].name:string"), 2, `--field "users.admin": "users" is both an object and a list of objects (users[].name)`},
		{"column in a list", "seed", create("--field", "users[].name:string:column"), 2, `--field "users[].name": a field in a list's objects cannot be a column: a column shows one value`},
		{"key outside a list", "seed", create("--field", "owner:string:required:key"), 2, `--field "owner": key marks a field of a list's objects (users[].name:string:required:key)`},
		{"optional key", "seed", create("--field", "users[].email:string:key"), 2, `--field "users[].email": a key must be in every object of the list: make it required, or give it a default`},
		{"key of a list", "seed", create("--field", "users[].roles:[]string:key"), 2, `--field "users[].roles": modifier "key" does not apply to type []string`},
		{"scale of no int32 field", "seed", create("--field", "size:int64", "--scale-replicas", "size"), 2, `--scale-replicas "size": must name an int32 field of the spec's own (Widget has size)`},
		{"scale with a status field of its own", "seed", create("--field", "replicas:int32", "--scale-replicas", "replicas", "--status-field", "selector:string"), 2, `--scale-replicas "replicas": the scale subresource writes status.selector itself: drop the status field selector`},
		{"status field nested", "seed", create("--status-field", "db.endpoint:string"), 2, `--status-field "db.endpoint": a status field is a property of status: no dots`},
		{"status field every kind has", "seed", create("--status-field", "conditions:[]string"), 2, `--status-field "conditions": every kind's status has conditions already`},
		{"status field required", "seed", create("--status-field", "endpoint:string:required"), 2, `--status-field "endpoint": the operator writes status, users do not: required, default, immutable and rule do not apply`},
		{"status field twice", "seed", create("--status-field", "endpoint:string", "--status-field", "endpoint:string"), 2, `--status-field "endpoint": defined twice`},
		{"status field of an unknown type", "seed", create("--status-field", "endpoint:url"), 2, `--status-field "endpoint:url": unknown type "url"`},
		{"edit removing an unknown status field", "seed", []string{"edit", "api", "--kind", "Database", "--remove-status-field", "phase"}, 2, `--remove-status-field "phase": Database has no such status field (status fields: none)`},
		{"edit owning a kind that needs another", "seed", []string{"edit", "api", "--kind", "Database", "--owns", "HorizontalPodAutoscaler"}, 2, `--owns "HorizontalPodAutoscaler": needs Deployment or StatefulSet owned too`},
		// Admission: what the style can serve, and policy rules compiled as
		// the API server compiles them.
		{"webhook without what to do", "seed", []string{"create", "webhook", "--kind", "Database"}, 2, "--validate, --default or both are required"},
		{"webhook without kind", "seed", []string{"create", "webhook", "--validate"}, 2, "--kind is required"},
		{"webhook for an unknown kind", "seed", []string{"create", "webhook", "--kind", "Widget", "--validate"}, 2, `--kind "Widget": the project has no such kind (kinds: Database)`},
		{"webhook before any kind", "empty-project", []string{"create", "webhook", "--kind", "Database", "--validate"}, 2, "--kind Database: the project has no kinds yet"},
		{"webhook in a decorator project", "decorator", []string{"create", "webhook", "--kind", "Database", "--validate"}, 2, "decorate existing kinds and have none"},
		{"policy rule where webhooks run", "seed", []string{"create", "webhook", "--kind", "Database", "--validate", "--rule", "true"}, 2, "--rule is for ValidatingAdmissionPolicy rules"},
		{"defaulting without webhooks", "policy-seed", []string{"create", "webhook", "--kind", "Database", "--default"}, 2, "--default: toy-python projects have no admission webhook of their own"},
		{"policy rule syntax error", "policy-seed", []string{"create", "webhook", "--kind", "Database", "--validate", "--rule", "object.spec.engine =="}, 2, `--rule "object.spec.engine ==": compilation failed: ERROR: <input>:1:22: Syntax error`},
		{"policy rule of the wrong type", "policy-seed", []string{"create", "webhook", "--kind", "Database", "--validate", "--rule", "request.operation"}, 2, `--rule "request.operation": must evaluate to bool but got string`},
		{"policy rule naming no variable", "policy-seed", []string{"create", "webhook", "--kind", "Database", "--validate", "--rule", "params.x == 1"}, 2, `--rule "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'`},
		{"policy rule reading a field the kind lacks", "policy-seed", []string{"create", "webhook", "--kind", "Database", "--validate", "--rule", "object.spec.nope == 'x'"}, 2, `--rule "object.spec.nope == 'x'": does not fit Database's schema: undefined field 'nope'`},
		{"policy rule comparing the wrong type", "policy-seed", []string{"create", "webhook", "--kind", "Database", "--validate", "--rule", "object.spec.replicas == 'three'"}, 2, `--rule "object.spec.replicas == 'three'": does not fit Database's schema: found no matching overload for '_==_' applied to '(int, string)'`},
		{"policy rule without validate", "policy-seed", []string{"create", "webhook", "--kind", "Database", "--default", "--rule", "true"}, 2, "--default: toy-python projects"},
	}
	require.GreaterOrEqual(t, len(tests), 40)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			switch tt.setup {
			case "seed":
				dir = initSeed(t)
				require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
			case "corrupt", "blank", "newer":
				content := map[string]string{"corrupt": "name: [unclosed\n", "blank": "\n", "newer": "format: 9\n"}[tt.setup]
				require.NoError(t, os.WriteFile(filepath.Join(dir, "opctl.yaml"), []byte(content), 0o644))
			case "makefile":
				require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n"), 0o644))
			case "symlink":
				dir = initSeed(t)
				require.NoError(t, os.RemoveAll(filepath.Join(dir, "config")))
				require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(dir, "config")))
			case "edited":
				dir = initSeed(t)
				require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
				role := filepath.Join(dir, "config/rbac/role.yaml")
				b, err := os.ReadFile(role)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(role, append(b, "# mine\n"...), 0o644))
			case "foreign":
				manager := filepath.Join(dir, "config/manager/manager.yaml")
				require.NoError(t, os.MkdirAll(filepath.Dir(manager), 0o755))
				require.NoError(t, os.WriteFile(manager, []byte("# hand-written\n"), 0o644))
			case "policy-seed":
				require.Equal(t, 0, run(t, dir, nil, false, "init", "--style", "toy-python", "--domain", "example.com", "--name", "db", "--yes").code)
				require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "playbooks"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "playbooks/vars.yml"), []byte("target: x\n"), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "playbooks/tasks.yml"), []byte("- name: a task\n  ansible.builtin.debug: {}\n"), 0o644))
			case "gomod":
				require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n\ngo 1.26\n"), 0o644))
			case "empty-project":
				dir = initSeed(t)
			case "watching", "watched":
				require.Equal(t, 0, run(t, dir, nil, false, "init", "--style", "toy-python", "--domain", "example.com", "--name", "sync", "--yes").code)
				if tt.setup == "watched" {
					require.Equal(t, 0, run(t, dir, nil, false, "create", "api", "--target", "v1/Secret").code)
				}
			case "decorator":
				require.Equal(t, 0, run(t, dir, nil, false, "init", "--style", decorating, "--name", "web", "--yes").code)
			case "from":
				dir = initSeed(t)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("group: [\n"), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "unknown.yaml"), []byte("colour: blue\n"), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "enumcomma.yaml"), []byte("group: myapp\nversion: v1\nkind: Widget\nfields:\n- name: tier\n  type: string\n  enum: [\"a,b\", c]\n"), 0o644))
			}
			if content, ok := strings.CutPrefix(tt.setup, "yaml:"); ok {
				// A valid project file, but for the keys the row sets itself.
				for _, line := range []string{"repo: example.com/demo", "domain: example.com", "name: demo", "format: 1"} {
					key, _, _ := strings.Cut(line, ":")
					if !strings.Contains("\n"+content, "\n"+key+":") {
						content = line + "\n" + content
					}
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, "opctl.yaml"), []byte(content), 0o644))
			}
			before := snapshot(t, dir)
			r := run(t, dir, nil, false, tt.args...)
			assert.Equal(t, tt.code, r.code, r.stderr)
			assert.True(t, strings.HasPrefix(r.stderr, "opctl: "), r.stderr)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			assert.Contains(t, r.stderr, tt.want)
			assert.Equal(t, before, snapshot(t, dir), "nothing may change")
		})
	}
}

// TestReadOnlyProjectLeavesNoTrace: in a project the user cannot write,
// create api fails naming the path and leaves no temporary file behind.
func TestReadOnlyProjectLeavesNoTrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds opctl")
	}
	// The real binary runs here, so the project is in a style of the real
	// registry.
	dir, bin := t.TempDir(), buildOpctl(t)
	runBinary(t, bin, dir, "init", "--style", realStyleWith(t, func(s scaffold.Style) bool { return !s.ExistingKinds }),
		"--domain", "example.com", "--name", "ro", "--repo", "example.com/ro", "--yes")
	var args []string
	if os.Geteuid() == 0 { // root ignores permissions: act as nobody
		setpriv, err := exec.LookPath("setpriv")
		require.NoError(t, err, "setpriv not found: install util-linux")
		require.NoError(t, exec.Command("chown", "-R", "65534:65534", dir).Run())
		require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
		args = []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}
	}
	require.NoError(t, exec.Command("chmod", "-R", "a-w", dir).Run())
	t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", dir).Run() })
	before := snapshot(t, dir)
	args = append(args, bin, "create", "api", "--group", "myapp", "--version", "v1", "--kind", "Database", "--owns", "ConfigMap")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.Error(t, err)
	assert.Equal(t, 1, cmd.ProcessState.ExitCode())
	assert.Empty(t, stdout.String(), "no plan printed as if it would be written")
	assert.Contains(t, stderr.String(), "nothing written: "+dir)
	assert.Contains(t, stderr.String(), "permission denied")
	assert.Equal(t, before, snapshot(t, dir), "no file and no temporary file may appear")
}

// decoratorEntry is a decorators: entry of a project file.
func decoratorEntry(name string) string {
	return "decorators:\n- {name: " + name + ", target: {apiVersion: apps/v1, kind: Deployment, resource: deployments}, owns: [Service]}\n"
}
