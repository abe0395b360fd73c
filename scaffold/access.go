package scaffold

import (
	"slices"

	"github.com/opctl/opctl/scaffold/api"
)

// hasAccessRules reports whether some kind of the project has access
// rules of its own.
func (p Project) hasAccessRules() bool {
	return slices.ContainsFunc(p.APIs, func(a api.API) bool { return len(a.RBAC) > 0 })
}
