package soak

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/internal/index/walk"
)

// LongPackages is the tree of the long run: ≈ 550 Go files of Go's src
// (the size of the load runs of docs/benchmarks.md, "Serving while busy",
// and docs/reliability.md).
var LongPackages = []string{
	"net/http", "encoding/json", "crypto/tls", "time", "io", "sync", "mime",
	"strings", "text/template", "go/ast", "go/parser", "fmt", "bytes",
	"strconv", "encoding/xml", "bufio", "context", "net/url", "sort",
	"errors", "path",
}

// ShortPackages is the tree of the short run (TestSoakShort): ≈ 75 files.
var ShortPackages = []string{"net/url", "bufio", "strconv", "context", "strings", "sort", "errors"}

// extraPackages are copied into the small workspace folders sessions add
// and remove.
var extraPackages = []string{
	"container/list", "container/ring", "unicode/utf16", "hash/crc32",
	"encoding/base64", "encoding/hex", "html", "path", "errors",
}

// maxTreeFile is the largest file copied into a tree.
const maxTreeFile = 512 << 10

// GoRoot returns `go env GOROOT`.
func GoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(out))
	if root == "" {
		return "", fmt.Errorf("go env GOROOT printed nothing")
	}
	return root, nil
}

// PrepareTree copies the .go files of each package directory (relative to
// goroot/src, subdirectories included, testdata excluded) into dst, which
// is emptied first, and returns the copied files' slash paths relative to
// dst, sorted. Files that are not usable as they are (invalid UTF-8, a
// "\r", over 512 KiB) are left out.
func PrepareTree(goroot string, pkgs []string, dst string) ([]string, error) {
	if err := os.RemoveAll(dst); err != nil {
		return nil, fmt.Errorf("empty the tree %s: %w", dst, err)
	}
	var files []string
	for _, pkg := range pkgs {
		src := filepath.Join(goroot, "src", filepath.FromSlash(pkg))
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(p, ".go") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if len(b) > maxTreeFile || !usableText(b) {
				return nil
			}
			rel, err := filepath.Rel(filepath.Join(goroot, "src"), p)
			if err != nil {
				return err
			}
			out := filepath.Join(dst, rel)
			if _, err := os.Stat(out); err == nil {
				return nil // a package listed twice, or nested in another
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("copy %s into the tree: %w", pkg, err)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files under %s for %v", goroot, pkgs)
	}
	sort.Strings(files)
	return files, nil
}

// makeExtraFolder fills dir with a copy of the k-th small package (a
// workspace folder a session adds and removes) and returns the files the
// index holds.
func makeExtraFolder(goroot string, k int, dir string) ([]string, error) {
	if _, err := PrepareTree(goroot, []string{extraPackages[k%len(extraPackages)]}, dir); err != nil {
		return nil, err
	}
	return indexable(dir)
}

// indexable lists the files of root the index holds (the index's own walk:
// generated files, for one, are left out), sorted.
func indexable(root string) ([]string, error) {
	files, _, err := walk.Walk(context.Background(), root, walk.Options{})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.Path)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no indexable file", root)
	}
	return out, nil
}
