package project

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/naming"
)

// askAPI prompts for the first API the way create api's flags describe it,
// validating every answer in place with the same rules; each question
// starts from prev's answer when there is one (the user went back).
func askAPI(pr cmdutil.Prompter, domain string, prev *api.API) (api.API, error) {
	var a api.API
	var err error
	was := api.API{Version: "v1alpha1", Namespaced: true}
	if prev != nil {
		was = *prev
	}
	if a.Group, err = pr.Input("API group (without the domain)", "e.g. myapp: the full group becomes myapp."+domain, was.Group, naming.CheckGroup); err != nil {
		return a, err
	}
	if a.Version, err = pr.Input("API version", "v1, v1alpha1, v2beta3 ...", was.Version, naming.CheckVersion); err != nil {
		return a, err
	}
	if a.Kind, err = pr.Input("Kind", "UpperCamelCase, e.g. Database", was.Kind, naming.CheckNewKind); err != nil {
		return a, err
	}
	a.Plural = cmdutil.Pluralize(a.Kind)
	if a.Namespaced, err = pr.Confirm(fmt.Sprintf("Is %s namespaced?", a.Kind), was.Namespaced); err != nil {
		return a, err
	}
	if a.Fields, err = askFields(pr, a.Kind, was.Fields); err != nil {
		return a, err
	}
	if a.Namespaced {
		// Some kinds need another owned too (an autoscaler its workload):
		// the question is asked again, not the whole run lost.
		check := func(owns []string) error {
			trial := a
			trial.Owns = owns
			return ownsError(api.ValidateOwns(input.FlagSource, trial))
		}
		if a.Owns, err = pr.MultiSelect(fmt.Sprintf("Child kinds each %s owns", a.Kind), "one child of each, named <name>-<kind>", api.ChildKindNames(), was.Owns, check); err != nil {
			return a, err
		}
	}
	return a, nil
}

// ownsError is a prompt's message for a refused set of owned kinds: the
// kind and the rule, as no flag was typed.
func ownsError(err error) error {
	var inputErr *input.Error
	if errors.As(err, &inputErr) && inputErr.Rule != "" {
		return fmt.Errorf("%s %s", inputErr.Value, inputErr.Rule)
	}
	return err
}

