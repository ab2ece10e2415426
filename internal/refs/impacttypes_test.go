package refs

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A change to a type reaches the units that use it (its methods, the
// functions taking or making one), and their callers up to the depth; by
// types, Other's users are not Response's.
func TestImpactFollowsUsersOfAChangedType(t *testing.T) {
	snap := moduleSnap(t)
	diff := `--- a/resp/resp.go
+++ b/resp/resp.go
@@ -5,2 +5,2 @@
 // Response is one response.
-type Response struct{ body []byte }
+type Response struct{ body []byte; n int }
`
	res, err := Impact(context.Background(), snap, diff, 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Reached {
		got = append(got, fmt.Sprintf("%d %s %s: %s", r.Hop, r.Path, r.Symbol, r.Reason))
	}
	want := []string{
		"0 resp/resp.go resp.Response: changed (lines 6)",
		"1 resp/resp.go Response.Write: uses resp.Response",
		"1 resp/resp_test.go resp.TestWrite: uses resp.Response",
		"1 srv/srv.go srv.Handle: uses resp.Response",
		"1 srv/srv.go srv.Serve: uses resp.Response",
		"2 app/app.go app.Run: calls srv.Serve",
		"2 resp/resp.go resp.Copy: calls Response.Write",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("reached:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !res.Exact {
		t.Error("not exact")
	}
}
