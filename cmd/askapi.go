package cmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/opctl/opctl/scaffold"
)

// askAPI prompts for the first API the way create api's flags describe it,
// validating every answer in place with the same rules; each question
// starts from prev's answer when there is one (the user went back).
func askAPI(pr Prompter, domain string, prev *scaffold.API) (scaffold.API, error) {
	var a scaffold.API
	var err error
	was := scaffold.API{Version: "v1alpha1", Namespaced: true}
	if prev != nil {
		was = *prev
	}
	if a.Group, err = pr.Input("API group (without the domain)", "e.g. myapp: the full group becomes myapp."+domain, was.Group, scaffold.CheckGroup); err != nil {
		return a, err
	}
	if a.Version, err = pr.Input("API version", "v1, v1alpha1, v2beta3 ...", was.Version, scaffold.CheckVersion); err != nil {
		return a, err
	}
	if a.Kind, err = pr.Input("Kind", "UpperCamelCase, e.g. Database", was.Kind, scaffold.CheckNewKind); err != nil {
		return a, err
	}
	a.Plural = pluralize(a.Kind)
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
			return ownsError(scaffold.ValidateOwns(scaffold.FlagSource, trial))
		}
		if a.Owns, err = pr.MultiSelect(fmt.Sprintf("Child kinds each %s owns", a.Kind), "one child of each, named <name>-<kind>", scaffold.ChildKindNames(), was.Owns, check); err != nil {
			return a, err
		}
	}
	return a, nil
}

// ownsError is a prompt's message for a refused set of owned kinds: the
// kind and the rule, as no flag was typed.
func ownsError(err error) error {
	var inputErr *scaffold.InputError
	if errors.As(err, &inputErr) && inputErr.Rule != "" {
		return fmt.Errorf("%s %s", inputErr.Value, inputErr.Rule)
	}
	return err
}

// askFields asks for fields one by one; prev are the answers of a pass
// before, which the questions start from.
func askFields(pr Prompter, kind string, prev []scaffold.Field) ([]scaffold.Field, error) {
	var fields []scaffold.Field
	for {
		var was *scaffold.Field
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

// askField asks for one field; each answer is checked together with the
// answers before it, so a default outside the enum is refused at once.
// Each question starts from was's answer, when not nil.
func askField(pr Prompter, earlier []scaffold.Field, was *scaffold.Field) (scaffold.Field, error) {
	var f scaffold.Field
	prev := scaffold.Field{Type: scaffold.TypeString}
	if was != nil {
		prev = *was
	}
	check := func(apply func(*scaffold.Field, string) error) func(string) error {
		return func(v string) error {
			trial := f
			if err := apply(&trial, v); err != nil {
				return err
			}
			return promptError(scaffold.ValidateFields(scaffold.FlagSource, append(append([]scaffold.Field(nil), earlier...), trial)))
		}
	}
	ask := func(message, help, def string, apply func(*scaffold.Field, string) error) error {
		v, err := pr.Input(message, help, def, check(apply))
		if err == nil {
			err = apply(&f, v)
		}
		return err
	}
	f.Type = scaffold.TypeString
	if err := ask("Field name", "lowerCamelCase; dots make nested objects (backup.schedule), [] lists of objects (users[].name)", prev.Name, func(t *scaffold.Field, v string) error {
		t.Name = v
		return nil
	}); err != nil {
		return f, err
	}
	var types []string
	for _, t := range scaffold.FieldTypes() {
		types = append(types, string(t))
	}
	typ, err := pr.Select("Type of "+f.Name, scaffold.FieldTypeHelp(), types, string(prev.Type))
	if err != nil {
		return f, err
	}
	f.Type = scaffold.FieldType(typ)
	if f.Required, err = pr.Confirm("Is "+f.Name+" required?", prev.Required); err != nil {
		return f, err
	}
	optional := func(message, def string, set func(*scaffold.Field, string) error) error {
		return ask(message+" (empty: none)", "", def, func(t *scaffold.Field, v string) error {
			if v == "" {
				return nil
			}
			return set(t, v)
		})
	}
	if f.Type.Allows("enum") {
		if err := optional("Allowed values, comma-separated", strings.Join(prev.Enum, ","), func(t *scaffold.Field, v string) error {
			t.Enum = strings.Split(v, ",")
			return nil
		}); err != nil {
			return f, err
		}
	}
	if f.Type.Allows("pattern") && f.Enum == nil {
		if err := optional("Pattern (a regular expression)", prev.Pattern, func(t *scaffold.Field, v string) error {
			t.Pattern = v
			return nil
		}); err != nil {
			return f, err
		}
	}
	if f.Type.Allows("min") {
		if err := optional("Minimum", intText(prev.Min), intSetter(func(t *scaffold.Field, n *int64) { t.Min = n })); err != nil {
			return f, err
		}
	}
	if f.Type.Allows("max") {
		if err := optional("Maximum", intText(prev.Max), intSetter(func(t *scaffold.Field, n *int64) { t.Max = n })); err != nil {
			return f, err
		}
	}
	if !f.Type.Allows("default") {
		return f, nil
	}
	if err := optional("Default", textOf(prev.Default), func(t *scaffold.Field, v string) error {
		t.Default = &v
		return nil
	}); err != nil {
		return f, err
	}
	f.Column, err = pr.Confirm("Show "+f.Name+" as a column in kubectl get?", prev.Column)
	return f, err
}

// intText is n as an answer, "" for none.
func intText(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}

// textOf is s as an answer, "" for none.
func textOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func intSetter(set func(*scaffold.Field, *int64)) func(*scaffold.Field, string) error {
	return func(t *scaffold.Field, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		set(t, &n)
		return nil
	}
}

// askDecorator prompts for what create api's --target, --selector and
// --owns give in a project of a style that decorates existing kinds,
// starting from prev's answers when not nil.
func askDecorator(pr Prompter, prev *scaffold.Decorator) (scaffold.Decorator, error) {
	var d scaffold.Decorator
	target, selector := "apps/v1/Deployment", ""
	if prev != nil {
		target, selector = prev.Target.APIVersion+"/"+prev.Target.Kind, scaffold.SelectorText(prev.Selector)
	}
	parseTarget := func(v string) error {
		t, err := scaffold.ParseTarget(v, pluralize)
		d.Target = t
		return promptError(err)
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
		return promptError(err)
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
