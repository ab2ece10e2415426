package access

import (
	"path/filepath"
	"testing"
)

func TestCheckBroadRoot(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for dir, refused := range map[string]bool{
		"/": true, home: true, home + "/": true, home + "/.": true,
		filepath.Join(home, "src", "proj"): false, filepath.Dir(home): false, "/usr/lib": false,
	} {
		if err := CheckBroadRoot(dir); (err != nil) != refused {
			t.Errorf("CheckBroadRoot(%s) = %v, want refused %v", dir, err, refused)
		}
	}
}
