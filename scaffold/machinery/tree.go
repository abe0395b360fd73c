// Package machinery turns a rendered project into files on disk, safely:
// the tree of rendered files and who owns each (Tree, File), the plan of
// what writing it would do to a directory, with hand edits told from
// opctl's own by their recorded hashes (Plan), the all-or-nothing write
// (Apply), the bases opctl upgrade merges from (WithBases), and the
// template renderer the styles write their files with (Renderer). It
// knows nothing of Kubernetes or of any style.
package machinery

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	// Always is a file written whatever it holds now: opctl's own record
	// of the project (its project and lock files), which no hash covers.
	Always bool
	// Merge is a file of the user's that a change to the project brings
	// up to date by a three-way merge once the user changed it (the go
	// style's types, which the team edits as in kubebuilder), where other
	// files of the user's are kept.
	Merge bool
	// KeptWith are files of the user's that, once the user changed one,
	// keep this file of the user's as it is too, changed or not: code
	// opctl writes from the model that reads what those files declare (the
	// go style's deep copies and builders read the types, which then are
	// the team's, no longer the model's).
	KeptWith []string
	// Expects: the file says what that code does (a conformance case), so
	// while one of KeptWith is kept it is not created either.
	Expects bool
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
	for _, p := range slices.Sorted(maps.Keys(t.files)) {
		out = append(out, t.files[p])
	}
	return out
}

// Set replaces a file of the tree with f, of the same path.
func (t *Tree) Set(f File) {
	if _, ok := t.files[f.Path]; !ok {
		panic("internal error: " + f.Path + " set, but never added")
	}
	t.files[f.Path] = f
}

// Get returns the file at path.
func (t *Tree) Get(path string) (File, bool) {
	f, ok := t.files[path]
	return f, ok
}

// Action is what writing did (or would do) to one file.
type Action string

// The actions a plan holds.
const (
	ActionCreate    Action = "create"
	ActionUpdate    Action = "update"
	ActionUnchanged Action = "unchanged"
	// ActionKeep is a user-owned file that exists: opctl writes those once
	// and never again, --force or not.
	ActionKeep Action = "keep"
	// ActionEdited is a generated file changed by hand since opctl wrote
	// it; ActionForeign a file opctl would generate that it never wrote.
	// Both are conflicts: they are not overwritten without --force.
	ActionEdited  Action = "edited"
	ActionForeign Action = "exists"
	// ActionRemove is a file opctl generated that the project no longer
	// produces, unchanged since (or forced): it is removed. ActionOrphaned
	// is one edited by hand since: a conflict, like an edited file.
	ActionRemove   Action = "remove"
	ActionOrphaned Action = "orphaned"
	// ActionLeave is a file of the user's that the project no longer
	// produces and that the user changed: it stays, and is reported.
	ActionLeave Action = "leave"
	// ActionMerge is a file of the user's that opctl upgrade merged with
	// what opctl writes now; ActionMergeConflict one merged with conflicts,
	// written with conflict markers for the user to resolve.
	ActionMerge         Action = "merge"
	ActionMergeConflict Action = "conflict"
)

// Change is the planned action for one file, with what the file holds
// now (nil when it does not exist) and what opctl would write.
type Change struct {
	Path   string
	Action Action
	Old    []byte
	File   File
	// Rendered is what opctl rendered for a merged file (File holds the
	// merge): the base of its next merge.
	Rendered []byte
}

// Writes reports whether applying the change writes the file.
func (c Change) Writes() bool {
	switch c.Action {
	case ActionCreate, ActionUpdate, ActionMerge, ActionMergeConflict:
		return true
	}
	return false
}

// Conflict reports whether the change stops the write unless forced.
func (c Change) Conflict() bool {
	return c.Action == ActionEdited || c.Action == ActionForeign || c.Action == ActionOrphaned
}

// Recorded is what opctl last wrote: the hash (ContentHash) of each
// generated file and of each file of the user's (a starter).
type Recorded struct {
	Generated, Starters map[string]string
}

