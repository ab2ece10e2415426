package chunk

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	pathpkg "path"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/internal/index/chunk/syntax"
)

// Options tune how files are cut. Zero fields take their defaults.
type Options struct {
	// MaxLines is the longest a chunk may be; longer units are split at
	// child boundaries. Default 150.
	MaxLines int
	// WindowLines is the size of a line window (text files, unparsable
	// code, oversized statements). Default 60; never more than MaxLines.
	WindowLines int
	// WindowOverlap is how many lines consecutive windows share. Default
	// 10 (pass a negative value for none); always less than WindowLines.
	WindowOverlap int
	// MaxParseBytes: code files larger than this are cut into windows
	// without parsing (generated code, bundles). Default 4 MiB.
	MaxParseBytes int
}

// withDefaults fills zero fields and repairs inconsistent ones.
func (o Options) withDefaults() Options {
	if o.MaxLines <= 0 {
		o.MaxLines = 150
	}
	if o.WindowLines <= 0 {
		o.WindowLines = 60
	}
	o.WindowLines = min(o.WindowLines, o.MaxLines)
	if o.WindowOverlap < 0 {
		o.WindowOverlap = 0
	} else if o.WindowOverlap == 0 {
		o.WindowOverlap = 10
	}
	if o.WindowOverlap >= o.WindowLines {
		o.WindowOverlap = o.WindowLines / 4
	}
	if o.MaxParseBytes <= 0 {
		o.MaxParseBytes = 4 << 20
	}
	o.MaxParseBytes = min(o.MaxParseBytes, math.MaxInt32)
	return o
}

// Chunker cuts files into chunks. It keeps a syntax.Parser (one
// tree-sitter parser per language, and without cgo the WebAssembly
// instance they run in), started on first use, and scratch buffers reused
// between files.
//
// A Chunker is not safe for concurrent use: give each goroutine its own.
// Close it when done to free the parsers' memory.
type Chunker struct {
	opts    Options
	parser  *syntax.Parser
	li      lineIndex
	lx      lexer
	scratch []byte
	closed  bool

	// kept holds the syntax trees ChunkAgain keeps for its next call on
	// the same path, most recent last, at most keep of them.
	kept []keptTree
	keep int

	// liveTrees counts syntax trees parsed and not yet closed; it is zero
	// whenever Chunk has returned (tests check this).
	liveTrees int

	// ranges is scratch space for outline parses; fullParse turns them
	// off (tests compare both).
	ranges    []syntax.Range
	fullParse bool
}

// NewChunker returns a Chunker with opts (zero fields take defaults).
func NewChunker(opts Options) *Chunker {
	return &Chunker{opts: opts.withDefaults(), parser: syntax.NewParser()}
}

// Options returns the options in effect, defaults filled in.
func (c *Chunker) Options() Options { return c.opts }

// Close frees the parsers and kept trees. The Chunker must not be used
// afterwards.
func (c *Chunker) Close() {
	c.KeepTrees(0)
	c.parser.Close()
	c.closed = true
}

// ErrClosed is returned by Chunk after Close.
var ErrClosed = errors.New("chunk: Chunker is closed")

// Chunk cuts the content src of the file at path into chunks, sorted by
// (StartLine, EndLine, Kind, Symbol) and then by byte range and name, so
// the result is deterministic. The language comes from the extension (see
// LanguageOf). Code files are parsed with tree-sitter; Markdown is cut at
// headings; everything else, and code that does not parse, into
// overlapping line windows. An empty or all-blank file has no chunks.
func (c *Chunker) Chunk(path string, src []byte) ([]Chunk, error) {
	out, _, err := c.chunk(path, src, false)
	return out, err
}

// ChunkAgain is Chunk for a file that is edited again and again (an
// editor buffer): it keeps the file's syntax tree (KeepTrees sets how many
// files' trees it keeps) and parses the next content of the same path
// incrementally from it, which costs a fraction of a fresh parse. reused
// reports that it did.
//
// tree-sitter's incremental parse can differ from a fresh one (seen where
// error recovery is involved: tree-sitter#4001), and chunks must not
// depend on edit history. So a tree is kept, and reused, only when it has
// no error; an incremental result with an error is dropped for a fresh
// parse. Error-free results match fresh ones in every test, and callers
// that must be certain (the index, before it writes its tables) chunk the
// content again with Chunk and compare (see the index's checkpoint).
func (c *Chunker) ChunkAgain(path string, src []byte) (chunks []Chunk, reused bool, err error) {
	return c.chunk(path, src, true)
}

