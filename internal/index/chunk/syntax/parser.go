package syntax

import (
	"errors"
	"fmt"
)

// ErrNoTree is returned by Parse when tree-sitter returns no tree (it
// gives up only when cancelled or past a time limit, which ctxls never
// sets; the chunker then cuts the file into windows).
var ErrNoTree = errors.New("syntax: the parser returned no tree")

// Parser parses source text. It starts its engine (tree-sitter's parsers,
// or the WebAssembly instance that runs them) on first use. Not safe for
// concurrent use; Close frees it.
type Parser struct {
	e        *engine
	grammars [numLangs]*grammar
	free     [][]Node // blocks of closed trees, for the next ones
	closed   bool
}

// NewParser returns a Parser; nothing is started until the first Parse.
func NewParser() *Parser { return &Parser{} }

// Close frees the parsers and, without cgo, the WebAssembly instance.
// Trees parsed by p must be closed first.
func (p *Parser) Close() {
	if p.e != nil {
		p.e.close()
		p.e = nil
	}
	p.free = nil
	p.closed = true
}

// Parse parses src with lang's grammar: only the given ranges of it when
// ranges is not empty, and incrementally from old when old is not nil
// (old must have been given the edit with Edit; it stays the caller's to
// close). The tree is the caller's to close.
func (p *Parser) Parse(lang Lang, src []byte, ranges []Range, old *Tree) (*Tree, error) {
	if uint64(len(src)) >= 1<<32 {
		return nil, fmt.Errorf("syntax: %d bytes is too large to parse", len(src))
	}
	g, err := p.grammarFor(lang)
	if err != nil {
		return nil, err
	}
	var oldH handle
	hasOld := false
	if old != nil && old.e == p.e && p.e != nil {
		oldH, hasOld = old.h, true
	}
	h, ok, out, err := p.e.parse(lang, src, ranges, oldH, hasOld, eagerDepth)
	if err != nil {
		p.fail()
		return nil, fmt.Errorf("syntax: parse %s: %w", lang, err)
	}
	if !ok {
		return nil, ErrNoTree
	}
	t := &Tree{g: g, p: p, e: p.e, h: h}
	if err := t.add(out, -1); err != nil {
		t.Close()
		return nil, fmt.Errorf("syntax: parse %s: %w", lang, err)
	}
	return t, nil
}

// block returns a block of nodes, a closed tree's if there is one.
func (p *Parser) block() []Node {
	if k := len(p.free); k > 0 {
		b := p.free[k-1]
		p.free = p.free[:k-1]
		return b
	}
	return make([]Node, blockSize)
}

// fail drops an engine that returned an error: without cgo that is a
// trap in the WebAssembly instance, which leaves it unusable. The next
// Parse starts a new one; trees of the old one can only be closed.
func (p *Parser) fail() {
	if p.e != nil && p.e.broken() {
		p.e.close()
		p.e = nil
	}
}

// grammarFor returns lang's names, starting the engine if need be.
func (p *Parser) grammarFor(lang Lang) (*grammar, error) {
	if p.closed {
		return nil, errors.New("syntax: used after Close")
	}
	if lang >= numLangs {
		return nil, fmt.Errorf("syntax: unknown language %d", lang)
	}
	if p.e != nil && p.e.broken() {
		p.fail()
	}
	if p.e == nil {
		e, err := newEngine()
		if err != nil {
			return nil, fmt.Errorf("syntax: start the parser: %w", err)
		}
		p.e = e
	}
	return p.grammar(lang)
}

// grammar returns lang's names, reading them on first use.
func (p *Parser) grammar(lang Lang) (*grammar, error) {
	if g := p.grammars[lang]; g != nil {
		return g, nil
	}
	var g grammar
	for what := range uint32(3) {
		b, n, err := p.e.names(lang, what)
		if err != nil {
			p.fail()
			return nil, fmt.Errorf("syntax: read the %s grammar's names: %w", lang, err)
		}
		names, ok := splitNames(b, n)
		if !ok {
			return nil, fmt.Errorf("syntax: the %s grammar's names are malformed", lang)
		}
		switch what {
		case 0:
			g.symbols = names
		case 1:
			if len(names) > 255 {
				return nil, fmt.Errorf("syntax: the %s grammar has %d fields, more than a node record holds", lang, len(names))
			}
			g.fields = append([]string{""}, names...)
			g.fieldID = make(map[string]uint8, len(names))
			for i, f := range names {
				if _, dup := g.fieldID[f]; !dup && f != "" {
					g.fieldID[f] = uint8(i + 1)
				}
			}
		case 2:
			if len(names) > 16 {
				return nil, fmt.Errorf("syntax: %d look-up fields, more than a node record holds", len(names))
			}
			g.lookups = names
			g.lookup = make(map[string]int, len(names))
			for i, f := range names {
				g.lookup[f] = i
			}
		}
	}
	p.grammars[lang] = &g
	return &g, nil
}

var (
	errUnknownGrammar = errors.New("unknown grammar")
	errNoNode         = errors.New("no such node")
)
