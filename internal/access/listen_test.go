package access

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseListen(t *testing.T) {
	ok := []struct {
		addr, network, address string
		remote                 bool
	}{
		{":7777", "tcp", "127.0.0.1:7777", false},
		{":0", "tcp", "127.0.0.1:0", false},
		{"localhost:80", "tcp", "127.0.0.1:80", false},
		{"LocalHost:80", "tcp", "127.0.0.1:80", false},
		{"127.0.0.1:0", "tcp", "127.0.0.1:0", false},
		{"127.1.2.3:9", "tcp", "127.1.2.3:9", false},
		{"[::1]:0", "tcp", "[::1]:0", false},
		{"[::ffff:127.0.0.1]:5", "tcp", "127.0.0.1:5", false},
		{"unix:/run/user/1/ctxls.sock", "unix", "/run/user/1/ctxls.sock", false},
		{"unix:ctxls.sock", "unix", "ctxls.sock", false},
		{"./ctxls.sock", "unix", "./ctxls.sock", false},
		{"/tmp/a:b.sock", "unix", "/tmp/a:b.sock", false},
		{"0.0.0.0:0", "tcp", "0.0.0.0:0", true},
		{"[::]:8080", "tcp", "[::]:8080", true},
		{"example.com:443", "tcp", "example.com:443", true},
		{":7777", "tcp", "127.0.0.1:7777", true}, // a bare port stays loopback
	}
	for _, c := range ok {
		n, a, err := ParseListen(c.addr, c.remote)
		if err != nil || n != c.network || a != c.address {
			t.Errorf("ParseListen(%q, %v) = %q, %q, %v; want %q, %q", c.addr, c.remote, n, a, err, c.network, c.address)
		}
	}
	refused := []struct{ addr, want string }{
		{"0.0.0.0:0", "--allow-remote"},
		{"[::]:0", "--allow-remote"},
		{"192.168.1.10:7777", "--allow-remote"},
		{"example.com:7777", "--allow-remote"},
		{"127.0.0.1.nip.io:80", "--allow-remote"},
		{"[fe80::1%eth0]:80", "--allow-remote"},
		{"", "empty"},
		{"unix:", "no socket path"},
		{"7777", "HOST:PORT"},
		{"127.0.0.1:http", "port"},
		{"127.0.0.1:70000", "port"},
		{"127.0.0.1:", "port"},
	}
	for _, c := range refused {
		_, _, err := ParseListen(c.addr, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseListen(%q, false): %v; want an error mentioning %q", c.addr, err, c.want)
		}
	}
}

func TestListenUnix(t *testing.T) {
	path := filepath.Join(shortTempDir(t), "s.sock")
	ln, err := Listen(NetworkUnix, path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Errorf("socket mode %04o, want 0600", perm)
	}
	if got := DisplayAddr(ln); got != "unix:"+path {
		t.Errorf("DisplayAddr = %q", got)
	}
	// A live socket is not taken over.
	if _, err := Listen(NetworkUnix, path); err == nil || !strings.Contains(err.Error(), "another server") {
		t.Errorf("second Listen on a live socket: %v", err)
	}
	ln.Close()

	// A stale socket (its server gone without removing it) is replaced.
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the stale socket should still exist: %v", err)
	}
	ln, err = Listen(NetworkUnix, path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	ln.Close()

	// Any other file is left alone.
	file := filepath.Join(filepath.Dir(path), "f")
	os.WriteFile(file, []byte("keep"), 0o600)
	if _, err := Listen(NetworkUnix, file); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("Listen on a regular file: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep" {
		t.Errorf("the regular file was changed: %q", b)
	}
}

func TestListenTCPDisplay(t *testing.T) {
	n, a, err := ParseListen(":0", false)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(n, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := DisplayAddr(ln)
	if !strings.HasPrefix(got, "127.0.0.1:") {
		t.Errorf("DisplayAddr = %q", got)
	}
	if n2, a2, err := ParseListen(got, false); err != nil || n2 != "tcp" || a2 != got {
		t.Errorf("DisplayAddr's output does not parse back: %q %q %v", n2, a2, err)
	}
}

// shortTempDir is a temporary directory with a path short enough for a
// Unix socket (108 bytes on Linux).
func shortTempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "ctxls")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}