// askFields asks for fields one by one; prev are the answers of a pass
// before, which the questions start from.
func askFields(pr cmdutil.Prompter, kind string, prev []api.Field) ([]api.Field, error) {
	var fields []api.Field
	for {
		var was *api.Field
		if len(fields) < len(prev) {
			was = &prev[len(fields)]
		}
		more, err := pr.Confirm(fmt.Sprintf("Add a spec field to %s?", kind), was != nil || len(fields) == 0 && prev == nil)
		if err != nil || !more {
			return fields, err
		}
		f, err := askField(pr, fields, was)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
}

// askField asks for one field: its name, its type, then which of the
// modifiers of --field it takes and the value of each that takes one. Each
// answer is set as --field sets it and checked together with the answers
// before it, so a default outside the enum is refused at once. Each
// question starts from was's answer, when not nil.
func askField(pr cmdutil.Prompter, earlier []api.Field, was *api.Field) (api.Field, error) {
	var f api.Field
	prev := api.Field{Type: api.TypeString}
	if was != nil {
		prev = *was
	}
	valid := func(trial api.Field) error {
		fields := append(append([]api.Field(nil), earlier...), trial)
		err := api.ValidateFields(input.FlagSource, fields)
		if err == nil {
			// Rules, and a default against them, as the API server
			// will check them: refused here, not after every question.
			err = api.ValidateFieldRules(input.FlagSource, fields)
		}
		return cmdutil.PromptError(err)
	}
	ask := func(message, help, def string, apply func(*api.Field, string) error) error {
		v, err := pr.Input(message, help, def, func(v string) error {
			trial := f
			if err := apply(&trial, v); err != nil {
				return err
			}
			return valid(trial)
		})
		if err == nil {
			err = apply(&f, v)
		}
		return err
	}
	f.Type = api.TypeString
	if err := ask("Field name", "lowerCamelCase; dots make nested objects (backup.schedule), [] lists of objects (users[].name)", prev.Name, func(t *api.Field, v string) error {
		t.Name = v
		return nil
	}); err != nil {
		return f, err
	}
	var types []string
	for _, t := range api.FieldTypes() {
		types = append(types, string(t))
	}
	typ, err := pr.Select("Type of "+f.Name, api.FieldTypeHelp(), types, string(prev.Type))
	if err != nil {
		return f, err
	}
	f.Type = api.FieldType(typ)
	offered := f.Modifiers()
	var names, flags, defaults []string
	for _, m := range offered {
		names = append(names, m.Name)
		if m.Flag {
			flags = append(flags, m.Name+": "+m.About)
		}
		if _, used := prev.ModifierValue(m.Name); used && prev.Type == f.Type {
			defaults = append(defaults, m.Name)
		}
	}
	help := "none for a plain optional field; " + strings.Join(flags, ", ") + "; the others ask for their value next"
	setFlags := func(t *api.Field, chosen []string) (values []api.FieldModifier, err error) {
		for _, m := range offered {
			switch {
			case !slices.Contains(chosen, m.Name):
			case m.Flag:
				err = errors.Join(err, t.SetModifier(m.Name, ""))
			default:
				values = append(values, m)
			}
		}
		return values, err
	}
	// Flags chosen alone are checked here: no value asked next can make
	// up for them.
	chosen, err := pr.MultiSelect("Modifiers of "+f.Name, help, names, defaults, func(chosen []string) error {
		trial := f
		values, err := setFlags(&trial, chosen)
		if err != nil || len(values) > 0 {
			return err
		}
		return valid(trial)
	})
	if err != nil {
		return f, err
	}
	values, err := setFlags(&f, chosen)
	if err != nil {
		return f, err
	}
	// The default is asked last: it is checked against the others.
	if i := slices.IndexFunc(values, func(m api.FieldModifier) bool { return m.Name == "default" }); i >= 0 {
		values = append(slices.Delete(slices.Clone(values), i, i+1), values[i])
	}
	for _, m := range values {
		def, _ := prev.ModifierValue(m.Name)
		if err := ask(m.About+" of "+f.Name, m.Name+"= of --field", def, func(t *api.Field, v string) error {
			return t.SetModifier(m.Name, v)
		}); err != nil {
			return f, err
		}
	}
	return f, nil
}

// askDecorator prompts for what create api's --target, --selector and
// --owns give in a project of a style that decorates existing kinds,
// starting from prev's answers when not nil.
func askDecorator(pr cmdutil.Prompter, prev *scaffold.Decorator) (scaffold.Decorator, error) {
	var d scaffold.Decorator
	target, selector := "apps/v1/Deployment", ""
	if prev != nil {
		target, selector = prev.Target.APIVersion+"/"+prev.Target.Kind, scaffold.SelectorText(prev.Selector)
	}
	parseTarget := func(v string) error {
		t, err := scaffold.ParseTarget(v, cmdutil.Pluralize)
		d.Target = t
		return cmdutil.PromptError(err)
	}
	v, err := pr.Input("Kind to decorate", "GROUP/VERSION/KIND, or VERSION/KIND for the core group: apps/v1/Deployment", target, parseTarget)
	if err != nil {
		return d, err
	}
	if err := parseTarget(v); err != nil {
		return d, err
	}
	parseSelector := func(v string) error {
		sel, err := scaffold.ParseSelector(v)
		d.Selector = sel
		return cmdutil.PromptError(err)
	}
	if v, err = pr.Input("Label selector of the objects to decorate (empty: all)", "KEY=VALUE[,KEY=VALUE...], e.g. app-type=web", selector, parseSelector); err != nil {
		return d, err
	}
	if err := parseSelector(v); err != nil {
		return d, err
	}
	d.Name = d.Target.Resource
	d.Owns = []string{"Service"}
	return d, nil
}
