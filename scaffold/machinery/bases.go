package machinery

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// BaseDir holds, for each file of the user's, what opctl last wrote there:
// the base from which opctl upgrade merges the user's changes with what
// opctl writes now. opctl writes it; commit it with the project, as
// whoever upgrades next needs it.
const BaseDir = ".opctl/base"

// basePath is where the base of the file at p is kept.
func basePath(p string) string { return path.Join(BaseDir, p) }

// ReadBase is what opctl last wrote at path p of the project in dir, as
// BaseDir keeps it; ok is false when it keeps none.
func ReadBase(dir, p string) (content []byte, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(basePath(p))))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// WithBases adds to a plan the changes that keep BaseDir in step with it:
// each file of the user's that opctl writes gets as its base what opctl
// rendered (for a merged file, the rendering, not the merge), and one
// the project no longer produces loses its base. A file opctl keeps keeps its base: the
// user's changes are changes from it.
func WithBases(dir string, changes []Change) ([]Change, error) {
	root, err := resolve(dir)
	if err != nil {
		return nil, err
	}
	out := changes
	for _, c := range changes {
		gone := c.Action == ActionRemove || c.Action == ActionLeave // no longer produced
		if c.File.Owner != UserOwned || !(c.Writes() || gone) {
			continue
		}
		p := basePath(c.Path)
		target := filepath.Join(dir, filepath.FromSlash(p))
		old, err := os.ReadFile(target)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", target, err)
		}
		exists := err == nil
		b := Change{Path: p, File: File{Path: p, Mode: 0o644, Owner: Generated}}
		if exists {
			b.Old = old
		}
		switch {
		case gone && exists:
			b.Action = ActionRemove
		case gone:
			continue
		default:
			b.File.Content = c.File.Content
			if c.Rendered != nil {
				b.File.Content = c.Rendered
			}
			switch {
			case !exists:
				b.Action = ActionCreate
			case bytes.Equal(old, b.File.Content):
				continue
			default:
				b.Action = ActionUpdate
			}
		}
		if err := checkInside(root, dir, target); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
