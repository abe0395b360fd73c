package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/naming"
	"github.com/opctl/opctl/scaffold/objpath"
	"github.com/opctl/opctl/scaffold/yamltext"
)

// ConformanceDir holds the conformance cases of every kind, one directory
// per kind (its singular), one file per case. They are the user's: every
// style's tests read them, so a case added here checks the logic of
// whichever style the project is in, and `opctl migrate` carries them over.
const ConformanceDir = "test/conformance"

// conformanceUID is the uid of every case's object, so the children's
// ownerReferences are known in advance.
const conformanceUID = "0a1b2c3d-0000-4000-8000-000000000001"

// ConformanceCase is one case: an object as the API server stores it and
// either the children and status every style gives it once reconciled, or
// the message the API server rejects it with.
type ConformanceCase struct {
	Description string         `json:"description"`
	Object      map[string]any `json:"object"`
	// Observed are children that exist before the reconcile (the children
	// of an earlier spec, say); the expected children replace them.
	Observed []map[string]any `json:"observed,omitempty"`
	Children []map[string]any `json:"children,omitempty"`
	Status   map[string]any   `json:"status,omitempty"`
	Rejected string           `json:"rejected,omitempty"`
}

// ConformancePath is where the case named name of a lives.
func ConformancePath(a api.API, name string) string {
	return ConformanceDir + "/" + a.Singular() + "/" + name + ".yaml"
}

// namedCase is a case and its file's name.
type namedCase struct {
	Name string
	C    ConformanceCase
}

// conformanceCases is the starting set of cases of a kind, from its API:
// the sample, the required fields with the defaults the API server fills
// in, each enum value, each integer bound and a spec change, which must
// give their children; and what the schema refuses (a value outside the
// enum or the bounds, a required field missing), with the message the API
// server gives.
func conformanceCases(p scaffold.Project, a api.API, kind contract) []namedCase {
	sample, validator := kind.sample, kind.validator
	// A case is checked whole, or where it differs from the sample only
	// in one field's value, by that value (kindValidator.Value): the
	// sample passed the same checks in buildSample.
	whole := func(obj map[string]any) field.ErrorList { return validator.Object(asStored(obj)) }
	valueOf := func(f api.Field) func(obj map[string]any) field.ErrorList {
		if len(a.Rules) > 0 || f.InList() {
			return whole // a rule above the field may look at it
		}
		return func(obj map[string]any) field.ErrorList {
			v, _ := objpath.Value(obj["spec"].(map[string]any), f.Path())
			return validator.Value(f.Path(), stored(v))
		}
	}
	sampleSpec := RoundTrip(sample)["spec"].(map[string]any)
	spec := func() map[string]any { return runtime.DeepCopyJSON(sampleSpec) }
	var cases []namedCase
	seen := map[string]bool{}
	// add adds the case of spec s, which must be accepted (rejected == "")
	// or else rejected for that one reason: a case the schema's other
	// rules decide (a CEL rule across fields, say) is left out, as is one
	// whose name another case took.
	add := func(name, description string, s map[string]any, rejected bool, check func(map[string]any) field.ErrorList) {
		if seen[name] {
			return
		}
		obj := caseObject(a, sample, name, s, 1)
		errs := check(obj)
		switch {
		case !rejected && len(errs) == 0:
			cases = append(cases, namedCase{name, reconciled(p, a, description, obj, nil)})
		case rejected && len(errs) == 1:
			cases = append(cases, namedCase{name, ConformanceCase{Description: description, Object: obj, Rejected: errs[0].Error()}})
		default:
			return
		}
		seen[name] = true
	}
	accepted := func(name, description string, s map[string]any, check func(map[string]any) field.ErrorList) {
		add(name, description, s, false, check)
	}
	rejected := func(name, description string, s map[string]any, check func(map[string]any) field.ErrorList) {
		add(name, description, s, true, check)
	}
	accepted("sample", "The sample in config/samples.", spec(), func(map[string]any) field.ErrorList { return nil })
	minimal := map[string]any{}
	for _, f := range a.Fields {
		v, ok := objpath.Value(spec(), f.Path())
		// A list of objects is optional: the minimal spec leaves it out.
		if ok && (f.Required || f.Default != nil) && !f.InList() {
			objpath.Set(minimal, f.Path(), v)
		}
	}
	if !jsonEqual(minimal, spec()) {
		accepted("defaults", "Only the required fields, and the defaults the API server fills in for the others.", minimal, whole)
	}
	for _, f := range a.Fields {
		current, ok := objpath.Value(spec(), f.Path())
		changed := whole
		if ok {
			changed = valueOf(f)
		}
		with := func(v any) map[string]any {
			s := spec()
			objpath.Set(s, f.Path(), v)
			return s
		}
		// An enum of a list or a map is its items' (values').
		item := func(v any) any { return v }
		switch {
		case f.Type.IsList():
			item = func(v any) any { return []any{v} }
		case f.Type.IsMap():
			item = func(v any) any { return map[string]any{"example": v} }
		}
		for _, v := range f.Enum {
			if ok && jsonEqual(current, item(v)) {
				continue
			}
			accepted(caseName(a, f.Name, v), fmt.Sprintf("spec.%s set to %q, one of its values.", f.Name, v), with(item(v)), changed)
		}
		if len(f.Enum) > 0 {
			rejected(caseName(a, f.Name, "not-in-enum"), fmt.Sprintf("spec.%s set to a value outside its enum.", f.Name), with(item("not-"+f.Enum[0])), changed)
		}
		if f.Type == api.TypeInt32 || f.Type == api.TypeInt64 {
			for _, b := range []struct {
				bound  *int64
				name   string
				beyond int64
			}{{f.Min, "min", -1}, {f.Max, "max", 1}} {
				if b.bound == nil {
					continue
				}
				if !ok || !jsonEqual(current, *b.bound) {
					accepted(caseName(a, f.Name, b.name), fmt.Sprintf("spec.%s at its %s, %d.", f.Name, b.name, *b.bound), with(*b.bound), changed)
				}
				rejected(caseName(a, f.Name, "beyond-"+b.name), fmt.Sprintf("spec.%s beyond its %s.", f.Name, b.name), with(*b.bound+b.beyond), changed)
			}
		}
		if f.Required && ok {
			s := spec()
			objpath.Delete(s, f.Path())
			rejected(caseName(a, f.Name, "missing"), fmt.Sprintf("spec.%s, which is required, left out.", f.Name), s, whole)
		}
	}
	if tricky, ok := trickySpec(a, validator, sample, spec()); ok {
		accepted("tricky-values", "Values encodings disagree on (HTML characters, non-ASCII, quotes, backslashes, "+
			"newlines, a map key with a slash): the children hold them byte for byte as in every style.", tricky, whole)
	}
	if c, ok := specChange(p, a, sample, cases); ok && !seen[c.Name] {
		cases = append(cases, c)
	}
	return cases
}

