package api

import (
	"github.com/opctl/opctl/scaffold/pins"
)

// Prerequisite is what the cluster needs before the operator deploys: a
// CRD, and how to install it: Install tells a person, Setup gives the
// commands that do it unattended (bash, with $KUBECTL and $TIMEOUT) at the
// versions pinned.
type Prerequisite struct {
	CRD, Install string
	Setup        func(pins.Versions) string
}
