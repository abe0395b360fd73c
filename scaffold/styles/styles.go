// Package styles is opctl's style registry. A style is a package in a
// folder of its own here; registering it is one line in All.
package styles

import (
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles/ansible"
	golang "github.com/opctl/opctl/scaffold/styles/go"
	"github.com/opctl/opctl/scaffold/styles/kopf"
	"github.com/opctl/opctl/scaffold/styles/metacontroller"
	decorator "github.com/opctl/opctl/scaffold/styles/metacontroller-decorator"
	shelloperator "github.com/opctl/opctl/scaffold/styles/shell-operator"
)

// All is every style opctl scaffolds, in the order help shows them; the
// order also breaks checklist ties.
func All() scaffold.Styles {
	return scaffold.Styles{
		golang.Style(),
		kopf.Style(),
		metacontroller.Style(),
		decorator.Style(),
		shelloperator.Style(),
		ansible.Style(),
	}
}
