package chunk

import (
	"go/scanner"
	"go/token"
	"math"

	"github.com/ctxls/ctxls/internal/index/chunk/syntax"
)

// An outline parse leaves function bodies out of the syntax tree. The
// walker reads a function's statements only to cut a unit longer than
// MaxLines into parts; the bodies of shorter functions are most of a Go
// file and none of its chunks' boundaries, so parsing them is wasted work
// (the parse is half of a cold build's CPU). goOutline finds those bodies
// with the standard library's Go scanner, and the parser is told to read
// only the text around them (tree-sitter's included ranges): the tree then
// has every declaration at its place, each short function with an empty
// block, and the chunks are the same as from a full parse.
//
// The outline is only a shortcut: a file the scanner reports an error in,
// or whose braces do not match, gets no outline, and a tree parsed from an
// outline that has an error is dropped for a full parse (chunkCode). A
// syntax error inside a skipped body is not seen: that function still gets
// its chunk, where a full parse's error recovery could have cut the file
// differently.

// goOutline returns the ranges of src a parse should read so that the
// bodies of Go's top-level functions and methods are left out, each body's
// braces kept; nil when no body may be left out (or the scanner found an
// error). A function is left out only when it cannot make a unit longer
// than maxLines: counted from the line of the token before it, so that any
// doc comment is counted too.
func goOutline(src []byte, maxLines int, dst []syntax.Range) []syntax.Range {
	dst = dst[:0]
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	bad := false
	var s scanner.Scanner
	s.Init(file, src, func(token.Position, string) { bad = true }, 0)
	// Positions are the file's own: a //line directive, which the scanner
	// records, must not move them.
	position := func(off int) token.Position { return file.PositionFor(file.Pos(off), false) }
	line := func(p token.Pos) int { return file.PositionFor(p, false).Line }
	point := func(off int) syntax.Point {
		p := position(off)
		return syntax.Point{Row: uint32(p.Line - 1), Column: uint32(p.Column - 1)}
	}
	from := 0 // start of the range being read
	depth := 0
	prev, prevLine := token.SEMICOLON, 1
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF || bad {
			break
		}
		if tok == token.FUNC && depth == 0 && prev == token.SEMICOLON {
			open, end, ok := goBody(&s, file)
			if !ok {
				return nil
			}
			endLine := line(file.Pos(end))
			if open < 0 { // no body: it ended at a semicolon
				prev, prevLine = token.SEMICOLON, endLine
				continue
			}
			if endLine-prevLine+1 <= maxLines && end > open+1 {
				dst = append(dst, syntax.Range{
					StartByte: uint32(from), EndByte: uint32(open + 1),
					StartPoint: point(from), EndPoint: point(open + 1),
				})
				from = end
			}
			prev = token.RBRACE
			continue
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		case token.SEMICOLON:
			prevLine = line(pos)
		}
		prev = tok
	}
	if bad || depth != 0 || len(dst) == 0 {
		return nil
	}
	return append(dst, syntax.Range{
		StartByte: uint32(from), EndByte: math.MaxUint32,
		StartPoint: point(from), EndPoint: syntax.Point{Row: math.MaxUint32, Column: math.MaxUint32},
	})
}

// goBody scans a function declaration after its func keyword, through its
// body, and returns the offsets of the body's braces; for a declaration
// without a body, open is -1 and end is the semicolon ending it. ok is
// false when the file ends first.
//
// The body is the first brace at the declaration's own level that does not
// open a struct or interface type (`func f() struct{ x int } {`); braces
// inside parameters and type parameters are nested.
func goBody(s *scanner.Scanner, file *token.File) (open, end int, ok bool) {
	depth := 0
	last := token.FUNC
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, 0, false
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		case token.LBRACE:
			if depth == 0 && last != token.STRUCT && last != token.INTERFACE {
				open = file.Offset(pos)
				for n := 1; n > 0; {
					pos, tok, _ = s.Scan()
					switch tok {
					case token.EOF:
						return 0, 0, false
					case token.LBRACE:
						n++
					case token.RBRACE:
						n--
					}
				}
				return open, file.Offset(pos), true
			}
			depth++
		case token.SEMICOLON:
			if depth == 0 {
				return -1, file.Offset(pos), true
			}
		}
		last = tok
	}
}