// trickyValue is the value of a field of type t that encodings disagree
// on, if the type holds one.
func trickyValue(t api.FieldType) (any, bool) {
	switch t {
	case api.TypeString:
		return "a&b <c> café \"q\"\n\tback\\slash", true
	case api.TypeStringArr:
		return []any{"a&b<c>", "café", "日本", `say "hi"`, "one\ntwo", ""}, true
	case api.TypeStringMap:
		return map[string]any{"app.kubernetes.io/part-of": "a&b <c>", "café": "日本 \"q\"\n"}, true
	}
	return nil, false
}

// trickySpec is spec with each field that takes a tricky value (and is no
// convention's, whose children would refuse one) set to it, if any does.
// All are tried at once first, which one validation settles unless a rule
// refuses one of them; then one at a time.
func trickySpec(a api.API, validator *api.KindValidator, sample, spec map[string]any) (map[string]any, bool) {
	conv := a.Conventions()
	taken := []*api.Field{conv.Image, conv.Port, conv.Replicas, conv.MinReplicas, conv.MaxReplicas, conv.Host, conv.Schedule, conv.Env, conv.Requests, conv.Limits, conv.NodeSelector}
	var fields []api.Field
	for i, f := range a.Fields {
		v, ok := trickyValue(f.Type)
		if !ok || len(f.Enum) > 0 || slices.Contains(taken, &a.Fields[i]) {
			continue
		}
		// A value the field's own schema refuses fails in any spec.
		if f.InList() || len(validator.Value(f.Path(), v)) == 0 {
			fields = append(fields, f)
		}
	}
	valid := func(s map[string]any) bool {
		return len(validator.Object(asStored(caseObject(a, sample, "tricky-values", s, 1)))) == 0
	}
	all := runtime.DeepCopyJSON(spec)
	for _, f := range fields {
		v, _ := trickyValue(f.Type)
		objpath.Set(all, f.Path(), v)
	}
	if len(fields) == 0 || valid(all) {
		return all, len(fields) > 0
	}
	set := false
	for _, f := range fields {
		before := runtime.DeepCopyJSON(spec)
		v, _ := trickyValue(f.Type)
		objpath.Set(spec, f.Path(), v)
		if !valid(spec) {
			spec = before
			continue
		}
		set = true
	}
	return spec, set
}

