package scaffold

import (
	"bytes"
	"fmt"
	"go/format"
	"io/fs"
	"path"
	"strings"
	"text/template"

	"github.com/opctl/opctl/templates"
)

// renderer executes a style's templates into the tree, keeping the first
// error so callers can list files without checking each one.
type renderer struct {
	style    string
	tree     *Tree
	err      error
	partials *template.Template
}

var templateFuncs = template.FuncMap{
	"join":   strings.Join,
	"header": func() string { return generatedHeader },
}

// read returns a template file of the style (names may climb to ../shared).
func (r *renderer) read(name string) ([]byte, bool) {
	if r.err != nil {
		return nil, false
	}
	src, err := fs.ReadFile(templates.FS, path.Join(r.style, name))
	r.err = err
	return src, err == nil
}

func (r *renderer) file(out, name string, owner Ownership, data any) {
	src, ok := r.read(name)
	if !ok {
		return
	}
	var err error
	if r.partials == nil {
		// The shared partials are parsed once per render, then cloned.
		if r.partials, err = template.New("").Funcs(templateFuncs).Option("missingkey=error").ParseFS(templates.FS, "shared/*.tmpl"); err != nil {
			r.err = fmt.Errorf("shared templates: %w", err)
			return
		}
	}
	tmpl, err := r.partials.Clone()
	if err == nil {
		tmpl, err = tmpl.New(name).Parse(string(src))
	}
	if err != nil {
		r.err = fmt.Errorf("template %s: %w", name, err)
		return
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		r.err = fmt.Errorf("template %s: %w", name, err)
		return
	}
	content := buf.Bytes()
	if strings.HasSuffix(out, ".go") {
		if content, err = format.Source(content); err != nil {
			r.err = fmt.Errorf("internal error: %s is not valid Go: %w", out, err)
			return
		}
	}
	r.err = r.tree.Add(File{Path: out, Content: content, Owner: owner})
}

// chmod sets the mode of a file already rendered.
func (r *renderer) chmod(out string, mode fs.FileMode) {
	if r.err != nil {
		return
	}
	f, _ := r.tree.Get(out)
	f.Mode = mode
	r.tree.files[out] = f
}

// copy adds a template file verbatim (no template actions).
func (r *renderer) copy(out, name string, owner Ownership) {
	if src, ok := r.read(name); ok {
		r.err = r.tree.Add(File{Path: out, Content: src, Owner: owner})
	}
}
