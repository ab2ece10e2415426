//go:build windows

package retrieve

import "testing"

// TestRootPathWindows: drive letters (in either case), '\' and '/', and
// paths on another drive, relative to a drive's current directory or
// rooted without a drive.
func TestRootPathWindows(t *testing.T) {
	root := `C:\ws`
	for in, want := range map[string]string{
		`C:\ws\cart\cart.go`: "cart/cart.go", `c:\WS\cart\cart.go`: "cart/cart.go", `C:/ws/cart/cart.go`: "cart/cart.go",
		`cart\cart.go`: "cart/cart.go", `cart/cart.go`: "cart/cart.go", `.\cart\..\cart\cart.go`: "cart/cart.go",
		`D:\ws\cart\cart.go`: "", `C:\other\a.go`: "", `C:cart\cart.go`: "", `\ws\cart\cart.go`: "",
		`C:\ws`: "", `C:\ws\`: "", `..\ws\a.go`: "",
	} {
		got, err := RootPath(root, in, "focus")
		if got != want || (err != nil) != (want == "") {
			t.Errorf("RootPath(%q, %q) = %q, %v; want %q", root, in, got, err, want)
		}
	}
}