// specChange is the sample after a change of its spec, with the children
// of the sample already there: the first accepted case whose children
// differ from the sample's, as a second generation of the sample.
func specChange(p scaffold.Project, a api.API, sample map[string]any, cases []namedCase) (namedCase, bool) {
	before := cases[0].C
	for _, c := range cases[1:] {
		if c.C.Rejected != "" || jsonEqual(c.C.Children, before.Children) {
			continue
		}
		obj := caseObject(a, sample, "spec-change", c.C.Object["spec"].(map[string]any), 2)
		observed := DesiredChildren(p, a, caseObject(a, sample, "spec-change", before.Object["spec"].(map[string]any), 1))
		description := "The sample's spec changed as in " + c.Name + ".yaml: its children follow."
		return namedCase{"spec-change", reconciled(p, a, description, obj, observed)}, true
	}
	return namedCase{}, false
}

// reconciled is the case of an accepted object: the children every style
// gives it and the status once they are there.
func reconciled(p scaffold.Project, a api.API, description string, obj map[string]any, observed []map[string]any) ConformanceCase {
	meta := obj["metadata"].(map[string]any)
	status := a.StatusStarter().Status(meta["name"].(string))
	maps.Copy(status, a.ScaleStatus(p.Name, meta["name"].(string), obj["spec"].(map[string]any)))
	status["observedGeneration"] = meta["generation"]
	desired := DesiredChildren(p, a, obj)
	ready := map[string]any{"type": "Ready", "status": "True", "reason": "Reconciled"}
	if len(Outdated(desired, observed)) > 0 {
		ready["status"], ready["reason"] = "False", OutdatedReason
		description = strings.TrimSuffix(description, ".") + ", but for a Job, which cannot change once created: it stays as it was, " +
			"and Ready is False with reason " + OutdatedReason + " until it is deleted (and made again)."
	}
	status["conditions"] = []any{ready}
	return ConformanceCase{
		Description: description, Object: obj, Observed: RoundTripAll(observed),
		Children: RoundTripAll(Reconciled(desired, observed)),
		Status:   RoundTrip(status),
	}
}

// caseObject is the sample named after its case, with spec, as the API
// server returns it.
func caseObject(a api.API, sample map[string]any, name string, spec map[string]any, generation int64) map[string]any {
	meta := map[string]any{"name": a.Singular() + "-" + name, "uid": conformanceUID, "generation": generation}
	if a.Namespaced {
		meta["namespace"] = "default"
	}
	return RoundTrip(map[string]any{"apiVersion": sample["apiVersion"], "kind": sample["kind"], "metadata": meta, "spec": spec})
}

// asStored is obj as the API server decodes it (see stored).
func asStored(obj map[string]any) map[string]any {
	return stored(obj).(map[string]any)
}

// RoundTripAll is RoundTrip of each object; nil stays nil.
func RoundTripAll(objs []map[string]any) []map[string]any {
	if objs == nil {
		return nil
	}
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		out[i] = RoundTrip(o)
	}
	return out
}

// caseName is the name of a's case of a field and what the case does with
// it, short enough for the case's object (<singular>-<case name>) to be
// at most MaxNameLength characters, as its children's labels need.
func caseName(a api.API, field, what string) string {
	name := strings.Trim(naming.NonNameRE().ReplaceAllString(strings.ToLower(field+"-"+what), "-"), "-")
	if limit := api.MaxNameLength - len(a.Singular()) - 1; len(name) > limit && limit > 0 {
		name = strings.TrimRight(name[:limit], "-")
	}
	return name
}

