package scaffold

// StatusStarter says what the starter status code of every style reports,
// so that every style writes the same and conformance cases can expect it:
// an unconstrained string status field gets the name of the kind's first
// child (the object's own name when it owns none); the other status fields
// are left to the user's code, which the starter's comment names.
type StatusStarter struct {
	// Set are the fields the starter sets, Unset the others.
	Set, Unset []Field
	// Child is the kind of the child whose name Set fields hold ("" for the
	// object's own name), Suffix what that name adds to the object's name
	// ("-configmap").
	Child, Suffix string
}

// StatusStarter is what the starter status code of the kind reports.
func (a API) StatusStarter() StatusStarter {
	var s StatusStarter
	if owned := a.OwnedKinds(); len(owned) > 0 {
		s.Child, s.Suffix = owned[0].Kind, "-"+owned[0].Suffix()
	}
	for _, f := range a.Status {
		if f.Type == TypeString && f.Enum == nil && f.Pattern == "" && f.MinLength == nil && f.MaxLength == nil {
			s.Set = append(s.Set, f)
		} else {
			s.Unset = append(s.Unset, f)
		}
	}
	return s
}

// Status is the status the starter reports for the object named name.
func (s StatusStarter) Status(name string) map[string]any {
	out := map[string]any{}
	for _, f := range s.Set {
		out[f.Name] = name + s.Suffix
	}
	return out
}
