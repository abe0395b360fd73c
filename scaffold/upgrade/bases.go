package upgrade

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
)

// Bases finds what opctl last wrote at a path of a project: the base of
// the merge of the user's changes to it with what opctl writes now.
type Bases interface {
	// Base is what opctl last wrote at path, whose hash the project file
	// recorded as recorded; ok is false when it cannot be found. With no
	// hash recorded (opctl recorded none of the user's files before
	// 2026-12-01) it is the file as committed with the project's first
	// opctl.yaml, which holds what opctl wrote unless the user changed it
	// before committing.
	Base(path, recorded string) (content []byte, ok bool, err error)
	// Scaffolded are the files committed with the project's first
	// opctl.yaml and unchanged since, nil when unknown.
	Scaffolded() ([]string, error)
}

// ProjectBases looks in the project's machinery.BaseDir, then, for a
// project made before opctl kept bases, in its git history: the newest
// commit of the file that holds what opctl wrote, known by its hash in any
// committed opctl.yaml.
type ProjectBases struct {
	Dir string
	// Git runs git in Dir; nil when git is not installed.
	Git func(args ...string) ([]byte, error)
	// recorded are the hashes of each file the committed project files
	// recorded, read once.
	recorded map[string]map[string]bool
}

// NewProjectBases is ProjectBases of the project in dir, with the git on
// PATH, if any.
func NewProjectBases(dir string) *ProjectBases {
	b := &ProjectBases{Dir: dir}
	if git, err := exec.LookPath("git"); err == nil {
		b.Git = func(args ...string) ([]byte, error) {
			cmd := exec.Command(git, append([]string{"-C", dir}, args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
			}
			return out, nil
		}
	}
	return b
}

// historyDepth is how many commits of a file the search reads.
const historyDepth = 500

func (b *ProjectBases) Base(path, recorded string) ([]byte, bool, error) {
	if content, ok, err := machinery.ReadBase(b.Dir, path); ok || err != nil {
		return content, ok, err
	}
	if b.Git == nil {
		return nil, false, nil
	}
	if _, err := b.Git("rev-parse", "--is-inside-work-tree"); err != nil {
		return nil, false, nil // not a repository
	}
	if recorded == "" {
		return b.scaffolded(path)
	}
	if b.recorded == nil {
		b.recorded = b.committedHashes()
	}
	want := map[string]bool{recorded: true}
	for h := range b.recorded[path] {
		want[h] = true
	}
	for _, commit := range b.commits(path) {
		content, err := b.Git("show", commit+":./"+path)
		if err != nil {
			continue // the file under another name then
		}
		if want[machinery.ContentHash(content)] {
			return content, true, nil
		}
	}
	return nil, false, nil
}

// scaffolded is path as committed with the project's first opctl.yaml.
func (b *ProjectBases) scaffolded(path string) ([]byte, bool, error) {
	commit := b.scaffoldCommit()
	if commit == "" {
		return nil, false, nil
	}
	content, err := b.Git("show", commit+":./"+path)
	if err != nil {
		return nil, false, nil // not in that commit
	}
	return content, true, nil
}

// scaffoldCommit is the commit that added opctl.yaml, or "".
func (b *ProjectBases) scaffoldCommit() string {
	out, err := b.Git("log", "--diff-filter=A", "--format=%H", "--", scaffold.ProjectFileName)
	commits := strings.Fields(string(out))
	if err != nil || len(commits) == 0 {
		return ""
	}
	return commits[len(commits)-1]
}

func (b *ProjectBases) Scaffolded() ([]string, error) {
	if b.Git == nil {
		return nil, nil
	}
	if _, err := b.Git("rev-parse", "--is-inside-work-tree"); err != nil {
		return nil, nil
	}
	commit := b.scaffoldCommit()
	if commit == "" {
		return nil, nil
	}
	// Paths relative to the project's directory, however deep in the
	// repository it is.
	files, err := b.Git("ls-tree", "-r", "--name-only", "--full-tree", commit, "--")
	if err != nil {
		return nil, err
	}
	changed, err := b.Git("diff", "--name-only", commit, "--")
	if err != nil {
		return nil, err
	}
	prefix, err := b.Git("rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	since := map[string]bool{}
	for _, f := range strings.Fields(string(changed)) {
		since[f] = true
	}
	var out []string
	for _, f := range strings.Fields(string(files)) {
		if rel, ok := strings.CutPrefix(f, strings.TrimSpace(string(prefix))); ok && !since[f] {
			out = append(out, rel)
		}
	}
	return out, nil
}

// commits are the commits that changed path, newest first.
func (b *ProjectBases) commits(path string) []string {
	out, err := b.Git("log", fmt.Sprintf("-n%d", historyDepth), "--format=%H", "--", path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// committedHashes are the hashes every committed lock or project file recorded for
// the files of the user's, by path.
func (b *ProjectBases) committedHashes() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	// The lock file records them; the project file did before it.
	for _, recording := range []string{scaffold.LockFileName, scaffold.ProjectFileName} {
		for _, commit := range b.commits(recording) {
			content, err := b.Git("show", commit+":./"+recording)
			if err != nil {
				continue
			}
			var file struct {
				Starters map[string]string `json:"starters"`
			}
			if yaml.Unmarshal(content, &file) != nil {
				continue
			}
			for path, h := range file.Starters {
				if out[path] == nil {
					out[path] = map[string]bool{}
				}
				out[path][h] = true
			}
		}
	}
	return out
}
