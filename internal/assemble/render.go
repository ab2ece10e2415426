package assemble

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
)

// A rendered context is a sequence of segments: the preamble, then for each
// part a header and a body, then the trailer. Every segment ends with "\n"
// and every segment but the first starts with a byte that is neither
// whitespace nor '/', so the tokenizers split between segments and the token
// count of the whole is the sum of the segments' counts (tokens.Counter).
// That lets the packer count each body once and re-count only small headers
// when parts are renumbered; the final text is still counted whole once.

// block is what a renderer needs to know of a part.
type block struct {
	num      int // 1-based position in the rendered context
	first    bool
	path     string
	language string
	symbol   string
	kind     string
	level    Level
	ranges   []ranges.Range
	text     string   // the part's text: file lines with elision markers, ends with "\n"
	alsoIn   []string // other paths with the same content, at most MaxAlsoIn
	alsoMore int      // how many more there are
}

// alsoInText lists b's other paths for a header: "a, b and 3 more"; each
// name is passed through esc.
func alsoInText(b *block, esc func(string) string) string {
	var sb strings.Builder
	for i, p := range b.alsoIn {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(esc(p))
	}
	if b.alsoMore > 0 {
		sb.WriteString(" and ")
		sb.WriteString(strconv.Itoa(b.alsoMore))
		sb.WriteString(" more")
	}
	return sb.String()
}

// renderer writes one format.
type renderer interface {
	preamble() string
	trailer() string
	// header depends on the part's number and position; it is short.
	header(b *block) string
	// body depends only on the part's content (not on its number).
	body(b *block) string
}

func rendererFor(f Format) renderer {
	switch f {
	case XML:
		return xmlRenderer{}
	case JSON:
		return jsonRenderer{}
	}
	return markdownRenderer{}
}

func locString(b *block) string {
	if len(b.ranges) == 0 {
		return b.path
	}
	return b.path + ":" + ranges.Format(b.ranges)
}

// markdownRenderer:
//
//	### [1] ranges/stitch.go:12-40 (ranges.Stitch)
//	also in: vendor/ranges/stitch.go   (only when the content is elsewhere too)
//	```go
//	…
//	```
//	<blank line>
type markdownRenderer struct{}

func (markdownRenderer) preamble() string { return "" }
func (markdownRenderer) trailer() string  { return "" }

func (markdownRenderer) header(b *block) string {
	var sb strings.Builder
	sb.WriteString("### [")
	sb.WriteString(strconv.Itoa(b.num))
	sb.WriteString("] ")
	sb.WriteString(InlineText(locString(b)))
	if b.symbol != "" {
		sb.WriteString(" (")
		sb.WriteString(InlineText(b.symbol))
		sb.WriteString(")")
	}
	if b.level != LevelFull && b.level != "" {
		sb.WriteString(" [")
		sb.WriteString(string(b.level))
		sb.WriteString("]")
	}
	sb.WriteString("\n")
	if len(b.alsoIn) > 0 {
		sb.WriteString("also in: ")
		sb.WriteString(alsoInText(b, InlineText))
		sb.WriteString("\n")
	}
	return sb.String()
}

func (markdownRenderer) body(b *block) string {
	fence := fenceFor(b.text)
	var sb strings.Builder
	sb.Grow(len(b.text) + 2*len(fence) + len(b.language) + 4)
	sb.WriteString(fence)
	sb.WriteString(b.language)
	sb.WriteString("\n")
	sb.WriteString(b.text)
	sb.WriteString(fence)
	sb.WriteString("\n\n")
	return sb.String()
}

// fenceFor returns a backtick fence longer than any backtick run that starts
// a line of text (CommonMark: a fence closes only with at least as many).
func fenceFor(text string) string {
	longest := 0
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		line := text[i:]
		if j >= 0 {
			line = text[i : i+j]
			i += j + 1
		} else {
			i = len(text)
		}
		line = strings.TrimLeft(line, " \t")
		n := 0
		for n < len(line) && line[n] == '`' {
			n++
		}
		longest = max(longest, n)
	}
	return strings.Repeat("`", max(3, longest+1))
}

