package machinery

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
	"text/template"
)

// Renderer executes one unit's templates (a style's, or a shared part's)
// into the tree, keeping the first error so callers can list files without
// checking each one.
type Renderer struct {
	tree      *Tree
	templates fs.FS
	shared    []fs.FS
	funcs     template.FuncMap
	err       error
	parsed    *template.Template
	// left and right delimit the actions of the unit's own templates
	// (Delims); the partials keep {{ and }}.
	left, right string
}

// NewRenderer renders the templates in fsys into t, with funcs. Each of
// partials holds named templates (*.tmpl at its root) the files may call.
func NewRenderer(t *Tree, fsys fs.FS, funcs template.FuncMap, partials ...fs.FS) *Renderer {
	return &Renderer{tree: t, templates: fsys, funcs: funcs, shared: partials}
}

// Delims sets the action delimiters of the unit's own templates, for files
// whose own syntax is full of {{ and }} (Jinja2, Helm): they are written as
// they read, and actions go between left and right.
func (r *Renderer) Delims(left, right string) *Renderer {
	r.left, r.right = left, right
	return r
}

// Err is the first error of any file rendered so far.
func (r *Renderer) Err() error { return r.err }

func (r *Renderer) read(name string) ([]byte, bool) {
	if r.err != nil {
		return nil, false
	}
	src, err := fs.ReadFile(r.templates, name)
	r.err = err
	return src, err == nil
}

// File renders template name to out.
func (r *Renderer) File(out, name string, owner Ownership, data any) {
	if r.err != nil {
		return
	}
	var err error
	if r.parsed == nil {
		// The partials are parsed once per renderer.
		if r.parsed, err = parsePartials(r.funcs, r.shared); err != nil {
			r.err = err
			return
		}
	}
	// A file's template joins the partials' set (under a name no partial
	// has), parsed once per renderer: a kind's files are rendered for
	// every kind.
	tmpl := r.parsed.Lookup("file:" + name)
	if tmpl == nil {
		src, ok := r.read(name)
		if !ok {
			return
		}
		if tmpl, err = r.parsed.New("file:"+name).Delims(r.left, r.right).Parse(string(src)); err != nil {
			r.err = fmt.Errorf("template %s: %w", name, err)
			return
		}
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		r.err = fmt.Errorf("template %s: %w", name, err)
		return
	}
	content := buf.Bytes()
	if strings.HasSuffix(out, ".go") {
		if content, err = goSource(content); err != nil {
			r.err = fmt.Errorf("internal error: %s is not valid Go: %w", out, err)
			return
		}
	}
	r.err = r.tree.Add(File{Path: out, Content: content, Owner: owner})
}

func parsePartials(funcs template.FuncMap, sets []fs.FS) (*template.Template, error) {
	t := template.New("").Funcs(funcs).Option("missingkey=error")
	for _, set := range sets {
		names, err := fs.Glob(set, "*.tmpl")
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			src, err := fs.ReadFile(set, name)
			if err != nil {
				return nil, err
			}
			if _, err := t.New(name).Parse(string(src)); err != nil {
				return nil, fmt.Errorf("partial %s: %w", name, err)
			}
		}
	}
	return t, nil
}

// Template is one file of a list: the path of the file, the template that
// renders it, who owns it and, when not 0, its mode. The path may hold
// actions ({{.Singular}}) on the data the list is rendered with, so a list
// of a kind's files is data too.
type Template struct {
	Path, Source string
	Owner        Ownership
	Mode         fs.FileMode
	// Merge: the user's file that opctl brings up to date by a three-way
	// merge (File.Merge).
	Merge bool
}

// GeneratedFile is a file of a list that opctl generates.
func GeneratedFile(path, source string) Template {
	return Template{Path: path, Source: source, Owner: Generated}
}

// UserFile is a file of a list that is the user's once written.
func UserFile(path, source string) Template {
	return Template{Path: path, Source: source, Owner: UserOwned}
}

// MergedFile is a file of a list that is the user's once written, and
// that opctl brings up to date by a three-way merge (File.Merge).
func MergedFile(path, source string) Template {
	return Template{Path: path, Source: source, Owner: UserOwned, Merge: true}
}

// Executable is t with mode 0o755.
func (t Template) Executable() Template {
	t.Mode = 0o755
	return t
}

// Files renders each file of list with data.
func (r *Renderer) Files(data any, list ...Template) {
	for _, f := range list {
		if r.err != nil {
			return
		}
		out := f.Path
		if strings.Contains(out, "{{") {
			var b strings.Builder
			t, err := template.New("path").Option("missingkey=error").Parse(out)
			if err == nil {
				err = t.Execute(&b, data)
			}
			if err != nil {
				r.err = fmt.Errorf("internal error: the path %s: %w", f.Path, err)
				return
			}
			out = b.String()
		}
		r.File(out, f.Source, f.Owner, data)
		if f.Mode != 0 {
			r.Chmod(out, f.Mode)
		}
		if f.Merge && r.err == nil {
			rendered, _ := r.tree.Get(out)
			rendered.Merge = true
			r.tree.files[out] = rendered
		}
	}
}

// Chmod sets the mode of a file already rendered.
func (r *Renderer) Chmod(out string, mode fs.FileMode) {
	if r.err != nil {
		return
	}
	f, ok := r.tree.Get(out)
	if !ok {
		r.err = fmt.Errorf("internal error: chmod of %s, which is not in the tree", out)
		return
	}
	f.Mode = mode
	r.tree.files[out] = f
}

// KeepWith sets the KeptWith of a file already rendered.
func (r *Renderer) KeepWith(out string, with ...string) {
	if r.err != nil {
		return
	}
	f, ok := r.tree.Get(out)
	if !ok {
		r.err = fmt.Errorf("internal error: %s kept with %v, but not in the tree", out, with)
		return
	}
	f.KeptWith = with
	r.tree.files[out] = f
}

// Copy adds a template file verbatim (no template actions).
func (r *Renderer) Copy(out, name string, owner Ownership) {
	if src, ok := r.read(name); ok {
		r.err = r.tree.Add(File{Path: out, Content: src, Owner: owner})
	}
}

// TemplateDir is directory dir of an embedded file system: the folder a
// style or shared unit keeps its templates in.
func TemplateDir(fsys fs.FS, dir string) fs.FS {
	s, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // only an invalid path errs, a programming error
	}
	return s
}
