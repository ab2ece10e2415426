package main

import (
	"context"
	"fmt"
	"os"
)

// serve is replaced by the language server when package lsp lands.
func serve(ctx context.Context, args []string) int {
	fmt.Fprintln(os.Stderr, "ctxls serve: the language server is not built into this binary yet")
	return 1
}
