package access

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return p
}

func TestLoadToken(t *testing.T) {
	good := "s3cr3t-t0ken-0123456789"
	p := writeFile(t, "tok", "  "+good+"\n\n", 0o600)
	if got, err := LoadToken(p); err != nil || got != good {
		t.Fatalf("LoadToken = %q, %v; want %q", got, err, good)
	}
	refused := []struct {
		content string
		perm    os.FileMode
		want    string
	}{
		{good, 0o644, "chmod 600"},
		{good, 0o640, "chmod 600"},
		{good, 0o620, "chmod 600"},
		{"", 0o600, "empty"},
		{" \n\t\n", 0o600, "empty"},
		{"short", 0o600, "shorter than 16"},
		{"two words in one token", 0o600, "visible ASCII"},
		{"tökentökentökentöken", 0o600, "visible ASCII"},
		{strings.Repeat("x", 5000), 0o600, "larger than"},
	}
	for _, c := range refused {
		p := writeFile(t, "tok", c.content, c.perm)
		_, err := LoadToken(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrBadTokenFile) {
			t.Errorf("LoadToken(%q, %04o): %v; want an ErrBadTokenFile mentioning %q", c.content, c.perm, err, c.want)
		}
	}
	if _, err := LoadToken(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, ErrBadTokenFile) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadToken(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

func TestNewTokenFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	tok, path, err := NewTokenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != dir {
		t.Errorf("token file %s not in %s", path, dir)
	}
	if len(tok) != 43 || strings.ContainsAny(tok, "+/=") {
		t.Errorf("token %q: want 43 base64url characters", tok)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Errorf("token file mode %04o, want 0600", perm)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("token dir: %v %v", st.Mode(), err)
	}
	// What NewTokenFile writes, LoadToken reads back.
	if got, err := LoadToken(path); err != nil || got != tok {
		t.Errorf("LoadToken(generated) = %q, %v", got, err)
	}
	tok2, path2, err := NewTokenFile(dir)
	if err != nil || tok2 == tok || path2 == path {
		t.Errorf("a second token file repeats the first: %q %q %v", tok2, path2, err)
	}
}

func TestLoadOrCreateToken(t *testing.T) {
	named := writeFile(t, "named", "named-token-0123456789", 0o600)
	fromEnv := writeFile(t, "env", "env-token-0123456789", 0o600)
	t.Setenv(EnvTokenFile, fromEnv)
	tok, err := LoadOrCreateToken(named)
	if err != nil || tok.Value != "named-token-0123456789" || tok.Path != named || tok.Generated {
		t.Errorf("flag: %+v %v", tok, err)
	}
	tok, err = LoadOrCreateToken("")
	if err != nil || tok.Value != "env-token-0123456789" || tok.Path != fromEnv || tok.Generated {
		t.Errorf("env: %+v %v", tok, err)
	}
	if err := tok.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fromEnv); err != nil {
		t.Errorf("Remove removed a file the user named: %v", err)
	}
	bad := writeFile(t, "bad", "named-token-0123456789", 0o644)
	if _, err := LoadOrCreateToken(bad); !errors.Is(err, ErrBadTokenFile) {
		t.Errorf("group-readable named file: %v", err)
	}

	runtime := t.TempDir()
	t.Setenv(EnvTokenFile, "")
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	tok, err = LoadOrCreateToken("")
	if err != nil || !tok.Generated || filepath.Dir(tok.Path) != filepath.Join(runtime, "ctxls") || len(tok.Value) != 43 {
		t.Fatalf("generated: %+v %v", tok, err)
	}
	if err := tok.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tok.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("generated token file not removed: %v", err)
	}
}

func TestDefaultTokenDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if d, err := DefaultTokenDir(); err != nil || d != filepath.Join("/run/user/1000", "ctxls") {
		t.Errorf("with XDG_RUNTIME_DIR: %q %v", d, err)
	}
	t.Setenv("XDG_RUNTIME_DIR", "relative/dir")
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	if d, err := DefaultTokenDir(); err != nil || d != filepath.Join(cache, "ctxls") {
		t.Errorf("without a usable XDG_RUNTIME_DIR: %q %v", d, err)
	}
}

func TestTokenEqual(t *testing.T) {
	for _, c := range []struct {
		got, want string
		eq        bool
	}{
		{"abcdefghijklmnop", "abcdefghijklmnop", true},
		{"abcdefghijklmnoq", "abcdefghijklmnop", false},
		{"abcdefghijklmno", "abcdefghijklmnop", false},
		{"", "abcdefghijklmnop", false},
		{"", "", false},
		{"x", "", false},
	} {
		if got := TokenEqual(c.got, c.want); got != c.eq {
			t.Errorf("TokenEqual(%q, %q) = %v", c.got, c.want, got)
		}
	}
}
