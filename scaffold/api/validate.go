package api

import (
	"cmp"
	"errors"
	"fmt"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/naming"
	"github.com/opctl/opctl/scaffold/objpath"
)

// quantityRE matches a resource.Quantity, as the CRD's pattern does.
var quantityRE = naming.LazyRegexp(quantityPattern)

// reservedTopLevel are spec field names that would shadow the objects'
// spec and status where a style's code holds both side by side (an
// ansible role's variables), or generated Go methods.
var reservedTopLevel = []string{"spec", "status", "deepCopy", "deepCopyInto", "deepCopyObject"}

// ValidateAPI checks one API against the rules of Kubernetes, Go and the
// CRD schema, and returns the first broken rule as an input.Error.
func ValidateAPI(src input.Source, domain string, a API) error {
	checks := []struct {
		key, value string
		check      func(string) error
	}{
		{"group", a.Group, naming.CheckGroup},
		{"version", a.Version, naming.CheckVersion},
		{"kind", a.Kind, naming.CheckNewKind},
		{"plural", a.Plural, naming.CheckPlural},
	}
	for _, c := range checks {
		if err := c.check(c.value); err != nil {
			return input.Invalid(src, c.key, c.value, "%v", err)
		}
	}
	if short, found := strings.CutSuffix(a.Group, "."+domain); found || a.Group == domain {
		if !found {
			short = "myapp"
		}
		return input.Invalid(src, "group", a.Group, "already ends with the project's domain %s, which opctl appends: give the group without it (%s)", domain, short)
	}
	if full := a.FullGroup(domain); len(full) > 253 {
		return input.Invalid(src, "group", a.Group, "the full group %q is longer than 253 characters", full)
	}
	if err := ValidateFields(src, a.Fields); err != nil {
		return err
	}
	if err := validateStatusFields(src, a.Status); err != nil {
		return err
	}
	if err := validateScale(src, a); err != nil {
		return err
	}
	if err := validateNames(src, a); err != nil {
		return err
	}
	if err := ValidateOwns(src, a); err != nil {
		return err
	}
	if err := validateAccess(src, a); err != nil {
		return err
	}
	return validateRules(src, domain, a)
}

// ruleErrorPath is where the CRD validation reports a rule of the spec:
// the properties down to it, the rule's index, and rule or message.
var ruleErrorPath = naming.LazyRegexp(`^spec\.validation\.openAPIV3Schema\.properties\[spec\]((?:\.properties\[[^\]]+\])*)\.x-kubernetes-validations\[(\d+)\](?:\.(rule|message))?$`)

// defaultErrorPath is where the API server finds a default of a field of
// the spec that breaks the field's own rules.
var defaultErrorPath = naming.LazyRegexp(`^spec\.validation\.openAPIV3Schema\.properties\[spec\]((?:\.properties\[[^\]]+\])+)\.default$`)

// CompileError is the first line of a CEL compilation error.
var CompileError = naming.LazyRegexp(`ERROR: <input>:\d+:(\d+): ([^\n]*)`)

