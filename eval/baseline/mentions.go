package baseline

import (
	"path"
	"slices"
	"strings"
)

// Words are the identifiers of text as aider's repository map reads a
// chat message (every run of letters, digits and underscores, as
// re.split(r"\W+") gives them), unique and sorted.
func Words(text string) []string {
	var out []string
	forEachIdent(text, func(id string) { out = append(out, id) })
	slices.Sort(out)
	return slices.Compact(out)
}

// FileMentions are the paths of paths that text names, as aider finds
// them: a whitespace-separated word (trailing ",.!;:?" and quotes
// `"'*_` stripped) equal to a path, or to a file name that only one path
// has and that holds a '.', '_' or '-'. Sorted.
func FileMentions(text string, paths []string) []string {
	words := map[string]bool{}
	for _, w := range strings.Fields(text) {
		w = strings.TrimRight(w, ",.!;:?")
		w = strings.Trim(w, "\"'`*_")
		if w != "" {
			words[w] = true
		}
	}
	byBase := map[string][]string{}
	var out []string
	for _, p := range paths {
		if words[p] {
			out = append(out, p)
		}
		if b := path.Base(p); strings.ContainsAny(b, "._-") {
			byBase[b] = append(byBase[b], p)
		}
	}
	for b, ps := range byBase {
		if len(ps) == 1 && words[b] {
			out = append(out, ps[0])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
