package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
)

// apiDocPath is the generated reference of the project's kinds (or
// decorators): what a user of the operator may write, and what the API
// server refuses.
const apiDocPath = "API.md"

// apiDoc renders API.md: per kind, its fields with their types and
// constraints, its CEL rules and the children it owns; per decorator, what
// it watches and attaches.
func apiDoc(p scaffold.Project) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- %s -->\n# The API of %s\n\n", GeneratedHeader, p.Name)
	if len(p.APIs) == 0 && len(p.Decorators) == 0 && len(p.Watches) == 0 {
		b.WriteString("No kind yet: add one with `opctl create api`.\n")
	}
	for _, a := range p.APIs {
		fmt.Fprintf(&b, "## %s (%s/%s)\n\n", a.Kind, a.FullGroup(p.Domain), a.Version)
		fmt.Fprintf(&b, "%s, resource `%s`.", map[bool]string{true: "Namespaced", false: "Cluster-scoped"}[a.Namespaced], a.Plural)
		if owned := a.OwnedKinds(); len(owned) > 0 {
			var names []string
			for _, c := range owned {
				names = append(names, fmt.Sprintf("%s `<name>-%s`", c.Kind, c.Suffix()))
			}
			fmt.Fprintf(&b, " Each one owns: %s.", strings.Join(names, ", "))
		}
		b.WriteString("\n\n")
		if len(a.Fields) > 0 {
			b.WriteString("| spec field | type | required | default | constraints |\n|---|---|---|---|---|\n")
			for _, f := range a.Fields {
				def := ""
				if f.Default != nil {
					def = "`" + *f.Default + "`"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Name, f.Type, map[bool]string{true: "yes", false: "no"}[f.Required], def, constraints(f))
			}
			b.WriteString("\n")
		}
		if len(a.Status) > 0 {
			b.WriteString("| status field | type | constraints |\n|---|---|---|\n")
			for _, f := range a.Status {
				fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Name, f.Type, constraints(f))
			}
			b.WriteString("\nBeside `observedGeneration` and the `Ready` condition, which every kind's status holds.\n\n")
		}
		if len(a.Rules) > 0 {
			b.WriteString("Rules on the whole spec (CEL, `self` is the spec), enforced by the API server:\n\n")
			for _, r := range a.Rules {
				fmt.Fprintf(&b, "- %s\n", ruleText(r.Rule, r.Message))
			}
			b.WriteString("\n")
		}
		if adm := a.Admission; adm != nil {
			b.WriteString(admissionDoc(*adm))
		}
	}
	for _, d := range p.Decorators {
		fmt.Fprintf(&b, "## Decorator %s\n\nWatches %s (%s)%s", d.Name, d.Target.Kind, d.Target.APIVersion, labelled(d.Selector))
		fmt.Fprintf(&b, " and attaches: %s.\n\n", strings.Join(d.Owns, ", "))
	}
	for _, w := range p.Watches {
		access := "read-only"
		if len(w.RBAC) > 0 {
			access = "reads them, and your code may " + strings.Join(w.RBAC, "; ")
		}
		fmt.Fprintf(&b, "## Watch %s\n\nReacts to existing %s (%s) %s: %s, no CRD. Each one, when it appears and when it changes, is handed to your code; an Event with reason `%s` and your code's message is recorded on it. When your code fails, the failure is logged and no Event is recorded.\n\n",
			w.Name, w.Target.Kind, w.Target.APIVersion, p.WatchIn(w).Where, access, WatchHandledReason)
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

// constraints is a field's schema constraints in words, its rules and its
// immutability included.
func constraints(f api.Field) string {
	var out []string
	if f.Enum != nil {
		out = append(out, "one of "+strings.Join(f.Enum, ", "))
	}
	for _, c := range []struct {
		name string
		n    *int64
	}{{"min", f.Min}, {"max", f.Max}, {"minLength", f.MinLength}, {"maxLength", f.MaxLength},
		{"minItems", f.MinItems}, {"maxItems", f.MaxItems}, {"minProperties", f.MinProperties}, {"maxProperties", f.MaxProperties}} {
		if c.n != nil {
			out = append(out, c.name+" "+strconv.FormatInt(*c.n, 10))
		}
	}
	if f.Pattern != "" {
		out = append(out, "pattern `"+f.Pattern+"`")
	}
	if f.Format != "" {
		out = append(out, "format "+f.Format)
	}
	switch {
	case f.MapKeys != nil:
		out = append(out, "a map of its items by "+strings.Join(f.MapKeys, ", "))
	case f.ListType != "":
		out = append(out, "list type "+f.ListType)
	}
	if f.Key {
		out = append(out, "a key of its list")
	}
	if f.Immutable {
		out = append(out, "immutable")
	}
	for _, r := range f.Rules {
		out = append(out, "rule "+ruleText(r.Rule, r.Message))
	}
	for _, r := range f.ItemRules {
		out = append(out, "each item: rule "+ruleText(r.Rule, r.Message))
	}
	return strings.ReplaceAll(strings.Join(out, "; "), "|", `\|`)
}

func ruleText(rule, message string) string {
	if message == "" {
		return "`" + rule + "`"
	}
	return fmt.Sprintf("`%s` (else: %s)", rule, message)
}

// admissionDoc says what a kind's admission checks and fills in.
func admissionDoc(adm api.Admission) string {
	var does []string
	if adm.Validate {
		does = append(does, "checks each object on create and update (the starter check: a name of at most "+fmt.Sprint(api.MaxNameLength)+" characters)")
	}
	if adm.Default {
		does = append(does, "fills it in first (the starter default: the "+scaffold.DefaultedLabel+" label)")
	}
	out := "Admission " + strings.Join(does, " and ") + ".\n\n"
	if len(adm.Rules) > 0 {
		out += "Its ValidatingAdmissionPolicy also refuses what these do not allow (CEL over `object`, `oldObject`, `request`):\n\n"
		for _, r := range adm.Rules {
			out += "- " + ruleText(r.Rule, r.Message) + "\n"
		}
		out += "\n"
	}
	return out
}

// labelled is a label selector in words, "" when it selects everything.
func labelled(selector map[string]string) string {
	if len(selector) == 0 {
		return ""
	}
	return " labelled `" + scaffold.SelectorText(selector) + "`"
}
