// Package templates holds the text templates of the code files opctl
// writes, one folder per style. YAML manifests are not here: they are built
// as typed objects.
package templates

import "embed"

// FS holds every template; paths start with the style name.
//
//go:embed all:go all:kopf all:metacontroller all:metacontroller-decorator all:shell-operator all:ansible all:shared
var FS embed.FS