// ConformanceFile is a case as its file: a comment on what it is for, then
// its keys, what goes in before what comes out. The case's values are as
// encoding/json decodes them (RoundTrip), as the cases made here and those
// read from their files hold them.
func ConformanceFile(a api.API, c ConformanceCase) ([]byte, error) {
	return conformanceFile(fmt.Sprintf("# A conformance case of %s, written by opctl: yours to change, and to add to\n"+
		"# beside it. Every style's tests check that the object gives these children\n"+
		"# and status, or that the API server rejects it with this message.\n", a.Kind), c)
}

// olderCaseFile is a case of an older version (olderCases) as its file.
func olderCaseFile(old api.API, c ConformanceCase) ([]byte, error) {
	return conformanceFile(fmt.Sprintf("# A conformance case of %s %s, an older version still served, written by\n"+
		"# opctl: yours to change, and to add to beside it. The API server must store\n"+
		"# the object as given, or reject it with this message.\n", old.Kind, old.Version), c)
}

func conformanceFile(header string, c ConformanceCase) ([]byte, error) {
	out := []byte(header)
	for _, kv := range c.Keys() {
		b, err := yamltext.Encode(map[string]any{kv.Key: kv.Value})
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// caseKey is a key of a case's file and its value.
type caseKey struct {
	Key   string
	Value any
}

// Keys are the case's keys as encoding/json writes them (omitting what
// is empty), in the order of its file.
func (c ConformanceCase) Keys() []caseKey {
	keys := []caseKey{{"description", c.Description}, {"object", c.Object}}
	if len(c.Observed) > 0 {
		keys = append(keys, caseKey{"observed", anyList(c.Observed)})
	}
	if len(c.Children) > 0 {
		keys = append(keys, caseKey{"children", anyList(c.Children)})
	}
	if len(c.Status) > 0 {
		keys = append(keys, caseKey{"status", c.Status})
	}
	if c.Rejected != "" {
		keys = append(keys, caseKey{"rejected", c.Rejected})
	}
	return keys
}

func anyList(objs []map[string]any) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

// addConformanceCases adds each kind's starting cases, as starter files,
// and those of its older versions (olderCases). Where the kind's types are
// the team's code (Style.TypesFile), a case its code reconciles is kept
// with them: opctl's reference reconcile, which the case says, no longer
// reads the team's types. (A builder the team changed keeps the cases
// following the project: the wiring opctl writes, an owned kind added,
// reaches them.)
func addConformanceCases(p scaffold.Project, style scaffold.Style, kinds []contract, t *machinery.Tree) error {
	for i, a := range p.APIs {
		var code []string
		if style.TypesFile != nil {
			code = []string{style.TypesFile(p, a)}
		}
		for _, c := range conformanceCases(p, a, kinds[i]) {
			if err := addCase(t, ConformancePath(a, c.Name), c.C, a, ConformanceFile); err != nil {
				return err
			}
			if c.C.Rejected == "" && code != nil {
				f, _ := t.Get(ConformancePath(a, c.Name))
				f.KeptWith, f.Expects = code, true
				t.Set(f)
			}
		}
		for _, old := range a.OlderVersions() {
			older, err := olderCases(p, old)
			if err != nil {
				return err
			}
			for _, c := range older {
				if err := addCase(t, ConformanceDir+"/"+a.Singular()+"/"+old.Version+"/"+c.Name+".yaml", c.C, old, olderCaseFile); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func addCase(t *machinery.Tree, path string, c ConformanceCase, a api.API, file func(api.API, ConformanceCase) ([]byte, error)) error {
	b, err := file(a, c)
	if err != nil {
		return err
	}
	return t.Add(machinery.File{Path: path, Content: b, Owner: machinery.UserOwned})
}

// olderCases are the cases of a kind as it is in an older version (API.At),
// under test/conformance/KIND/VERSION: what that version's schema accepts,
// with its defaults, and refuses. Only the API server checks them (the
// styles' tests reconcile the cases beside them, of the version the code
// reads), so they have no children or status.
func olderCases(p scaffold.Project, old api.API) ([]namedCase, error) {
	kind, err := contractOf(p.Domain, old)
	if err != nil {
		return nil, err
	}
	cases := conformanceCases(p, old, kind)
	for i := range cases {
		c := &cases[i].C
		c.Observed, c.Children, c.Status = nil, nil, nil
	}
	return cases, nil
}