// KeepTrees sets how many files' trees ChunkAgain keeps (default 0: none;
// ChunkAgain is then Chunk). Each kept tree holds tree-sitter's memory (C
// memory, or the WebAssembly instance's) of the order of ten times its
// file's size.
func (c *Chunker) KeepTrees(n int) {
	c.keep = max(n, 0)
	c.trimKept()
}

func (c *Chunker) chunk(path string, src []byte, again bool) (_ []Chunk, reused bool, _ error) {
	if c.closed {
		return nil, false, ErrClosed
	}
	var kept *keptTree // the tree to parse src from
	again = again && c.keep > 0
	lang := languageFor(path, src)
	spec := specFor(lang)
	// The path's kept tree, if any, is taken in any case: it is either
	// parsed from now or stale (Chunk, another language, no parse).
	if old := c.takeKept(path); old != nil {
		if again && spec != nil && old.lang == spec.name && !blank(src) && len(src) <= c.opts.MaxParseBytes {
			kept = old
		} else {
			old.tree.Close()
		}
	}
	if blank(src) {
		return nil, false, nil
	}
	if len(src) > math.MaxInt32 {
		return nil, false, fmt.Errorf("chunk %s: file of %d bytes is too large", path, len(src))
	}
	c.li.reset(src)
	defer c.release()

	var out []Chunk
	switch {
	case spec != nil:
		c.lx.reset(&spec.lex, spec.keywords, src)
		c.lx.run()
		if len(src) <= c.opts.MaxParseBytes {
			var err error
			out, reused, err = c.chunkCode(spec, path, src, kept, again)
			if err != nil {
				return nil, false, fmt.Errorf("chunk %s: %w", path, err)
			}
		}
		if out == nil {
			out = c.windows(src)
		}
	case lang == "markdown":
		out = c.markdown(src)
	default:
		out = c.windows(src)
	}
	out = c.finish(out, path, lang, spec != nil)
	sortChunks(out)
	return out, reused, nil
}

// Parse only parses src with the grammar Chunk would use for path, and
// reports whether it did (false for languages cut without a parser and
// for files over MaxParseBytes). It is the floor a build stands on: the
// index benchmarks time it over the same files as a full build.
func (c *Chunker) Parse(path string, src []byte) (bool, error) {
	if c.closed {
		return false, ErrClosed
	}
	lang := languageFor(path, src)
	spec := specFor(lang)
	if spec == nil || blank(src) || len(src) > c.opts.MaxParseBytes {
		return false, nil
	}
	tree, _, gaveUp, err := c.freshTree(spec, src, false)
	if err != nil || gaveUp {
		return false, err
	}
	if tree != nil {
		tree.Close()
	}
	return true, nil
}

// languageFor is LanguageOf, except that a .h file that looks like C++
// (looksLikeCPP) is C++.
func languageFor(path string, src []byte) string {
	lang := LanguageOf(path)
	if lang == "c" && strings.EqualFold(pathpkg.Ext(path), ".h") && looksLikeCPP(src) {
		lang = "cpp"
	}
	return lang
}

// parse parses src with spec's grammar; only the given ranges of it
// when ranges is not empty (an outline parse). gaveUp reports that the
// parser returned no tree (the caller falls back to windows); an error
// means the parser could not run (without cgo: its WebAssembly instance
// could not start or trapped, and the next parse starts a new one).
func (c *Chunker) parse(spec *langSpec, src []byte, ranges []syntax.Range) (tree *syntax.Tree, gaveUp bool, err error) {
	tree, err = c.parser.Parse(spec.grammar, src, ranges, nil)
	if errors.Is(err, syntax.ErrNoTree) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("parse %s: %w", spec.name, err)
	}
	return tree, false, nil
}

