// Command opctl scaffolds Kubernetes operators in any style.
package main

import (
	"os"

	"github.com/opctl/opctl/cmd"
)

func main() { os.Exit(cmd.Main()) }
