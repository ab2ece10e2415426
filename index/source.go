package index

import (
	"context"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/index/chunk"
)

// Entry is one file a Lister found: a candidate for indexing.
type Entry struct {
	Path     string // slash-separated, relative to the root
	Size     int64
	ModTime  time.Time
	Language string // optional; the chunker's answer wins when empty
}

// Skipped is a file a Lister (or the build) left out, with the reason
// ("ignored", "binary", "too large", "read error", …). Reasons are short
// fixed phrases so that Stats can count by reason.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// A Lister lists the files of a workspace to index. Implementations decide
// what is excluded (ignore files, size, binary, generated, secrets) and must
// never return paths outside root. List is called from one goroutine at a
// time.
type Lister interface {
	List(ctx context.Context, root string) ([]Entry, []Skipped, error)
}

// A Chunker splits one file into chunks. It need not be safe for concurrent
// use: the index creates one per worker goroutine with Options.NewChunker
// and closes it when done.
type Chunker interface {
	Chunk(path string, src []byte) ([]chunk.Chunk, error)
	Close()
}

// windowChunker is the Chunker used when Options.NewChunker is nil: line
// windows of windowLines lines overlapping by windowOverlap, without
// symbols. The tree-sitter chunker replaces it.
type windowChunker struct{}

const (
	windowLines   = 60
	windowOverlap = 10
)

func (windowChunker) Close() {}

func (windowChunker) Chunk(p string, src []byte) ([]chunk.Chunk, error) {
	if len(src) == 0 {
		return nil, nil
	}
	starts := lineStarts(src)
	nlines := len(starts)
	if starts[nlines-1] == len(src) { // trailing newline: no last empty line
		nlines--
	}
	lang := languageOf(p)
	var rv []chunk.Chunk
	for first := 1; ; first += windowLines - windowOverlap {
		last := min(first+windowLines-1, nlines)
		s, e := lineSpan(starts, len(src), first, last)
		text := src[s:e]
		rv = append(rv, chunk.Chunk{
			Path: p, Language: lang, Kind: chunk.KindWindow,
			StartByte: s, EndByte: e, StartLine: first, EndLine: last, SigEndLine: first,
			References:   identifiers(text),
			TrackingHash: trackingHash(text),
			ContentHash:  contentHash(text)[:32],
		})
		if last >= nlines {
			return rv, nil
		}
	}
}

// identifiers returns the distinct identifiers of text, sorted.
func identifiers(text []byte) []string {
	var rv []string
	for i := 0; i < len(text); {
		c := text[i]
		if c == '_' || ('a' <= c|0x20 && c|0x20 <= 'z') {
			j := i + 1
			for j < len(text) && isIdentByte(text[j]) {
				j++
			}
			rv = append(rv, string(text[i:j]))
			i = j
			continue
		}
		i++
	}
	slices.Sort(rv)
	return slices.Compact(rv)
}

func isIdentByte(c byte) bool {
	return c == '_' || ('a' <= c|0x20 && c|0x20 <= 'z') || ('0' <= c && c <= '9')
}

// trackingHash is the chunk package's tracking hash: SHA-256 (first 16
// bytes, hex) of text with whitespace runs collapsed and trimmed.
func trackingHash(text []byte) string {
	norm := strings.Join(strings.Fields(string(text)), " ")
	return contentHash([]byte(norm))[:32]
}

// languageOf guesses a language from a file name, for the fallback
// chunker only.
func languageOf(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return "go"
	case ".py":
		return "python"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".ts", ".tsx":
		return "typescript"
	case ".rs":
		return "rust"
	case ".java":
		return "java"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".hpp", ".cxx":
		return "cpp"
	case ".rb":
		return "ruby"
	case ".md", ".markdown":
		return "markdown"
	}
	return "text"
}
