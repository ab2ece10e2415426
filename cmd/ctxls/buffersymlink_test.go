package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeListenBufferThroughSymlink: an editor buffer opened for a path
// that reaches outside the allowed root through a symlink — a file link
// (root/peek.go → outside/secret.go) or a directory link
// (root/sub/link → outside/) — is never indexed, so its text never comes
// back; a buffer of an ordinary file still does.
func TestServeListenBufferThroughSymlink(t *testing.T) {
	f := newFace(t)
	if err := os.Symlink(filepath.Join(f.outside, "secret.go"), filepath.Join(f.root, "peek.go")); err != nil {
		t.Fatal(err)
	}
	secret, err := os.ReadFile(filepath.Join(f.outside, "secret.go"))
	if err != nil {
		t.Fatal(err)
	}
	addr, _, _ := f.start(t, "--listen", ":0")
	c := dial(t, addr)
	if m := c.call("initialize", initParams(fileURI(f.root), map[string]any{"token": f.token, "maxTokens": 4000})); m.Error != nil {
		t.Fatalf("initialize: %s", m.Error.Message)
	}
	c.notify("initialized", map[string]any{})
	open := func(p, text string) {
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": fileURI(p), "languageId": "go", "version": 1, "text": text}})
	}
	open(filepath.Join(f.root, "peek.go"), string(secret))
	open(filepath.Join(f.root, "sub", "link", "secret.go"), string(secret))
	// A control buffer in the root, with a word of its own.
	open(filepath.Join(f.root, "sub", "keep.go"), "package sub\n\n// Keep keeps the zanzibar ledger.\nfunc Keep() {}\n")
	deadline := time.Now().Add(10 * time.Second)
	for {
		text := c.assemble(map[string]any{"query": "Secret hunter2 what no client may read zanzibar"})
		if strings.Contains(text, "hunter2") || strings.Contains(text, "no client may read") {
			t.Fatalf("a buffer reached through a symlink out of the root was shown:\n%s", text)
		}
		if strings.Contains(text, "zanzibar") {
			break // the buffers were applied in order: the control is in
		}
		if time.Now().After(deadline) {
			t.Fatalf("the control buffer never showed:\n%s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
