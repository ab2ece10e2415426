package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
)

// assembleFocus runs a focus-only request with the given options and
// returns the result, checking the budget.
func assembleFocus(t *testing.T, files map[string]string, opts Options, path string, line, budget int) *Response {
	t.Helper()
	snap := indexFiles(t, files)
	res, err := NewEngineWith(tokens.NewRegistry(), opts).Assemble(context.Background(), snap,
		Request{Focus: &Focus{Path: path, Line: line}, Budget: assemble.Budget{MaxTokens: budget}, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.TotalTokens > budget {
		t.Fatalf("over budget: %d > %d", res.Stats.TotalTokens, budget)
	}
	return res
}

// crowd adds files whose functions the focus file calls, so that a tight
// budget has more wanted code than room.
func crowd(files map[string]string, calls *strings.Builder, n int) {
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "'use strict'\n\n")
		for j := range 6 {
			fmt.Fprintf(&b, "// step%d_%d does part %d of the work of module %d, at length.\nfunction step%d_%d (x) {\n", i, j, j, i, i, j)
			for k := range 8 {
				fmt.Fprintf(&b, "  x = x * %d + %d // line %d\n", k+2, k, k)
			}
			b.WriteString("  return x\n}\n\n")
		}
		b.WriteString("module.exports = { ")
		for j := range 6 {
			fmt.Fprintf(&b, "step%d_%d, ", i, j)
		}
		b.WriteString("}\n")
		files[fmt.Sprintf("lib/mod%d.js", i)] = b.String()
		for j := range 6 {
			fmt.Fprintf(calls, "  step%d_%d(1)\n", i, j)
		}
	}
}

// TestImportedFileMapped: a helper module the test file requires, whose
// names no line uses yet, is mapped (its class and methods one line each)
// under a budget the names in use would otherwise fill; without the
// option it is not.
func TestImportedFileMapped(t *testing.T) {
	files := map[string]string{
		"test-helpers/stream.js": "'use strict'\n\nconst EventEmitter = require('events')\n\nclass Readable extends EventEmitter {\n  pipe () {}\n  read () {}\n}\n\nmodule.exports = { Readable }\n",
	}
	var calls strings.Builder
	crowd(files, &calls, 6)
	var test strings.Builder
	test.WriteString("'use strict'\n\nconst CustomStream = require('../test-helpers/stream')\n")
	for i := range 6 {
		fmt.Fprintf(&test, "const { ")
		for j := range 6 {
			fmt.Fprintf(&test, "step%d_%d, ", i, j)
		}
		fmt.Fprintf(&test, "} = require('../lib/mod%d')\n", i)
	}
	test.WriteString("\nfunction testAll () {\n" + calls.String() + "\n  return 1\n}\n")
	files["__tests__/all.test.js"] = test.String()
	cursor := strings.Count(test.String(), "\n") - 2 // the empty line before return
	for _, on := range []bool{true, false} {
		opts := DefaultOptions()
		if !on {
			opts.FocusImportMap = 0
		}
		res := assembleFocus(t, files, opts, "__tests__/all.test.js", cursor, 1000)
		shown := strings.Contains(res.Rendered, "class Readable extends EventEmitter")
		why := ""
		for _, ex := range res.Explain {
			if ex.Path == "test-helpers/stream.js" && ex.Focus != "" {
				why = ex.Focus
			}
		}
		if on && (!shown || !strings.Contains(why, "imported by the file")) {
			t.Errorf("the required helper is not mapped (explain %q):\n%s", why, res.Rendered)
		}
		if !on && shown {
			t.Errorf("without FocusImportMap the helper is shown anyway; the test no longer tests it:\n%s", res.Rendered)
		}
	}
}

// TestFocusHopFollowsDefinition: the test uses got, defined as
// create(defaults) elsewhere; the function create (in a file the test
// never names) is offered one step further and shown; without the option
// it is not.
func TestFocusHopFollowsDefinition(t *testing.T) {
	files := map[string]string{
		"source/index.ts":    "import create from './create.js';\nimport defaults from './defaults.js';\n\nexport const got = create(defaults);\n\nexport default got;\n",
		"source/create.ts":   "// create makes a got instance from its defaults.\nexport default function create(defaults: object) {\n\tconst instance = (url: string) => url;\n\treturn instance;\n}\n",
		"source/defaults.ts": "const defaults = {retry: 2};\nexport default defaults;\n",
	}
	var calls strings.Builder
	crowd(files, &calls, 6)
	var test strings.Builder
	test.WriteString("import got from '../source/index.js';\n")
	for i := range 6 {
		fmt.Fprintf(&test, "const m%d = require('../lib/mod%d');\n", i, i)
	}
	test.WriteString("\nfunction testAll() {\n")
	for range 5 {
		test.WriteString("\tgot('https://example.com');\n")
	}
	test.WriteString(strings.ReplaceAll(calls.String(), "  ", "\t") + "\n\treturn 1;\n}\n")
	files["test/all.ts"] = test.String()
	cursor := strings.Count(test.String(), "\n") - 2
	for _, on := range []bool{true, false} {
		opts := DefaultOptions()
		if !on {
			opts.FocusHop = 0
		}
		res := assembleFocus(t, files, opts, "test/all.ts", cursor, 2000)
		shown := strings.Contains(res.Rendered, "export default function create(defaults: object)")
		if on && !shown {
			t.Errorf("create, which got is made of, is not shown:\n%s", res.Rendered)
		}
		if !on && shown {
			t.Errorf("without FocusHop create is shown anyway; the test no longer tests it:\n%s", res.Rendered)
		}
	}
}
