//go:build unix

package walk

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFiles: a FIFO is skipped without being opened (opening it
// would block the walk), directly and through a symlink.
func TestSpecialFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": ""})
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	symlink(t, "pipe", filepath.Join(root, "pipe-link"))
	done := make(chan struct{})
	var files []File
	var skipped []Skipped
	var err error
	go func() {
		defer close(done)
		files, skipped, err = Walk(context.Background(), root, Options{})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Walk blocked on a FIFO")
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(files); !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("files = %q", got)
	}
	if got, want := reasons(skipped), map[string]Reason{"pipe": ReasonSpecial, "pipe-link": ReasonSpecial}; !reflect.DeepEqual(got, want) {
		t.Errorf("skipped = %v, want %v", got, want)
	}
}

// TestUnreadable: a directory and a file that cannot be read are reported,
// and the walk goes on. Needs a user without CAP_DAC_OVERRIDE.
func TestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"locked/x.txt": "", "secret.txt": "", "ok.txt": ""})
	for _, p := range []string{"locked", "secret.txt"} {
		if err := os.Chmod(filepath.Join(root, p), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(root, p), 0o755) })
	}
	files, skipped, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(files); !slices.Equal(got, []string{"ok.txt"}) {
		t.Errorf("files = %q", got)
	}
	if got, want := reasons(skipped), map[string]Reason{"locked": ReasonUnreadable, "secret.txt": ReasonUnreadable}; !reflect.DeepEqual(got, want) {
		t.Errorf("skipped = %v, want %v", got, want)
	}
}