// ContentHash is the hash Recorded holds of a file opctl wrote.
func ContentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Plan decides, without writing, what Apply would do in dir, reading each
// file once. recorded holds the hashes of the files as opctl last wrote
// them (empty before the project exists): a generated file is updated only
// when it still has its recorded hash; one edited by hand since, or one
// opctl never wrote, is a conflict unless force is set. A file of the
// user's that exists is kept, force or not, unless it is still exactly as
// opctl last wrote it: then it is not the user's work yet, and it follows
// the project (a field added to a kind reaches its starter child builder
// and conformance cases). Recorded generated files the tree no longer has
// are removed if unchanged (or forced), else a conflict. A file to write or
// remove through a symbolic link, or outside dir, is refused here.
func Plan(dir string, t *Tree, recorded Recorded, force bool) ([]Change, error) {
	root, err := resolve(dir)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, f := range t.Files() {
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		c := Change{Path: f.Path, File: f}
		old, err := os.ReadFile(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.Action = ActionCreate
		case err != nil:
			return nil, fmt.Errorf("%s: %w", target, err)
		case bytes.Equal(old, f.Content):
			c.Action = ActionUnchanged
		case f.Owner == UserOwned && recorded.Starters[f.Path] == ContentHash(old):
			c.Action = ActionUpdate
		case f.Owner == UserOwned:
			c.Action = ActionKeep
		case f.Always || recorded.Generated[f.Path] == ContentHash(old) || force:
			c.Action = ActionUpdate
		case recorded.Generated[f.Path] != "":
			c.Action = ActionEdited
		default:
			c.Action = ActionForeign
		}
		if err == nil {
			c.Old = old
		}
		if c.Writes() {
			if err := checkInside(root, dir, target); err != nil {
				return nil, err
			}
		}
		changes = append(changes, c)
	}
	changes = keepWith(changes)
	for _, path := range slices.Sorted(maps.Keys(recorded.Generated)) {
		if _, ok := t.Get(path); ok {
			continue
		}
		c, err := dropped(root, dir, File{Path: path}, ActionOrphaned, func(old []byte) bool {
			return force || ContentHash(old) == recorded.Generated[path]
		})
		if err != nil {
			return nil, err
		}
		if c != nil {
			changes = append(changes, *c)
		}
	}
	return changes, nil
}

// keepWith keeps, of the files of the user's that follow the project, each
// one whose KeptWith names a file kept (the user changed its code, or it is
// kept with one), and leaves out such a file opctl would create when it
// Expects; the others are as Plan planned them. A file whose code the user
// left as opctl writes it now, changing only comments, keeps nothing: the
// code and cases going with it follow the project.
func keepWith(changes []Change) []Change {
	kept := map[string]bool{}
	for _, c := range changes {
		kept[c.Path] = c.Action == ActionKeep && !sameCode(c.Path, c.Old, c.File.Content)
	}
	keeps := func(c Change) bool {
		return c.File.Owner == UserOwned && slices.ContainsFunc(c.File.KeptWith, func(p string) bool { return kept[p] })
	}
	for more := true; more; {
		more = false
		for i, c := range changes {
			if (c.Action == ActionUpdate || c.Action == ActionCreate && c.File.Expects) && keeps(c) {
				changes[i].Action, kept[c.Path], more = ActionKeep, true, true
			}
		}
	}
	return slices.DeleteFunc(changes, func(c Change) bool { return c.Action == ActionKeep && c.Old == nil })
}

