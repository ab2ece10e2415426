package retrieve

import "testing"

func TestImportsResolveByLanguage(t *testing.T) {
	cases := []struct {
		file, text string
		yes, no    []string
	}{
		{"__tests__/response/back.test.js", "const context = require('../../test-helpers/context')\nimport got from '../../lib/response.js'\nimport x from 'lodash'\n",
			[]string{"test-helpers/context.js", "lib/response.ts", "test-helpers/context/index.js"}, []string{"lodash.js", "lib/request.js"}},
		{"tests/test_termui.py", "import click\nfrom click.termui import progressbar, (style)\nfrom . import helpers\nfrom ..pkg.mod import thing as t\n",
			[]string{"src/click/__init__.py", "src/click/termui.py", "tests/helpers.py", "pkg/mod.py", "click/termui/progressbar.py"}, []string{"src/click/core.py"}},
		{"cmd/app/main.go", "package main\n\nimport (\n\t\"fmt\"\n\tsrv \"example.com/x/internal/server\"\n)\nimport \"example.com/x/util\"\n",
			[]string{"internal/server/http.go", "util/strings.go"}, []string{"internal/client/http.go", "main.go"}},
		{"src/kv/value.rs", "use crate::kv::key::{Key, ToKey};\nmod sub;\nuse std::fmt;\n",
			[]string{"src/kv/key.rs", "src/kv/sub.rs", "src/kv/mod.rs"}, []string{"src/lib.rs"}},
		{"gson/src/main/java/com/google/gson/internal/bind/TypeAdapters.java", "package x;\nimport com.google.gson.stream.JsonReader;\nimport static com.google.gson.internal.Util.*;\n",
			[]string{"gson/src/main/java/com/google/gson/stream/JsonReader.java", "gson/src/main/java/com/google/gson/internal/Util.java"}, []string{"gson/src/main/java/com/google/gson/stream/JsonWriter.java"}},
		{"src/a.c", "#include \"util/strbuf.h\"\n#include <stdio.h>\n", []string{"src/util/strbuf.h", "util/strbuf.c"}, []string{"stdio.c"}},
	}
	for _, c := range cases {
		im := parseImports(c.file, c.text)
		for _, p := range c.yes {
			if !im.has(p) {
				t.Errorf("%s: %s should be imported (%+v)", c.file, p, im)
			}
		}
		for _, p := range c.no {
			if im.has(p) {
				t.Errorf("%s: %s should not be imported (%+v)", c.file, p, im)
			}
		}
	}
}