// freshTree parses src without an old tree. For a language with an
// outline (outline.go) the tree is the outline's when it parses without
// error, and the whole file's otherwise; outline reports which. With
// whole (a tree to keep for incremental parses, which need every node),
// the whole file is parsed first and kept when it has no error: such a
// tree gives the same chunks as its outline, so the chunks are the same
// either way.
func (c *Chunker) freshTree(spec *langSpec, src []byte, whole bool) (tree *syntax.Tree, outline, gaveUp bool, err error) {
	canOutline := spec.outline != nil && !c.fullParse
	var full *syntax.Tree // the whole file's tree, when parsed first
	if whole || !canOutline {
		if full, gaveUp, err = c.parse(spec, src, nil); err != nil {
			return nil, false, false, err
		}
		if !canOutline || !gaveUp && full != nil && !full.RootNode().HasError() {
			return full, false, gaveUp, nil
		}
	}
	// The outline is scanned for only here: an editor's buffer without
	// error never needs it.
	c.ranges = spec.outline(src, c.opts.MaxLines, c.ranges)
	if len(c.ranges) > 0 {
		o, g, e := c.parse(spec, src, c.ranges)
		if e == nil && !g && o != nil && !o.RootNode().HasError() {
			if full != nil {
				full.Close()
			}
			return o, true, false, nil
		}
		if o != nil {
			o.Close()
		}
	}
	if whole {
		return full, false, gaveUp, nil
	}
	tree, gaveUp, err = c.parse(spec, src, nil)
	return tree, false, gaveUp, err
}

// release drops the references to the caller's content kept in scratch
// state, so that it can be collected after Chunk returns.
func (c *Chunker) release() {
	c.li.src = nil
	c.lx.src = nil
}

// looksLikeCPP reports whether a .h file is C++ rather than C, from lines
// that only C++ has (class/namespace/template declarations, access
// specifiers, extension-less standard includes). It looks at the first
// 64 KiB.
func looksLikeCPP(src []byte) bool {
	if len(src) > 64<<10 {
		src = src[:64<<10]
	}
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		line = bytes.TrimSpace(line)
		for _, p := range cppMarkers {
			if bytes.HasPrefix(line, []byte(p)) {
				return true
			}
		}
		if bytes.HasPrefix(line, []byte("#include <")) && !bytes.Contains(line, []byte(".h")) {
			return true // <vector>, <memory>
		}
	}
	return false
}

var cppMarkers = []string{"class ", "namespace ", "template <", "template<", "public:", "private:",
	"protected:", "using namespace ", "extern \"C++\""}

// chunkCode parses src and walks its tree. A nil result (without error)
// asks for the window fallback: the parser gave up, or the tree has errors
// and neither a unit nor a header was found in it.
//
// old, if not nil, is the path's kept tree and its content: src is parsed
// incrementally from it (and old is consumed). keep asks to keep the new
// tree when it has no error.
func (c *Chunker) chunkCode(spec *langSpec, path string, src []byte, old *keptTree, keep bool) (_ []Chunk, reused bool, _ error) {
	var tree *syntax.Tree
	if old != nil {
		tree = c.reparse(spec, old, src)
		reused = tree != nil
	}
	outline := false
	if tree == nil {
		var gaveUp bool
		var err error
		tree, outline, gaveUp, err = c.freshTree(spec, src, keep)
		if err != nil || gaveUp {
			return nil, false, err // gave up: fall back to windows
		}
		if tree == nil {
			return nil, false, nil
		}
	}
	c.liveTrees++
	root := tree.RootNode()
	keep = keep && !outline && !root.HasError()
	defer func() {
		c.liveTrees--
		if keep {
			c.keepTree(keptTree{path: path, lang: spec.name, src: bytes.Clone(src), tree: tree})
		} else {
			tree.Close()
		}
	}()
	w := walker{opts: c.opts, spec: spec, src: src, li: &c.li}
	w.run(root)
	if err := tree.Err(); err != nil {
		keep = false
		return nil, false, fmt.Errorf("read the syntax tree: %w", err)
	}
	if w.units == 0 && !w.header && root.HasError() {
		return nil, reused, nil
	}
	if w.out == nil {
		w.out = []Chunk{}
	}
	return w.out, reused, nil
}

// keptTree is a syntax tree ChunkAgain keeps, with the content it was
// parsed from.
type keptTree struct {
	path, lang string
	src        []byte
	tree       *syntax.Tree
}

// takeKept removes path's kept tree from the list and returns it (nil if
// there is none).
func (c *Chunker) takeKept(path string) *keptTree {
	for i := range c.kept {
		if c.kept[i].path == path {
			k := c.kept[i]
			c.kept = append(c.kept[:i], c.kept[i+1:]...)
			return &k
		}
	}
	return nil
}

// keepTree adds k as the most recent kept tree, closing the oldest beyond
// the limit.
func (c *Chunker) keepTree(k keptTree) {
	c.kept = append(c.kept, k)
	c.trimKept()
}

// trimKept closes the oldest kept trees beyond the limit.
func (c *Chunker) trimKept() {
	for len(c.kept) > c.keep {
		c.kept[0].tree.Close()
		c.kept = c.kept[1:]
	}
}

