package scaffold

import (
	"slices"

	"github.com/opctl/opctl/scaffold/api"
)

// HasAccessRules reports whether some kind of the project has access
// rules of its own.
func (p Project) HasAccessRules() bool {
	return slices.ContainsFunc(p.APIs, func(a api.API) bool { return len(a.RBAC) > 0 })
}
