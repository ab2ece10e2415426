package mine

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	urlRE       = regexp.MustCompile(`(?i)\b(?:https?|ftp)://[^\s<>()\[\]]+|\bwww\.[^\s<>()\[\]]+`)
	// trailerRE matches a trailer line ("Signed-off-by: …", "Change-Id: …").
	trailerRE = regexp.MustCompile(`^\s*(?i:signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|requested-by|cc|change-id|reviewed-on|pr-url|part-of|backport-of|cherry-picked-from|original-commit|git-svn-id|differential revision)\s*:`)
	// refTrailerRE matches a trailer that names issues ("Fixes: #12",
	// "Refs: https://…"); the line goes when nothing but references is left.
	refTrailerRE = regexp.MustCompile(`^\s*(?i:fixes|fix|closes|close|resolves|resolve|refs|ref|see|see also|related|related to|issue|issues|bug|pr|pull request|pull-request)\s*:(.*)$`)
	// anyByRE matches other "Something-by: name" trailers.
	anyByRE = regexp.MustCompile(`^\s*[A-Z][A-Za-z]*(?:-[A-Za-z]+)*-(?i:by|id|url):\s`)
	// issueRE matches issue references with an optional leading verb.
	issueRE     = regexp.MustCompile(`(?i)(?:\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|see|related to|part of|addresse[sd]|for|in|issue|pr|pull request|gh)\s*:?\s*)?(?:\b[\w.-]+/[\w.-]+)?#\d+\b|\bgh-\d+\b`)
	emptyParens = regexp.MustCompile(`\(\s*[,;&]?\s*\)|\[\s*[,;&]?\s*\]`)
	shaRE       = regexp.MustCompile(`\b[0-9a-f]{12,40}\b`)
	skipCI      = regexp.MustCompile(`(?i)\[(?:skip ci|ci skip|no ci|skip travis)\]`)
	checklist   = regexp.MustCompile(`^\s*[-*]\s*\[[ xX]\]`)
	spaces      = regexp.MustCompile(`[ \t]+`)
	blankLines  = regexp.MustCompile(`\n{3,}`)
	spaceBefore = regexp.MustCompile(`\s+([,.;:!?)])`)
	wordRE      = regexp.MustCompile(`[\p{L}\p{N}_]+`)
)

// CleanMessage turns a commit message into a query: it removes trailers
// (Signed-off-by:, Co-authored-by:, Change-Id:, Fixes: …), issue
// references (#123, owner/repo#123, GH-123 and a verb before them such as
// "Fixes #123"), URLs, commit hashes, HTML comments, PR-template checklists, merge lines
// of squashed branches and "[skip ci]" tags, then tidies white space. The
// subject stays the first line.
func CleanMessage(msg string) string {
	msg = strings.ReplaceAll(msg, "\r\n", "\n")
	msg = htmlComment.ReplaceAllString(msg, "")
	var out []string
	for i, line := range strings.Split(msg, "\n") {
		t := strings.TrimSpace(line)
		lower := strings.ToLower(t)
		if m := refTrailerRE.FindStringSubmatch(line); i > 0 && m != nil && isOnlyPunct(issueRE.ReplaceAllString(urlRE.ReplaceAllString(m[1], ""), "")) {
			continue
		}
		switch {
		case i > 0 && (trailerRE.MatchString(line) || anyByRE.MatchString(line)), checklist.MatchString(line),
			strings.HasPrefix(lower, "(cherry picked from"),
			strings.HasPrefix(lower, "merge branch "), strings.HasPrefix(lower, "merge pull request "),
			strings.HasPrefix(lower, "merge remote-tracking "), strings.HasPrefix(lower, "* merge branch "),
			strings.HasPrefix(lower, "* merge pull request "):
			continue
		}
		line = urlRE.ReplaceAllString(line, "")
		line = issueRE.ReplaceAllString(line, "")
		line = shaRE.ReplaceAllString(line, "")
		line = skipCI.ReplaceAllString(line, "")
		for {
			l := emptyParens.ReplaceAllString(line, "")
			if l == line {
				break
			}
			line = l
		}
		line = spaces.ReplaceAllString(line, " ")
		line = spaceBefore.ReplaceAllString(line, "$1")
		line = strings.TrimSpace(line)
		line = strings.TrimRight(strings.TrimLeft(line, ",;: "), ",;:-– ")
		if isOnlyPunct(line) {
			line = ""
		}
		out = append(out, line)
	}
	s := strings.Join(out, "\n")
	s = blankLines.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

func isOnlyPunct(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Words counts the words (runs of letters, digits and underscores) of s.
func Words(s string) int { return len(wordRE.FindAllString(s, -1)) }

var (
	bumpRE       = regexp.MustCompile(`(?i)\bbump(?:s|ed|ing)?\b|^\W*(?:release[sd]?|releasing|version)\b\W*(?:v?\d|$)|^\W*v?\d+\.\d+(?:\.\d+)?(?:[-.+]\w+)*\W*$|\b(?:release|version|tag|tagged|preparing)\s+v?\d+\.\d+|^\W*v?\d+\.\d+\.\d+|\bprepar\w* (?:for )?(?:the )?(?:v?\d[\w.-]* )?release\b|\bchangelog\b|\bupdate (?:the )?(?:history|authors|contributors|copyright|deps|dependencies|lock ?file)\b`)
	mechanicalRE = regexp.MustCompile(`(?i)\b(?:typos?|spelling|misspell\w*|lint(?:ing|er|s)?|gofmt|golint|goimports|black|isort|prettier|eslint|standardjs|rustfmt|clippy|reformat\w*|formatting|whitespace|copyright|license headers?|code style|codestyle)\b`)
)

// IsVersionBump reports whether a commit subject looks like a release or
// version or dependency bump, or a changelog update.
func IsVersionBump(subject string) bool { return bumpRE.MatchString(subject) }

// IsMechanical reports whether a commit subject announces a mechanical
// change (typos, formatting, linting, copyright headers), whose message
// does not describe the code it touches.
func IsMechanical(subject string) bool { return mechanicalRE.MatchString(subject) }

// IsBot reports whether an author name or e-mail is a bot's.
func IsBot(author string) bool {
	a := strings.ToLower(author)
	return strings.Contains(a, "[bot]") || strings.Contains(a, "dependabot") || strings.Contains(a, "renovate") ||
		strings.Contains(a, "greenkeeper") || strings.Contains(a, "pre-commit-ci")
}