// validateRules checks the API's CEL rules as the API server will when the
// CRD is applied, with its own CEL support: each must compile against the
// schema, stay within the cost budget, and have a message it accepts. The
// first broken one is named, compilation before cost.
func validateRules(src input.Source, domain string, a API) error {
	if len(a.Rules) == 0 && !slices.ContainsFunc(a.Fields, func(f Field) bool { return len(f.Rules) > 0 }) {
		return nil
	}
	crd := BuildCRD(domain, a)
	errs, err := crdErrors(crd)
	if err != nil {
		return err
	}
	if len(errs) == 0 {
		return validateSampleRules(src, domain, a)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	slices.SortStableFunc(errs, func(x, y *field.Error) int {
		return cmp.Compare(boolRank(x.Type != field.ErrorTypeInvalid), boolRank(y.Type != field.ErrorTypeInvalid))
	})
	for _, e := range errs {
		if d := defaultErrorPath().FindStringSubmatch(e.Field); d != nil {
			name := strings.NewReplacer(".properties[", ".", "]", "").Replace(d[1])[1:]
			if slices.ContainsFunc(a.Fields, func(f Field) bool { return f.Name == name }) {
				return input.Invalid(src, "field", name, "default %v breaks the field's rule: %s", e.BadValue, e.Detail)
			}
		}
		m := ruleErrorPath().FindStringSubmatch(e.Field)
		if m == nil {
			continue
		}
		var names []string
		schema := spec
		for _, part := range strings.Split(strings.TrimPrefix(m[1], "."), ".") {
			if name, ok := strings.CutPrefix(part, "properties["); ok {
				name = strings.TrimSuffix(name, "]")
				names = append(names, name)
				schema = schema.Properties[name]
			}
		}
		i, _ := strconv.Atoi(m[2])
		if i >= len(schema.XValidations) {
			continue
		}
		rule, problem := schema.XValidations[i].Rule, ruleProblem(e, m[3])
		if len(names) == 0 && slices.ContainsFunc(a.Rules, func(r Rule) bool { return r.Rule == rule }) {
			return input.Invalid(src, "rule", rule, "%s", problem)
		}
		name := strings.Join(names, ".")
		for _, f := range a.Fields {
			if f.Name == name && slices.ContainsFunc(f.Rules, func(r Rule) bool { return r.Rule == rule }) {
				return input.Invalid(src, "field", name, "rule %q %s", rule, problem)
			}
		}
	}
	return fmt.Errorf("CRD of %s is invalid: %v", a.Kind, errs.ToAggregate())
}

// ValidateFieldRules checks the rules of fields, and their defaults
// against them, as the API server will, in a kind of their own: what a
// prompt can check of a field before the kind is whole.
func ValidateFieldRules(src input.Source, fields []Field) error {
	return validateRules(src, "example.com", API{Group: "check", Version: "v1", Kind: "Check", Plural: "checks", Fields: fields})
}

// validateSampleRules checks that the sample (defaults, first enum values)
// keeps the rules: a required field, or the spec, breaking one needs
// defaults that keep it.
func validateSampleRules(src input.Source, domain string, a API) error {
	_, err := BuildSample(domain, a)
	var se *sampleError
	if !errors.As(err, &se) {
		return err
	}
	e := se.errs[0]
	if name, ok := strings.CutPrefix(e.Field, "spec."); ok {
		return input.Invalid(src, "field", name, "the sample's value (its default, or a made-up one) breaks its rule: %s; give it a default= that keeps the rule", e.Detail)
	}
	for _, r := range a.Rules {
		if e.Field == "spec" && (e.Detail == r.Message || strings.Contains(e.Detail, r.Rule)) {
			return input.Invalid(src, "rule", r.Rule, "the sample (defaults, first enum values, made-up values) breaks it: give the fields it reads defaults that keep it")
		}
	}
	return err
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ruleProblem says in one line what the API server holds against a rule.
func ruleProblem(e *field.Error, part string) string {
	switch {
	case part == "message":
		return "has a message the API server refuses: " + e.Detail
	case e.Type == field.ErrorTypeInvalid:
		if m := CompileError().FindStringSubmatch(e.Detail); m != nil {
			return fmt.Sprintf("does not compile: %s (column %s)", m[2], m[1])
		}
		return "is refused: " + strings.SplitN(e.Detail, "\n", 2)[0]
	case strings.HasPrefix(e.Detail, "contributed to"):
		return "is too expensive: with the other rules, its estimated cost is over the API server's budget for the schema; simplify them, or bound the strings they walk (maxLength)"
	default:
		detail, _, _ := strings.Cut(e.Detail, " (try")
		return "is too expensive: " + detail + "; simplify it, or bound the strings it walks (maxLength)"
	}
}

// validateNames checks the kind's short names and categories: each a
// resource name, given once, and no short name its plural or singular.
func validateNames(src input.Source, a API) error {
	for _, list := range []struct {
		key   string
		names []string
	}{{"short-names", a.ShortNames}, {"categories", a.Categories}} {
		seen := map[string]bool{}
		for _, n := range list.names {
			switch {
			case len(k8svalidation.IsDNS1035Label(n)) > 0:
				return input.Invalid(src, list.key, n, "must be lower-case letters, digits and '-', starting with a letter (a DNS-1035 label, as the API server requires)")
			case seen[n]:
				return input.Invalid(src, list.key, n, "listed twice")
			case list.key == "short-names" && (n == a.Plural || n == a.Singular()):
				return input.Invalid(src, list.key, n, "is already the kind's plural or singular")
			}
			seen[n] = true
		}
	}
	return nil
}

// ValidateOwns checks a kind's owned kinds: each known, once, with the
// kinds it needs, and none for a cluster-scoped kind.
func ValidateOwns(src input.Source, a API) error {
	seen := map[string]bool{}
	for _, o := range a.Owns {
		if !slices.Contains(ChildKindNames(), o) {
			for _, k := range ChildKindNames() {
				if strings.EqualFold(k, o) {
					return input.Invalid(src, "owns", o, "unknown kind; kinds are case-sensitive: %s", k)
				}
			}
			return input.Invalid(src, "owns", o, "unknown kind (kinds: %s)", strings.Join(ChildKindNames(), ", "))
		}
		if seen[o] {
			return input.Invalid(src, "owns", o, "listed twice")
		}
		seen[o] = true
	}
	for _, c := range a.OwnedKinds() {
		if len(c.Needs) > 0 && !slices.ContainsFunc(c.Needs, func(k string) bool { return seen[k] }) {
			return input.Invalid(src, "owns", c.Kind, "needs %s owned too: it refers to it", strings.Join(c.Needs, " or "))
		}
	}
	if !a.Namespaced && len(a.Owns) > 0 {
		return input.Invalid(src, "owns", strings.Join(a.Owns, ","), "a cluster-scoped kind has no namespace to put children in; use --namespaced or drop --owns")
	}
	return nil
}

// ValidateFields checks a list of fields: each one, and how they fit together.
func ValidateFields(src input.Source, fields []Field) error {
	byName := map[string]bool{}
	goNames := map[string]string{}
	for _, f := range fields {
		if byName[f.Name] {
			return input.Invalid(src, "field", f.Name, "defined twice")
		}
		byName[f.Name] = true
		parent, _ := strings.CutSuffix(strings.TrimSuffix(f.Name, f.Leaf()), objpath.ListSuffix+".")
		key := parent + naming.GoField(f.Leaf())
		if other, ok := goNames[key]; ok && other != f.Leaf() {
			return input.Invalid(src, "field", f.Name, "its Go name %s is %s's too: give one another name", naming.GoField(f.Leaf()), other)
		}
		goNames[key] = f.Leaf()
	}
	for _, f := range fields {
		bad := func(format string, args ...any) error {
			return input.Invalid(src, "field", f.Name, format, args...)
		}
		if err := checkField(f); err != nil {
			return bad("%v", err)
		}
		path := f.Path()
		for i := 1; i < len(path); i++ {
			parent := strings.Join(path[:i], ".")
			plain, list := strings.CutSuffix(parent, objpath.ListSuffix)
			if j := slices.IndexFunc(fields, func(d Field) bool { return d.Name == plain }); j >= 0 {
				switch d := fields[j]; {
				case list && d.Type == TypeObject:
					return bad("%q is an object: its fields are %s.NAME, not %s%s.NAME", plain, plain, plain, objpath.ListSuffix)
				case !list && d.Type == TypeObjectList:
					return bad("%q is a list of objects: its objects' fields are %s%s.NAME", plain, plain, objpath.ListSuffix)
				case d.Type != TypeObject && d.Type != TypeObjectList:
					return bad("%q is a field of type %s, so it cannot also be an object or a list; declare it %s:object (or %s:[]object) to give it fields", plain, d.Type, plain, plain)
				}
			}
			if other, ok := otherShape(byName, parent); ok {
				return bad("%q is both an object and a list of objects (%s)", plain, other)
			}
		}
		if err := checkDeclaration(f, HasBelow(fields, f.Name)); err != nil {
			return bad("%v", err)
		}
		if err := checkListField(f); err != nil {
			return bad("%v", err)
		}
	}
	return nil
}

// otherShape finds a field that has parent (an object, or a list of
// objects ending in []) in the other shape, if any.
func otherShape(byName map[string]bool, parent string) (string, bool) {
	other := parent + objpath.ListSuffix
	if plain, list := strings.CutSuffix(parent, objpath.ListSuffix); list {
		other = plain
	}
	for name := range byName {
		if strings.HasPrefix(name, other+".") {
			return name, true
		}
	}
	return "", false
}

// checkDeclaration checks a field of type object or []object that has
// fields below it: it declares their object (or list), so what applies to
// a value of its own does not apply (a pattern, item rules on a map).
func checkDeclaration(f Field, below bool) error {
	if !below || f.Type != TypeObject && f.Type != TypeObjectList {
		return nil
	}
	switch {
	case f.MapKeys != nil:
		return fmt.Errorf("mapKeys: its objects' keys are the fields below it marked key (%s[].id:string:required:key)", f.Name)
	case f.ListType != "":
		return fmt.Errorf("listType: a list of objects with fields is a map when some are marked key (else atomic)")
	}
	return nil
}

// checkListField checks what only the fields of a list's objects may be
// (keys) and what they may not (printer columns: a column shows one value).
func checkListField(f Field) error {
	path := f.Path()
	direct := len(path) > 1 && strings.HasSuffix(path[len(path)-2], objpath.ListSuffix)
	switch {
	case f.Column && f.InList():
		return fmt.Errorf("a field in a list's objects cannot be a column: a column shows one value")
	case f.Key && !direct:
		return fmt.Errorf("key marks a field of a list's objects (users[].name:string:required:key)")
	case f.Key && !f.Required && f.Default == nil:
		return fmt.Errorf("a key must be in every object of the list: make it required, or give it a default")
	}
	return nil
}

// statusOwnFields are the status properties every kind has.
var statusOwnFields = []string{"observedGeneration", "conditions"}

// validateStatusFields checks the kind's own status fields: properties of
// status (no nested objects), which the operator writes, so no modifier that
// speaks of what users may write (required, default, immutable, rule).
func validateStatusFields(src input.Source, fields []Field) error {
	seen := map[string]bool{}
	for _, f := range fields {
		bad := func(format string, args ...any) error {
			return input.Invalid(src, "status-field", f.Name, format, args...)
		}
		switch {
		case seen[f.Name]:
			return bad("defined twice")
		case strings.Contains(f.Name, "."):
			return bad("a status field is a property of status: no dots (nested objects are spec fields only)")
		case slices.Contains(statusOwnFields, f.Name):
			return bad("every kind's status has %s already", f.Name)
		case f.Required, f.Default != nil, f.Immutable, len(f.Rules) > 0:
			return bad("the operator writes status, users do not: required, default, immutable and rule do not apply (column, enum and bounds do)")
		case f.Key || f.InList():
			return bad("status fields are values of their own: no fields of lists of objects")
		}
		seen[f.Name] = true
		if err := checkField(f); err != nil {
			return bad("%v", err)
		}
	}
	return nil
}

// validateScale checks the field the scale subresource scales: an int32 of
// the spec's own, whose name and the selector's no status field takes.
func validateScale(src input.Source, a API) error {
	if a.ScaleReplicas == "" {
		return nil
	}
	if !slices.ContainsFunc(a.Fields, func(f Field) bool { return f.Name == a.ScaleReplicas && f.Type == TypeInt32 }) {
		return input.Invalid(src, "scale-replicas", a.ScaleReplicas, "must name an int32 field of the spec's own (%s has %s)", a.Kind, fieldNames(a.Fields))
	}
	for _, f := range a.Status {
		if f.Name == a.ScaleReplicas || f.Name == ScaleSelector {
			return input.Invalid(src, "scale-replicas", a.ScaleReplicas, "the scale subresource writes status.%s itself: drop the status field %s", f.Name, f.Name)
		}
	}
	return nil
}

// checkField checks one field on its own: its name, its type and its
// modifiers (not its relation to other fields).
func checkField(f Field) error {
	if err := checkFieldName(f); err != nil {
		return err
	}
	return validateModifiers(f)
}

func checkFieldName(f Field) error {
	e, err := f.Type.parse()
	if err != nil {
		return err
	}
	if k := e.innermost(); k.kind == exprKube {
		if _, err := KubeSchema(k.kube.Name); err != nil {
			return err
		}
	}
	if (e.kind == exprRaw) != (f.Schema != nil) {
		return fmt.Errorf("type schema and a field's schema go together: a field of type schema is taken whole from a CRD (create api --from-crd)")
	}
	path := f.Path()
	for i, seg := range path {
		seg, list := strings.CutSuffix(seg, objpath.ListSuffix)
		switch {
		case list && i == len(path)-1:
			return fmt.Errorf("%s%s ends the name: a list of objects holds fields, name them (%s%s.name:string), or declare it %s:[]object", seg, objpath.ListSuffix, seg, objpath.ListSuffix, seg)
		case !fieldNameRE().MatchString(seg):
			return fmt.Errorf("name %q must be letters, digits and underscores, not starting with a digit (storageClass, pg_hba)", seg)
		case i == 0 && slices.Contains(reservedTopLevel, seg):
			return fmt.Errorf("name %q is reserved", seg)
		}
	}
	return nil
}

// fieldNameRE matches a field's JSON name: lowerCamelCase as Kubernetes
// writes its own, or what an API that already exists calls it (pg_hba,
// URL): a name every style can hold (a Go field, a Python key, a jq path).
var fieldNameRE = naming.LazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)

// printable reports whether s is valid UTF-8 without control characters:
// values end up in Go markers, YAML, Python and bash.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func validateModifiers(f Field) error {
	values := append([]string{f.Pattern}, f.Enum...)
	if f.Default != nil {
		values = append(values, *f.Default)
	}
	for _, v := range values {
		if !printable(v) {
			return fmt.Errorf("value %q must be printable UTF-8", v)
		}
	}
	for _, m := range modifierTable() {
		if m.used(f) && !f.Type.Allows(m.name) {
			return fmt.Errorf("modifier %q does not apply to type %s", m.name, f.Type)
		}
	}
	if err := checkContainer(f); err != nil {
		return err
	}
	if f.Default != nil {
		_, err := parseDefault(f)
		return err
	}
	// The sample must set a required field; an optional one it can leave out.
	if _, ok := sampleValue(f); f.Required && !ok {
		return fmt.Errorf("no value for the sample fits pattern %q and the length bounds; add default=V", f.Pattern)
	}
	return nil
}

