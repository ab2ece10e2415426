// Command ctxls is the context engine: a language server (serve), a headless
// assembler (assemble) and an indexer (index). See README.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "usage: ctxls <assemble|index|serve> [flags]")
	os.Exit(2)
}
