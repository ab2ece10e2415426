//go:build unix

package access

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadTokenNotAFile: a named pipe is refused at once (opening it for
// reading would wait for a writer for ever), and so is a file another user
// owns.
func TestLoadTokenNotAFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadToken(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrBadTokenFile) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("a FIFO: %v; want a refusal naming a named pipe", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LoadToken blocked on a FIFO")
	}

	p := writeFile(t, "tok", "s3cr3t-t0ken-0123456789", 0o600)
	other := 65534 // nobody
	if os.Getuid() == other {
		other = 65533
	}
	if err := os.Chown(p, other, -1); err != nil {
		// Only root may give a file away; as another user, a file of
		// root's stands in (its mode must not be what refuses it).
		t.Logf("chown: %v; using a root-owned 0600 file instead", err)
		p = ""
		for _, cand := range []string{"/etc/shadow", "/etc/gshadow"} {
			if st, err := os.Stat(cand); err == nil && st.Mode().Perm()&0o077 == 0 {
				p = cand
			}
		}
		if p == "" {
			t.Log("no root-owned 0600 file to stand in: the owner case is not checked here")
			return
		}
	}
	if _, err := LoadToken(p); !errors.Is(err, ErrBadTokenFile) || !strings.Contains(err.Error(), "owned by another user") && !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("a file of another user: %v; want a refusal", err)
	}
}
