package retrieve

import (
	"testing"

	"github.com/ctxls/ctxls/internal/ranges"
)

const sampleDiff = `diff --git a/pkg/a.go b/pkg/a.go
index 1111111..2222222 100644
--- a/pkg/a.go
+++ b/pkg/a.go
@@ -3,6 +3,7 @@ func A() {
 	x := 1
-	y := 2
+	y := 3
+	z := y
 	return
 }
 
 func B() {
@@ -20,3 +21,2 @@ func C() {
 	a()
-	b()
 	c()
diff --git a/old.go b/old.go
deleted file mode 100644
--- a/old.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package old
-var X = 1
`

func TestParseDiff(t *testing.T) {
	fds, err := ParseDiff(sampleDiff)
	if err != nil {
		t.Fatal(err)
	}
	if len(fds) != 2 || fds[0].Path != "pkg/a.go" || fds[1].Path != "" || fds[1].OldPath != "old.go" {
		t.Fatalf("files = %+v", fds)
	}
	want := []ranges.Range{{Start: 4, End: 5}, {Start: 22, End: 22}}
	if !ranges.Equal(fds[0].Changed, want) {
		t.Errorf("changed = %v, want %v", fds[0].Changed, want)
	}
	if len(fds[0].Added) != 2 || len(fds[0].Removed) != 2 {
		t.Errorf("added %q removed %q", fds[0].Added, fds[0].Removed)
	}
	for _, bad := range []string{"just some text", "@@ -1 +1 @@\n+x\n", "--- a/x\n+++ b/x\n@@ -a +1 @@\n"} {
		if _, err := ParseDiff(bad); err == nil {
			t.Errorf("ParseDiff(%q) accepted", bad)
		}
	}
}
