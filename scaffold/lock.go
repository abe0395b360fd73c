package scaffold

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/yamltext"
)

// LockFileName is where opctl records what it last wrote to each file of
// the project: machine state, apart from the user's intent in
// ProjectFileName, so a new opctl or pin changes only this file's hashes.
// Commit it: the next opctl reads it to tell your changes from its own.
const LockFileName = ".opctl/lock.yaml"

const lockFileHeader = "# Written by opctl: the SHA-256 of each file as opctl last wrote it. Commit it;\n" +
	"# do not edit it. opctl updates a generated file only while it has its hash,\n" +
	"# and a file of yours only until you change it.\n"

// lockFormat is the version of the lock file this opctl writes and reads.
const lockFormat = 1

// lock is the lock file.
type lock struct {
	Format    int               `json:"format"`
	Generated map[string]string `json:"generated,omitempty"`
	Starters  map[string]string `json:"starters,omitempty"`
}

// MarshalLock renders the lock file of p.
func MarshalLock(p Project) ([]byte, error) {
	b, err := yamltext.Marshal(lock{Format: lockFormat, Generated: p.Generated, Starters: p.Starters})
	if err != nil {
		return nil, err
	}
	return append([]byte(lockFileHeader), b...), nil
}

// readLock reads the lock file in dir into p; ok is false when there is
// none (a project an opctl before the lock wrote: its project file holds
// the hashes).
func readLock(dir string, p *Project) (ok bool, err error) {
	path := filepath.Join(dir, filepath.FromSlash(LockFileName))
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var l lock
	if err := yaml.UnmarshalStrict(b, &l); err != nil {
		return false, input.Errorf("%s is not a valid lock file: %v: restore it from version control", path, oneLine(err))
	}
	if l.Format > lockFormat {
		return false, input.Errorf("%s: format %d is newer than this opctl reads (%d): upgrade opctl", path, l.Format, lockFormat)
	}
	p.Generated, p.Starters = l.Generated, l.Starters
	return true, nil
}

// HashesInProjectFile reports whether p was read from a project file of
// before the lock, which held the hashes: the next write moves them.
func (p Project) HashesInProjectFile() bool { return p.Format < lockedProjectFormat }

// lockedProjectFormat is the first project format whose hashes are in the
// lock file.
const lockedProjectFormat = 2

// Recorded is what p's lock file records of the files opctl wrote.
func (p Project) Recorded() machinery.Recorded {
	return machinery.Recorded{Generated: p.Generated, Starters: p.Starters}
}