// reparse parses src incrementally from old (whose tree it consumes): one
// edit spans from the first byte that differs to the last, so reparse
// needs no edit list from the caller. It returns nil when the result has
// an error: the caller then parses afresh (see ChunkAgain).
func (c *Chunker) reparse(spec *langSpec, old *keptTree, src []byte) *syntax.Tree {
	defer old.tree.Close()
	prefix, suffix := commonEnds(old.src, src)
	old.tree.Edit(syntax.EditInput{
		StartIndex:  uint32(prefix),
		OldEndIndex: uint32(len(old.src) - suffix),
		NewEndIndex: uint32(len(src) - suffix),
		StartPoint:  pointAt(old.src, prefix),
		OldEndPoint: pointAt(old.src, len(old.src)-suffix),
		NewEndPoint: pointAt(src, len(src)-suffix),
	})
	tree, err := c.parser.Parse(spec.grammar, src, nil, old.tree)
	if err != nil {
		return nil
	}
	if tree.RootNode().HasError() {
		tree.Close()
		return nil
	}
	return tree
}

// commonEnds returns the lengths of the longest common prefix of a and b
// and of the longest common suffix of what follows it.
func commonEnds(a, b []byte) (prefix, suffix int) {
	n := min(len(a), len(b))
	for prefix < n && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < n-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// pointAt is tree-sitter's (row, byte column) of offset i in src.
func pointAt(src []byte, i int) syntax.Point {
	row := bytes.Count(src[:i], []byte{'\n'})
	col := i - (bytes.LastIndexByte(src[:i], '\n') + 1)
	return syntax.Point{Row: uint32(row), Column: uint32(col)}
}

// windows cuts the whole file into KindWindow line windows.
func (c *Chunker) windows(src []byte) []Chunk {
	var out []Chunk
	for _, w := range windowRanges(&c.li, c.opts, 0, len(src)) {
		out = append(out, Chunk{Kind: KindWindow, StartByte: w.start, EndByte: w.end})
	}
	return out
}

// finish fills the fields every chunk gets the same way: path, language,
// lines, hashes, references, tidy Defines. It trims white space off the
// ranges and drops chunks left empty.
func (c *Chunker) finish(out []Chunk, path, lang string, code bool) []Chunk {
	src := c.src()
	kept := out[:0]
	for i := range out {
		ch := out[i]
		ch.StartByte, ch.EndByte = trimRange(src, ch.StartByte, ch.EndByte)
		if ch.EndByte <= ch.StartByte {
			continue
		}
		ch.Path, ch.Language = path, lang
		ch.StartLine = c.li.lineOf(ch.StartByte)
		ch.EndLine = c.li.lastLine(ch.StartByte, ch.EndByte)
		ch.SigEndLine = min(max(ch.SigEndLine, ch.StartLine), ch.EndLine)
		body := src[ch.StartByte:ch.EndByte]
		ch.ContentHash = contentHash(body)
		ch.TrackingHash, c.scratch = trackingHash(body, c.scratch)
		if code {
			ch.References = c.lx.refs(ch.StartByte, ch.EndByte, ch.Symbol)
		}
		ch.Defines = uniqueSorted(ch.Defines)
		kept = append(kept, ch)
	}
	return kept
}

// src returns the content being chunked.
func (c *Chunker) src() []byte { return c.li.src }

// uniqueSorted sorts ss and removes duplicates and empty strings.
func uniqueSorted(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	sort.Strings(ss)
	out := ss[:0]
	for _, s := range ss {
		if s == "" || (len(out) > 0 && s == out[len(out)-1]) {
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sortChunks orders chunks by (StartLine, EndLine, Kind, Symbol), then by
// bytes, qualified name and part so that the order is total.
func sortChunks(cs []Chunk) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := &cs[i], &cs[j]
		switch {
		case a.StartLine != b.StartLine:
			return a.StartLine < b.StartLine
		case a.EndLine != b.EndLine:
			return a.EndLine < b.EndLine
		case a.Kind != b.Kind:
			return a.Kind < b.Kind
		case a.Symbol != b.Symbol:
			return a.Symbol < b.Symbol
		case a.StartByte != b.StartByte:
			return a.StartByte < b.StartByte
		case a.EndByte != b.EndByte:
			return a.EndByte < b.EndByte
		case a.QualifiedName != b.QualifiedName:
			return a.QualifiedName < b.QualifiedName
		}
		return a.Part < b.Part
	})
}
