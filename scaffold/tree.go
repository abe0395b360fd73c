package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	for _, p := range SortedKeys(t.files) {
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
	// ActionEdited is a generated file changed by hand since opctl wrote
	// it: it is not overwritten without --force.
	ActionEdited Action = "edited"
)

// Change is the planned action for one file.
type Change struct {
	Path   string
	Action Action
}

// Plan decides, without writing, what Write would do in dir: user-owned
// files that exist are kept unless force is set; generated files whose
// content no longer has the hash recorded when opctl wrote them are
// reported as edited unless force is set.
func Plan(dir string, t *Tree, recorded map[string]string, force bool) ([]Change, error) {
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
		case f.Owner == Generated && !force && recorded[f.Path] != "" && recorded[f.Path] != contentHash(old):
			changes = append(changes, Change{f.Path, ActionEdited})
		default:
			changes = append(changes, Change{f.Path, ActionUpdate})
		}
	}
	return changes, nil
}

// FS is the part of the file system Write changes; tests inject failures.
type FS interface {
	MkdirAll(path string, perm fs.FileMode) error
	WriteFile(name string, data []byte, perm fs.FileMode) error
	Rename(oldpath, newpath string) error
	Remove(name string) error
}

// OSFS is the real file system.
type OSFS struct{}

func (OSFS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }
func (OSFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := os.WriteFile(name, data, perm); err != nil {
		return err
	}
	return os.Chmod(name, perm) // WriteFile keeps the mode of an existing file
}
func (OSFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
func (OSFS) Remove(name string) error             { return os.Remove(name) }

// tmpSuffix marks files being written; they are renamed into place.
const tmpSuffix = ".opctl-tmp"

// Write applies a plan made by Plan for the same tree, all or nothing:
// every file is first written beside its target, then renamed into place;
// if any step fails, what was renamed is restored, temporary files and new
// directories are removed, and the error names the file.
func Write(fsys FS, dir string, t *Tree, changes []Change) error {
	root, err := resolve(dir)
	if err != nil {
		return err
	}
	type pending struct {
		target, tmp string
		old         []byte // nil when the file is new
		file        File
	}
	var todo []pending
	for _, c := range changes {
		if c.Action != ActionCreate && c.Action != ActionUpdate {
			continue
		}
		f := t.files[c.Path]
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := checkInside(root, dir, target); err != nil {
			return err
		}
		old, err := os.ReadFile(target)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", target, err)
		}
		todo = append(todo, pending{target: target, tmp: target + tmpSuffix, old: old, file: f})
	}

	var createdDirs, tmps []string
	var renamed []pending
	rollback := func() {
		for i := len(renamed) - 1; i >= 0; i-- {
			r := renamed[i]
			if r.old == nil {
				_ = fsys.Remove(r.target)
				continue
			}
			if fsys.WriteFile(r.tmp, r.old, r.file.Mode) == nil {
				_ = fsys.Rename(r.tmp, r.target)
			}
		}
		for _, tmp := range tmps {
			_ = fsys.Remove(tmp)
		}
		for i := len(createdDirs) - 1; i >= 0; i-- {
			_ = fsys.Remove(createdDirs[i])
		}
	}
	for _, p := range todo {
		for _, d := range missingDirs(filepath.Dir(p.target)) {
			if err := fsys.MkdirAll(d, 0o755); err != nil {
				rollback()
				return fmt.Errorf("nothing written: %s: %w", d, err)
			}
			createdDirs = append(createdDirs, d)
		}
		if err := fsys.WriteFile(p.tmp, p.file.Content, p.file.Mode); err != nil {
			rollback()
			return fmt.Errorf("nothing written: %s: %w", p.target, err)
		}
		tmps = append(tmps, p.tmp)
	}
	for i, p := range todo {
		if err := fsys.Rename(p.tmp, p.target); err != nil {
			tmps = tmps[i:]
			rollback()
			return fmt.Errorf("nothing written: %s: %w", p.target, err)
		}
		renamed = append(renamed, p)
	}
	return nil
}

// missingDirs lists the directories MkdirAll(dir) would create, outermost
// first.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

// resolve follows the symbolic links of the part of path that exists.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	existing, rest := abs, ""
	for {
		if _, err := os.Lstat(existing); err == nil || existing == filepath.Dir(existing) {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = filepath.Dir(existing)
	}
	resolved, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", err
	}
	return filepath.Join(resolved, rest), nil
}

// checkInside refuses targets that are symlinks or resolve outside the
// project directory.
func checkInside(root, dir, target string) error {
	if info, err := os.Lstat(target); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: opctl does not write through links", target)
	}
	resolved, err := resolve(filepath.Dir(target))
	if err != nil {
		return err
	}
	if resolved != root && !strings.HasPrefix(resolved, root+string(filepath.Separator)) {
		return fmt.Errorf("%s resolves outside %s: opctl writes only inside the project", target, dir)
	}
	return nil
}
