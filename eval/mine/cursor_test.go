package mine

import (
	"slices"
	"testing"
)

func TestCalledAndDefinedNames(t *testing.T) {
	for _, tc := range []struct {
		lang, line string
		calls      []string
		defs       []string
	}{
		{"go", "\tr := mux.NewRouter().HandleFunc(path, h) // route", []string{"NewRouter", "HandleFunc"}, nil},
		{"go", "func (r *Router) HandleFunc(path string) *Route {", []string{"HandleFunc", "Route"}, []string{"HandleFunc"}},
		{"python", "    if isinstance(x, Foo): return make_option(x)", []string{"make_option"}, nil},
		{"python", "    def make_option(self, x):", []string{"make_option"}, []string{"make_option"}},
		{"rust", "    let e = Error::construct(ContextError { msg });", []string{"construct", "ContextError"}, nil},
		{"rust", "pub(crate) unsafe fn construct<E>(error: E) -> Self {", nil, []string{"construct"}},
		{"java", "    return new TypeAdapter(gson.getAdapter(type));", []string{"TypeAdapter", "getAdapter"}, nil},
		{"java", "  public <T> TypeAdapter<T> getAdapter(TypeToken<T> type) {", []string{"getAdapter"}, []string{"getAdapter"}},
		{"typescript", "export default async function asPromise(options) {", []string{"asPromise"}, []string{"asPromise"}},
	} {
		if got := CalledNames(tc.lang, tc.line); !slices.Equal(got, tc.calls) {
			t.Errorf("CalledNames(%s, %q) = %v, want %v", tc.lang, tc.line, got, tc.calls)
		}
		if got := definedNames(tc.lang, tc.line); !slices.Equal(got, tc.defs) {
			t.Errorf("definedNames(%s, %q) = %v, want %v", tc.lang, tc.line, got, tc.defs)
		}
	}
}

func TestAddedLines(t *testing.T) {
	patch := "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -3,0 +4,2 @@ func f() {\n+\tg()\n+\th()\n@@ -9 +11 @@\n-\told()\n+\tnew()\n"
	got := AddedLines(patch)
	want := []Added{{"x.go", 4, "\tg()"}, {"x.go", 5, "\th()"}, {"x.go", 11, "\tnew()"}}
	if !slices.Equal(got, want) {
		t.Errorf("AddedLines = %v, want %v", got, want)
	}
}
