//go:build !windows

package cmd

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	expect "github.com/Netflix/go-expect"
	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/internal/styletest/seed"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
)

// Keys as a terminal sends them.
const (
	keyEnter = "\r"
	keyDown  = "\x1b[B"
	keySpace = " "
)

// buildOpctl compiles the real binary once per test.
func buildOpctl(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "opctl")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/opctl/opctl/cmd/opctl").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// The tests here run the real binary, so they take the styles they use,
// and what they expect of them, from the real registry.

// realStyleWith is the first style of the real registry with a capability.
func realStyleWith(t *testing.T, has func(scaffold.Style) bool) string {
	t.Helper()
	for _, s := range styles.All() {
		if has(s) {
			return s.Name
		}
	}
	t.Fatal("no style in the registry has the capability")
	return ""
}

// runBinary runs the real binary in dir without a terminal and requires
// it to succeed.
func runBinary(t *testing.T, bin, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "opctl %v: %s", args, out)
}

// ptySession runs opctl in a pseudo-terminal with a terminal emulator (so
// survey's cursor queries are answered), as survey's own tests do. Every
// expectation times out instead of hanging.
type ptySession struct {
	t       *testing.T
	console *expect.Console
	cmd     *exec.Cmd
	screen  *vt10x.Terminal
}

func startPTY(t *testing.T, dir string, args ...string) *ptySession {
	t.Helper()
	ptm, tty, err := pty.Open()
	require.NoError(t, err)
	term := vt10x.New(vt10x.WithWriter(tty))
	c, err := expect.NewConsole(expect.WithStdin(ptm), expect.WithStdout(term), expect.WithCloser(ptm, tty),
		expect.WithDefaultTimeout(20*time.Second))
	require.NoError(t, err)
	cmd := exec.Command(buildOpctl(t), args...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Tty(), c.Tty(), c.Tty()
	require.NoError(t, cmd.Start())
	s := &ptySession{t: t, console: c, cmd: cmd, screen: &term}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = c.Close()
	})
	return s
}

// answer waits for text on the screen, then types keys.
func (s *ptySession) answer(text string, keys ...string) {
	s.t.Helper()
	_, err := s.console.ExpectString(text)
	require.NoError(s.t, err, "waiting for %q; the screen shows:\n%s", text, (*s.screen).String())
	// survey switches the terminal to raw mode after drawing the prompt,
	// which discards keys typed before; let it settle first.
	time.Sleep(150 * time.Millisecond)
	for _, k := range keys {
		_, err := s.console.Send(k)
		require.NoError(s.t, err)
	}
}

// wait expects the process to end with the exit code.
func (s *ptySession) wait(code int) {
	s.t.Helper()
	// Keep reading the terminal so opctl never blocks writing to it.
	go func() { _, _ = s.console.ExpectEOF() }()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.t.Fatalf("opctl did not exit; the screen shows:\n%s", (*s.screen).String())
	}
	assert.Equal(s.t, code, s.cmd.ProcessState.ExitCode())
}

func TestDecideInPseudoTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds opctl")
	}
	s := startPTY(t, t.TempDir(), "decide")
	s.answer("well-maintained operator", keyEnter)             // no
	s.answer("new custom resource", keyEnter)                  // a new CRD
	s.answer("prototype or for production", keyDown, keyEnter) // prototype
	s.answer("main language", "python", keyEnter)              // typing filters the list
	s.answer("declarative or imperative", keyDown, keyEnter)   // imperative
	s.answer("read and fix code", keyEnter)                    // yes
	rec, err := checklist.Recommend(styles.All().Profiles(), checklist.Answers{"existing": "no", "new-crd": "yes",
		"stage": "prototype", "language": "python", "logic": "imperative", "maintainers": "yes"})
	require.NoError(t, err)
	s.answer("Recommended style: " + rec.Style)
	s.answer("opctl init --style " + rec.Style)
	s.wait(0)
}

func TestInitInPseudoTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds opctl")
	}
	style := realStyleWith(t, func(s scaffold.Style) bool { return s.ModulePath && !s.ExistingKinds })
	viaFlags, bin := t.TempDir(), buildOpctl(t)
	runBinary(t, bin, viaFlags, seed.Init(style, true)...)
	runBinary(t, bin, viaFlags, seed.Create()...)

	parent := t.TempDir()
	s := startPTY(t, parent, "init", "--style", style, "--domain", "example.com", "--name", "db-operator",
		"--repo", "example.com/db-operator", "db-operator")
	s.answer("Where the operator sees its kinds", keyEnter) // cluster
	s.answer("API group", "myapp", keyEnter)
	s.answer("API version", "\x15v1", keyEnter) // Ctrl-U clears the default
	s.answer("Kind", "database", keyEnter)
	s.answer("must be UpperCamelCase", "\x15Database", keyEnter) // refused, asked again
	s.answer("Is Database namespaced?", "y", keyEnter)
	// A field's modifiers are chosen by typing each one's name (survey
	// filters the list) and Space; then each value is asked.
	field := func(name, typ string, modifiers []string, values ...string) {
		s.answer("Add a spec field to Database?", "y", keyEnter)
		s.answer("Field name", name, keyEnter)
		s.answer("Type of "+name, typ, keyEnter)
		var keys []string
		for _, m := range modifiers {
			keys = append(keys, m, keySpace)
		}
		s.answer("Modifiers of "+name, append(keys, keyEnter)...)
		for i := 0; i < len(values); i += 2 {
			s.answer(values[i], values[i+1], keyEnter)
		}
	}
	field("engine", "string", []string{"required", "enum"}, "Allowed values", "mysql,postgres")
	field("version", "string", nil)
	field("storage", "quantity", nil)
	field("replicas", "int32", []string{"default", "min", "max"}, "Minimum", "1", "Maximum", "5", "Default", "1")
	s.answer("Add a spec field to Database?", "n", keyEnter)
	s.answer("Child kinds each Database owns", keySpace, keyEnter) // ConfigMap is first
	s.answer(fmt.Sprintf("Write these %d files", written(snapshot(t, viaFlags))), "y", keyEnter)
	s.wait(0)
	assert.Equal(t, relative(t, viaFlags), relative(t, filepath.Join(parent, "db-operator")))
}

func TestInitCtrlCInPseudoTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds opctl")
	}
	dir := t.TempDir()
	s := startPTY(t, dir, "init", "--style", styles.All()[0].Name, "--domain", "example.com")
	s.answer("Project name", "\x03") // Ctrl-C
	s.wait(2)
	assert.Empty(t, snapshot(t, dir))
}
