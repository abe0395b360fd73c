package render

import (
	"embed"
	"io/fs"
	"strings"
	"text/template"

	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/naming"
)

// engine holds the named templates every style's files may use: the
// Makefile's cluster targets and the README's common sections.
//
//go:embed partials/*.tmpl
var engine embed.FS

// templateFuncs are the functions every template may call.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"join":       strings.Join,
		"header":     func() string { return GeneratedHeader },
		"upperFirst": naming.UpperFirst,
		"olmDir":     func() string { return bundleSourceDir },
		"olmChannel": func() string { return defaultChannel },
		"olmMinKube": func() string { return minKubeVersion },
	}
}

// NewRenderer renders the templates in fsys into t. Each of partials holds
// named templates (*.tmpl at its root) the files may call, beside the
// engine's own (the Makefile's and README's shared sections).
func NewRenderer(t *machinery.Tree, fsys fs.FS, partials ...fs.FS) *machinery.Renderer {
	own, _ := fs.Sub(engine, "partials")
	return machinery.NewRenderer(t, fsys, templateFuncs(), append([]fs.FS{own}, partials...)...)
}
