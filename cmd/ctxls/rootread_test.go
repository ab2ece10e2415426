//go:build unix

package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cdirRun runs the real binary with env added, as the user cred (nil:
// this process's), in dir ("" the working directory), with a deadline;
// it returns the exit status, stdout and stderr.
func cdirRun(t *testing.T, bin string, cred *syscall.Credential, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append(os.Environ(), runAsMain+"=1"), env...)
	cmd.Dir = dir
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ctxls %v hung\n%s", args, stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ctxls %v: %v", args, err)
	}
	return code, stdout.String(), stderr.String()
}

// cdirWrite writes files (slash paths → content) under dir.
func cdirWrite(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cdirRoot is a small workspace to index.
func cdirRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	cdirWrite(t, root, map[string]string{
		"tax/tax.go":   "package tax\n\n// Compute returns the tax on amount at rate.\nfunc Compute(amount, rate int) int {\n\treturn amount * rate / 100\n}\n",
		"cart/cart.go": "package cart\n\nimport \"tax\"\n\n// Total adds the tax to the sum of the cart.\nfunc Total(sum int) int {\n\treturn sum + tax.Compute(sum, 20)\n}\n",
		"README.md":    "# Shop\n\nA cart and its tax.\n",
	})
	return root
}

// cdirNobody is the user an unreadable root is tried as, when the test
// runs as root (who reads any directory).
const cdirNobody = 65534

// cdirBinaryFor returns a copy of the test binary that uid can run: the
// build directory is private to the user who built it.
func cdirBinaryFor(t *testing.T, uid int) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctxls-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(dir, "ctxls")
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != "/"; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("%s cannot be entered by uid %d (%v): no binary it can run", d, uid, err)
		}
	}
	return bin
}

// TestIndexUnreadableRoot: a root this user may not read (mode 000) makes
// `ctxls index` and `ctxls assemble` exit 1 with one line, "cannot read
// the root DIR: permission denied" — the listing's error was taken for a
// cache directory that cannot be written ("cannot write the index"), the
// build run again in memory, and assemble panicked (close of closed
// channel). Run as root, the binary runs as nobody, for whom mode 000
// means what it says.
func TestIndexUnreadableRoot(t *testing.T) {
	root := cdirRoot(t)
	if err := os.Chmod(root, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(root, 0o755) })
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.Mkdir(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	bin, dir := os.Args[0], ""
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: cdirNobody, Gid: cdirNobody}
		bin = cdirBinaryFor(t, cdirNobody)
		dir = filepath.Dir(bin)
		if err := os.Chown(cache, cdirNobody, cdirNobody); err != nil {
			t.Fatal(err)
		}
		// The test's own directories are private to root: let nobody
		// reach the root (to be refused there) and the cache.
		for _, d := range []string{filepath.Dir(root), filepath.Dir(cache)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for d := filepath.Dir(filepath.Dir(root)); d != "/"; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
				t.Skipf("%s cannot be entered by nobody: the root cannot be reached to be refused", d)
			}
		}
	} else if f, err := os.Open(root); err == nil {
		f.Close()
		t.Skip("this user reads a directory of mode 000 (CAP_DAC_OVERRIDE?): no unreadable root to try")
	}
	env := []string{"CTXLS_CACHE_DIR=" + cache, "HOME=" + cache, "XDG_CACHE_HOME=" + cache}
	for _, args := range [][]string{
		{"index", "--root", root},
		{"assemble", "--root", root, "--query", "how is the tax computed"},
		{"index", "--root", root, "--cache-dir", filepath.Join(cache, "explicit")},
	} {
		code, stdout, stderr := cdirRun(t, bin, cred, dir, env, args...)
		if code != 1 {
			t.Errorf("%v: exit status %d, want 1\n%s%s", args, code, stdout, stderr)
		}
		if want := "ctxls: cannot read the root " + root + ": permission denied\n"; stderr != want {
			t.Errorf("%v: stderr\n%s\nwant %q", args, stderr, want)
		}
	}
}