// dropped plans a file the tree no longer has: removed when unchanged says
// so of what it holds, else kept with the action otherwise; nil when the
// file is already gone.
func dropped(root, dir string, f File, otherwise Action, unchanged func(old []byte) bool) (*Change, error) {
	target := filepath.Join(dir, filepath.FromSlash(f.Path))
	old, err := os.ReadFile(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", target, err)
	}
	c := &Change{Path: f.Path, Action: otherwise, Old: old, File: f}
	if unchanged(old) {
		c.Action = ActionRemove
		if err := checkInside(root, dir, target); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Leave plans the user-owned files of previous that t no longer has:
// each still as previous renders it (the user never changed it) is removed;
// a changed one stays and is reported.
func Leave(dir string, previous, t *Tree) ([]Change, error) {
	var files []File
	for _, f := range previous.Files() {
		if f.Owner == UserOwned {
			files = append(files, f)
		}
	}
	return leave(dir, t, files, func(f File, old []byte) bool { return bytes.Equal(old, f.Content) })
}

// LeaveRecorded plans the files of the user's that recorded names and t no
// longer has (an earlier opctl wrote them), as Leave does, each still as
// opctl last wrote it when it has its recorded hash.
func LeaveRecorded(dir string, recorded Recorded, t *Tree) ([]Change, error) {
	var files []File
	for _, path := range slices.Sorted(maps.Keys(recorded.Starters)) {
		files = append(files, File{Path: path, Owner: UserOwned})
	}
	return leave(dir, t, files, func(f File, old []byte) bool { return ContentHash(old) == recorded.Starters[f.Path] })
}

// leave plans the files t no longer has: removed when unchanged says so of
// what they hold, else left and reported.
func leave(dir string, t *Tree, files []File, unchanged func(f File, old []byte) bool) ([]Change, error) {
	root, err := resolve(dir)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, f := range files {
		if _, ok := t.Get(f.Path); ok {
			continue
		}
		c, err := dropped(root, dir, f, ActionLeave, func(old []byte) bool { return unchanged(f, old) })
		if err != nil {
			return nil, err
		}
		if c != nil {
			changes = append(changes, *c)
		}
	}
	return changes, nil
}

// FS is the part of the file system Apply changes; tests inject failures.
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
// removedSuffix marks files being removed until the write is complete.
const (
	tmpSuffix     = ".opctl-tmp"
	removedSuffix = ".opctl-removed"
)

// ErrInterrupted is returned when the context is cancelled (Ctrl-C) while
// a plan is applied.
var ErrInterrupted = errors.New("interrupted")

// Apply carries out a plan made by Plan, all or nothing: every file is
// first written beside its target, then renamed into place, and every file
// to remove is renamed aside until the end; if any step fails, or ctx is
// cancelled before the renames begin, what was renamed is restored,
// temporary files and new directories are removed, and the error names the
// file. The renames take milliseconds and are never cut short: a
// cancellation then is reported once they are done.
func Apply(ctx context.Context, fsys FS, dir string, changes []Change) error {
	var todo []Change
	for _, c := range changes {
		if c.Writes() || c.Action == ActionRemove {
			todo = append(todo, c)
		}
	}
	target := func(c Change) string { return filepath.Join(dir, filepath.FromSlash(c.Path)) }
	var createdDirs, tmps []string
	renamed := 0
	rollback := func() {
		for i := renamed - 1; i >= 0; i-- {
			c := todo[i]
			switch {
			case c.Action == ActionRemove:
				_ = fsys.Rename(target(c)+removedSuffix, target(c))
			case c.Old == nil:
				_ = fsys.Remove(target(c))
			default:
				if fsys.WriteFile(target(c)+tmpSuffix, c.Old, c.File.Mode) == nil {
					_ = fsys.Rename(target(c)+tmpSuffix, target(c))
				}
			}
		}
		for _, tmp := range tmps {
			_ = fsys.Remove(tmp)
		}
		for i := len(createdDirs) - 1; i >= 0; i-- {
			_ = fsys.Remove(createdDirs[i])
		}
	}
	for _, c := range todo {
		if ctx.Err() != nil {
			rollback()
			return fmt.Errorf("%w: nothing written", ErrInterrupted)
		}
		if c.Action == ActionRemove {
			continue
		}
		for _, d := range missingDirs(filepath.Dir(target(c))) {
			if err := fsys.MkdirAll(d, 0o755); err != nil {
				rollback()
				return fmt.Errorf("nothing written: %s: %w", d, err)
			}
			createdDirs = append(createdDirs, d)
		}
		if err := fsys.WriteFile(target(c)+tmpSuffix, c.File.Content, c.File.Mode); err != nil {
			rollback()
			return fmt.Errorf("nothing written: %s: %w", target(c), err)
		}
		tmps = append(tmps, target(c)+tmpSuffix)
	}
	if ctx.Err() != nil {
		rollback()
		return fmt.Errorf("%w: nothing written", ErrInterrupted)
	}
	for _, c := range todo {
		from, to := target(c)+tmpSuffix, target(c)
		if c.Action == ActionRemove {
			from, to = target(c), target(c)+removedSuffix
		}
		if err := fsys.Rename(from, to); err != nil {
			tmps = tmps[renamedWrites(todo[:renamed]):]
			rollback()
			return fmt.Errorf("nothing written: %s: %w", target(c), err)
		}
		renamed++
	}
	// Past this point the new tree is in place: the files set aside go.
	for _, c := range todo {
		if c.Action == ActionRemove {
			_ = fsys.Remove(target(c) + removedSuffix)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: after all %d files were written", ErrInterrupted, len(todo))
	}
	return nil
}

// renamedWrites counts the written files among changes already renamed
// into place: their temporary files are gone.
func renamedWrites(changes []Change) int {
	n := 0
	for _, c := range changes {
		if c.Writes() {
			n++
		}
	}
	return n
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
