// Package templates holds the text templates of the code files opctl
// writes, one folder per style. YAML manifests are not here: they are built
// as typed objects.
package templates

import "embed"

// FS holds every template; paths start with the style name (a new
// style's folder is embedded without naming it here).
//
//go:embed all:*
var FS embed.FS