// checkStringModifiers checks the string modifiers together.
func checkStringModifiers(f Field) error {
	for _, l := range []*int64{f.MinLength, f.MaxLength} {
		if l != nil && *l < 0 {
			return fmt.Errorf("length %d is negative", *l)
		}
	}
	if f.MinLength != nil && f.MaxLength != nil && *f.MinLength > *f.MaxLength {
		return fmt.Errorf("minLength %d is greater than maxLength %d", *f.MinLength, *f.MaxLength)
	}
	seen := map[string]bool{}
	for _, e := range f.Enum {
		// enum= splits at commas, and the go style's Enum marker at
		// semicolons.
		if e == "" || strings.ContainsAny(e, ",;\"`") {
			return fmt.Errorf("enum value %q must be non-empty and free of , ; \" and `", e)
		}
		// A marker's value is trimmed, and gofmt drops a comment's
		// trailing space: the go style could not keep one.
		if strings.TrimSpace(e) != e {
			return fmt.Errorf("enum value %q must not begin or end with a space", e)
		}
		if seen[e] {
			return fmt.Errorf("enum value %q listed twice", e)
		}
		seen[e] = true
	}
	if f.Pattern != "" {
		if strings.Contains(f.Pattern, "`") {
			return fmt.Errorf("pattern must not contain a backquote")
		}
		if _, err := regexp.Compile(f.Pattern); err != nil {
			return fmt.Errorf("pattern %q does not compile: %v", f.Pattern, err)
		}
	}
	return nil
}

func validateStringDefault(f Field, d string) error {
	if strings.ContainsAny(d, "\"`") {
		return fmt.Errorf("default %q must not contain quotes", d)
	}
	if f.Enum != nil && !slices.Contains(f.Enum, d) {
		return fmt.Errorf("default %q is not in enum %s", d, strings.Join(f.Enum, ","))
	}
	n := int64(len([]rune(d)))
	if (f.MinLength != nil && n < *f.MinLength) || (f.MaxLength != nil && n > *f.MaxLength) {
		return fmt.Errorf("default %q is outside minLength/maxLength", d)
	}
	if f.Pattern != "" && !regexp.MustCompile(f.Pattern).MatchString(d) {
		return fmt.Errorf("default %q does not match pattern", d)
	}
	return nil
}