// xmlRenderer:
//
//	<context>
//	<part id="1" path="ranges/stitch.go" lines="12-40" symbol="ranges.Stitch" also-in="vendor/ranges/stitch.go">
//	<code>
//	… (XML-escaped)
//	</code>
//	</part>
//	</context>
type xmlRenderer struct{}

func (xmlRenderer) preamble() string { return "<context>\n" }
func (xmlRenderer) trailer() string  { return "</context>\n" }

func (xmlRenderer) header(b *block) string {
	var sb strings.Builder
	sb.WriteString(`<part id="`)
	sb.WriteString(strconv.Itoa(b.num))
	sb.WriteString(`" path="`)
	sb.WriteString(xmlAttr(b.path))
	sb.WriteString(`" lines="`)
	sb.WriteString(ranges.Format(b.ranges))
	sb.WriteString(`"`)
	if b.symbol != "" {
		sb.WriteString(` symbol="`)
		sb.WriteString(xmlAttr(b.symbol))
		sb.WriteString(`"`)
	}
	if b.level != LevelFull && b.level != "" {
		sb.WriteString(` level="`)
		sb.WriteString(string(b.level))
		sb.WriteString(`"`)
	}
	if len(b.alsoIn) > 0 {
		sb.WriteString(` also-in="`)
		sb.WriteString(alsoInText(b, xmlAttr))
		sb.WriteString(`"`)
	}
	sb.WriteString(">\n")
	return sb.String()
}

func (xmlRenderer) body(b *block) string {
	return "<code>\n" + xmlText(b.text) + "</code>\n</part>\n"
}

var xmlTextReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
var xmlAttrReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "&#10;", "\r", "&#13;", "\t", "&#9;")

// xmlText escapes text content. Characters XML 1.0 forbids (most C0
// controls) become U+FFFD so the document always parses.
func xmlText(s string) string {
	return xmlTextReplacer.Replace(xmlClean(s))
}

func xmlAttr(s string) string { return xmlAttrReplacer.Replace(xmlClean(s)) }

func xmlClean(s string) string {
	bad := false
	for _, r := range s {
		if !xmlAllowed(r) {
			bad = true
			break
		}
	}
	if !bad {
		return s
	}
	return strings.Map(func(r rune) rune {
		if xmlAllowed(r) {
			return r
		}
		return '\uFFFD'
	}, s)
}

func xmlAllowed(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// jsonRenderer writes one JSON document:
//
//	{"parts":[
//	{"id":1,"path":"a.go","lines":"1-5","symbol":"F","alsoIn":["b/a.go"],"alsoInMore":2,
//	"text":"…"}
//	,{"id":2,…,
//	"text":"…"}
//	]}
type jsonRenderer struct{}

func (jsonRenderer) preamble() string { return "{\"parts\":[\n" }
func (jsonRenderer) trailer() string  { return "]}\n" }

func (jsonRenderer) header(b *block) string {
	var sb strings.Builder
	if !b.first {
		sb.WriteByte(',')
	}
	sb.WriteString(`{"id":`)
	sb.WriteString(strconv.Itoa(b.num))
	sb.WriteString(`,"path":`)
	sb.WriteString(jsonString(b.path))
	sb.WriteString(`,"lines":`)
	sb.WriteString(jsonString(ranges.Format(b.ranges)))
	if b.symbol != "" {
		sb.WriteString(`,"symbol":`)
		sb.WriteString(jsonString(b.symbol))
	}
	if b.level != LevelFull && b.level != "" {
		sb.WriteString(`,"level":`)
		sb.WriteString(jsonString(string(b.level)))
	}
	if len(b.alsoIn) > 0 {
		sb.WriteString(`,"alsoIn":[`)
		for i, p := range b.alsoIn {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(jsonString(p))
		}
		sb.WriteString("]")
		if b.alsoMore > 0 {
			sb.WriteString(`,"alsoInMore":`)
			sb.WriteString(strconv.Itoa(b.alsoMore))
		}
	}
	sb.WriteString(",\n")
	return sb.String()
}

func (jsonRenderer) body(b *block) string {
	return `"text":` + jsonString(b.text) + "}\n"
}

func jsonString(s string) string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(sb.String(), "\n")
}
