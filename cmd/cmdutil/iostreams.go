package cmdutil

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams a command reads and writes. Tests use buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// Interactive is true when stdin and stdout are both terminals.
	Interactive bool
}

// SystemIO returns the process's streams.
func SystemIO() IOStreams {
	return IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		Interactive: term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd())),
	}
}
