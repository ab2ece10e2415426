package eval

import (
	"strings"

	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// referenceChannels are the channels that follow names (a request's, a
// unit's references) rather than words: a part that only they brought
// stands on a name's meaning.
var referenceChannels = map[string]bool{
	retrieve.ChanSymbol: true, retrieve.ChanGraph: true, retrieve.ChanDiff: true, retrieve.ChanFocus: true,
}

// FalseMatches counts the parts of an explained context (the shown
// candidates of expl) that only reference channels brought and whose
// name cannot be what the request refers to: a builtin's name of the
// part's language (len, int, string) that the request's code never
// writes after a '.', or — for a diff — a name whose word the diff writes
// only in comments or strings, never in code. Such a part is matched by
// a name that only looks alike. The cursor's own file is left out: its
// definitions come as the file's, whatever their names.
func FalseMatches(c *Case, expl []retrieve.Explanation) int {
	var code, dotted map[string]bool // the diff's code names, and those written after a '.'
	var words map[string]bool        // lower-cased words of the diff's lines, comments and strings included
	if c.Diff != "" {
		files, err := retrieve.ParseDiff(c.Diff)
		if err == nil {
			var lines []string
			for _, f := range files {
				lines = append(lines, f.Added...)
				lines = append(lines, f.Removed...)
			}
			code, dotted = retrieve.CodeNames(lines)
			words = map[string]bool{}
			for _, l := range lines {
				for _, w := range strings.FieldsFunc(l, func(r rune) bool {
					return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
				}) {
					words[strings.ToLower(w)] = true
				}
			}
		}
	}
	n := 0
	seen := map[string]bool{}
	for _, x := range expl {
		if x.Part == "" || x.Symbol == "" || seen[x.Part] || len(x.Channels) == 0 {
			continue
		}
		if c.Focus != nil && x.Path == c.Focus.Path {
			continue // the cursor's own file: brought as the file's, not by a name
		}
		only := true
		for ch := range x.Channels {
			if !referenceChannels[ch] {
				only = false
			}
		}
		if !only {
			continue
		}
		name := x.Symbol[strings.LastIndexByte(x.Symbol, '.')+1:]
		builtin := retrieve.IsBuiltin(chunk.LanguageOf(x.Path), name) && !dotted[name]
		proseOnly := words[strings.ToLower(name)] && !codeHasFold(code, name)
		if builtin || proseOnly {
			seen[x.Part] = true
			n++
		}
	}
	return n
}

// codeHasFold reports whether code writes name in any case (Guard for a
// diff's guard is a reference to it when the code writes "guard").
func codeHasFold(code map[string]bool, name string) bool {
	for c := range code {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}
