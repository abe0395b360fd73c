package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Ownership says whether opctl may rewrite a file on a later run.
type Ownership int

const (
	// Generated files carry the "Code generated" marker and are re-rendered
	// from the project file on every run.
	Generated Ownership = iota
	// UserOwned files are starter code: written once, then the user's.
	UserOwned
)

// File is one rendered file of a project tree.
type File struct {
	Path    string // slash-separated, relative to the project root
	Content []byte
	Mode    fs.FileMode
	Owner   Ownership
}

// Tree is a rendered project held in memory until it is fully valid.
type Tree struct {
	files map[string]File
}

// NewTree returns an empty tree.
func NewTree() *Tree { return &Tree{files: map[string]File{}} }

// Add puts a file in the tree; two renderers writing one path is a bug.
func (t *Tree) Add(f File) error {
	if _, dup := t.files[f.Path]; dup {
		return fmt.Errorf("internal error: %s rendered twice", f.Path)
	}
	if f.Mode == 0 {
		f.Mode = 0o644
	}
	t.files[f.Path] = f
	return nil
}

// Files returns the files sorted by path.
func (t *Tree) Files() []File {
	out := make([]File, 0, len(t.files))
	for _, p := range sortedKeys(t.files) {
		out = append(out, t.files[p])
	}
	return out
}

// Get returns the file at path.
func (t *Tree) Get(path string) (File, bool) {
	f, ok := t.files[path]
	return f, ok
}

// Action is what writing did (or would do) to one file.
type Action string

// The actions Write reports.
const (
	ActionCreate    Action = "create"
	ActionUpdate    Action = "update"
	ActionUnchanged Action = "unchanged"
	ActionKeep      Action = "keep"
)

// Change is the planned action for one file.
type Change struct {
	Path   string
	Action Action
}

// Plan decides, without writing, what Write would do in dir: user-owned
// files that exist are kept unless force is set.
func Plan(dir string, t *Tree, force bool) ([]Change, error) {
	var changes []Change
	for _, f := range t.Files() {
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		old, err := os.ReadFile(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{f.Path, ActionCreate})
		case err != nil:
			return nil, fmt.Errorf("%s: %w", target, err)
		case bytes.Equal(old, f.Content):
			changes = append(changes, Change{f.Path, ActionUnchanged})
		case f.Owner == UserOwned && !force:
			changes = append(changes, Change{f.Path, ActionKeep})
		default:
			changes = append(changes, Change{f.Path, ActionUpdate})
		}
	}
	return changes, nil
}

// Write applies a plan made by Plan for the same tree.
func Write(dir string, t *Tree, changes []Change) error {
	for _, c := range changes {
		if c.Action != ActionCreate && c.Action != ActionUpdate {
			continue
		}
		f := t.files[c.Path]
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, f.Content, f.Mode); err != nil {
			return err
		}
		// WriteFile keeps the mode of an existing file; set it explicitly.
		if err := os.Chmod(target, f.Mode); err != nil {
			return err
		}
	}
	return nil
}
