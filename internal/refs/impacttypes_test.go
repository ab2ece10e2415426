package refs

import "testing"

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
	res, got := impactLines(t, snap, diff, 2)
	want := []string{
		"0 resp/resp.go resp.Response: changed (lines 6)",
		"1 resp/resp.go Response.Write: uses resp.Response",
		"1 resp/resp_test.go resp.TestWrite: uses resp.Response",
		"1 srv/srv.go srv.Handle: uses resp.Response",
		"1 srv/srv.go srv.Serve: uses resp.Response",
		"2 app/app.go app.Run: calls srv.Serve",
		"2 resp/resp.go resp.Copy: calls Response.Write",
	}
	sameLines(t, "reached", got, want)
	if !res.Exact {
		t.Error("not exact")
	}
}
