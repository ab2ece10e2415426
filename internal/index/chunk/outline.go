package chunk

import (
	"go/scanner"
	"go/token"
	"math"

	"github.com/ctxls/ctxls/internal/index/chunk/syntax"
)

// An outline parse leaves out of the syntax tree what no chunk boundary
// depends on. The walker reads a function's statements only to cut a unit
// longer than MaxLines into parts; the bodies of shorter functions are
// most of a Go file and none of its chunks' boundaries, so parsing them is
// wasted work (the parse is most of a cold build's CPU). Of a longer
// function the walker reads the statements directly in its body, their
// ranges and which are comments, and nothing inside them; of a var or
// const declaration, the names it declares. goOutline finds, with the
// standard library's Go scanner, the bodies of the short functions and
// every brace pair nested in a long function's body or in a var or const
// declaration (blocks, composite literals, function literals, struct
// types), and the parser is told to read only the text around their
// contents (tree-sitter's included ranges). Every brace is kept, so the
// tree has every declaration and every statement of a long body at its
// place, ending where it ends in the file; a left-out block reads as
// empty ({}), which Go's syntax allows wherever braces go. The chunks are
// the same as from a full parse.
//
// The outline is only a shortcut: a file the scanner reports an error in,
// or whose braces do not match, gets no outline, and a tree parsed from an
// outline that has an error is dropped for a full parse (chunkCode). A
// syntax error inside a skipped part is not seen: that function or
// declaration still gets its chunk, where a full parse's error recovery
// could have cut the file differently.

// goOutline returns the ranges of src a parse should read so that the
// parts described above are left out, their braces kept; nil when nothing
// may be left out (or the scanner found an error). A function's body is
// left out only when the function cannot make a unit longer than
// maxLines: counted from the line of the token before it, so that any doc
// comment is counted too.
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
	// leaveOut ends the range being read after the brace at open and
	// starts the next at the brace at end.
	leaveOut := func(open, end int) {
		if end > open+1 {
			dst = append(dst, syntax.Range{
				StartByte: uint32(from), EndByte: uint32(open + 1),
				StartPoint: point(from), EndPoint: point(open + 1),
			})
			from = end
		}
	}
	depth := 0
	prev, prevLine := token.SEMICOLON, 1
	decl := false // in a top-level var or const declaration
	var inner [][2]int
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF || bad {
			break
		}
		if tok == token.FUNC && depth == 0 && prev == token.SEMICOLON {
			var open, end int
			var ok bool
			open, end, inner, ok = goBody(&s, file, inner[:0])
			if !ok {
				return nil
			}
			endLine := line(file.Pos(end))
			if open < 0 { // no body: it ended at a semicolon
				prev, prevLine = token.SEMICOLON, endLine
				continue
			}
			if endLine-prevLine+1 <= maxLines {
				leaveOut(open, end)
			} else {
				for _, b := range inner {
					leaveOut(b[0], b[1])
				}
			}
			prev = token.RBRACE
			continue
		}
		if (tok == token.VAR || tok == token.CONST) && depth == 0 && prev == token.SEMICOLON {
			decl = true
		}
		switch tok {
		case token.LBRACE:
			if decl {
				end, ok := goBraces(&s, file)
				if !ok {
					return nil
				}
				leaveOut(file.Offset(pos), end)
				prev = token.RBRACE
				continue
			}
			depth++
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		case token.SEMICOLON:
			prevLine = line(pos)
			if depth == 0 {
				decl = false
			}
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

// goBraces scans past the closing brace matching an opening one just
// scanned and returns its offset; ok is false when the file ends first.
func goBraces(s *scanner.Scanner, file *token.File) (end int, ok bool) {
	for n := 1; ; {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, false
		case token.LBRACE:
			n++
		case token.RBRACE:
			if n--; n == 0 {
				return file.Offset(pos), true
			}
		}
	}
}

// goBody scans a function declaration after its func keyword, through its
// body, and returns the offsets of the body's braces and, appended to
// inner, those of each brace pair directly inside the body; for a
// declaration without a body, open is -1 and end is the semicolon ending
// it. ok is false when the file ends first.
//
// The body is the first brace at the declaration's own level that does not
// open a struct or interface type (`func f() struct{ x int } {`); braces
// inside parameters and type parameters are nested.
func goBody(s *scanner.Scanner, file *token.File, inner [][2]int) (open, end int, _ [][2]int, ok bool) {
	depth := 0
	last := token.FUNC
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, 0, inner, false
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		case token.LBRACE:
			if depth == 0 && last != token.STRUCT && last != token.INTERFACE {
				open = file.Offset(pos)
				for {
					pos, tok, _ = s.Scan()
					switch tok {
					case token.EOF:
						return 0, 0, inner, false
					case token.RBRACE:
						return open, file.Offset(pos), inner, true
					case token.LBRACE:
						o := file.Offset(pos)
						e, ok := goBraces(s, file)
						if !ok {
							return 0, 0, inner, false
						}
						inner = append(inner, [2]int{o, e})
					}
				}
			}
			depth++
		case token.SEMICOLON:
			if depth == 0 {
				return -1, file.Offset(pos), inner, true
			}
		}
		last = tok
	}
}
