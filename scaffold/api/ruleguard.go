package api

import (
	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
)

// UnguardedOptional names the optional fields without a default that a
// spec rule reads without has(): the API server refuses every object that
// leaves such a field out ("no such key"), which is rarely what the rule
// meant. A rule that does not parse names none (validation reports it).
func UnguardedOptional(a API, r Rule) []string {
	env, err := cel.NewEnv()
	if err != nil {
		return nil
	}
	parsed, iss := env.Parse(r.Rule)
	if iss.Err() != nil {
		return nil
	}
	read, guarded := map[string]bool{}, map[string]bool{}
	celast.PreOrderVisit(parsed.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() != celast.SelectKind {
			return
		}
		if path, ok := selfPath(e); ok {
			if e.AsSelect().IsTestOnly() {
				guarded[path] = true
			} else {
				read[path] = true
			}
		}
	}))
	var out []string
	for _, f := range a.Fields {
		if !f.Required && f.Default == nil && read[f.Name] && !guarded[f.Name] {
			out = append(out, f.Name)
		}
	}
	return out
}

// selfPath is the dotted path a chain of selections reads from self
// (self.backup.schedule is backup.schedule).
func selfPath(e celast.Expr) (string, bool) {
	switch e.Kind() {
	case celast.IdentKind:
		return "", e.AsIdent() == "self"
	case celast.SelectKind:
		sel := e.AsSelect()
		parent, ok := selfPath(sel.Operand())
		if !ok {
			return "", false
		}
		if parent == "" {
			return sel.FieldName(), true
		}
		return parent + "." + sel.FieldName(), true
	}
	return "", false
}
