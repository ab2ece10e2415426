package analysis

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	index "github.com/blevesearch/bleve_index_api"
)

// Names under which init registers the analysis components with bleve.
const (
	// TokenizerName is the tokenizer that emits identifiers
	// ([A-Za-z_][A-Za-z0-9_]*) and numbers ([0-9]+), original case.
	TokenizerName = "ctxls_code_tokenizer"
	// FilterName is the token filter that lowercases each token and adds the
	// parts of each identifier after it.
	FilterName = "ctxls_identifier_parts"
	// AnalyzerName is TokenizerName followed by FilterName.
	AnalyzerName = "ctxls_code"
)

func init() {
	// Registration fails only on a duplicate name, which is a programming
	// error (two packages claiming the same name): fail loudly at start-up.
	must(registry.RegisterTokenizer(TokenizerName,
		func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
			return Tokenizer{}, nil
		}))
	must(registry.RegisterTokenFilter(FilterName,
		func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
			return PartsFilter{}, nil
		}))
	must(registry.RegisterAnalyzer(AnalyzerName,
		func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
			return Analyzer{}, nil
		}))
}

func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("ctxls analysis: %v", err))
	}
}

// Analyzer is the code analyzer: Tokenizer then PartsFilter, in one pass.
// It is stateless and safe for concurrent use.
type Analyzer struct{}

// Analyze returns the terms of input with their byte offsets; it gives the
// same tokens as Tokenizer followed by PartsFilter, in one pass. The
// returned tokens' terms share one freshly allocated buffer; input is not
// retained.
func (Analyzer) Analyze(input []byte) analysis.TokenStream {
	var slab []analysis.Token
	var out analysis.TokenStream
	Visit(input, func(term []byte, start, end int, numeric bool) {
		if len(slab) == cap(slab) {
			slab = make([]analysis.Token, 0, max(16, len(input)/8))
		}
		typ := analysis.AlphaNumeric
		if numeric {
			typ = analysis.Numeric
		}
		slab = append(slab, analysis.Token{Start: start, End: end, Term: term, Position: len(out) + 1, Type: typ})
		out = append(out, &slab[len(slab)-1])
	})
	return out
}

// Visit calls emit for each term of input in order, exactly the terms
// Analyze returns: lowercased, with the byte offsets of the text they come
// from. Terms share one buffer allocated by Visit, valid after it returns;
// emit must not modify them.
func Visit(input []byte, emit func(term []byte, start, end int, numeric bool)) {
	VisitBuf(input, nil, emit)
}

// VisitBuf is Visit with the terms' buffer given: buf's memory is used
// when it can hold len(input) bytes (else a new buffer is allocated), and
// the buffer is returned for the next call. The terms are valid until buf
// is used again. For a caller analyzing many texts in a row.
func VisitBuf(input, buf []byte, emit func(term []byte, start, end int, numeric bool)) []byte {
	if cap(buf) < len(input) {
		buf = make([]byte, 0, len(input))
	}
	buf = buf[:0]
	var parts []span
	for i := 0; i < len(input); {
		c := input[i]
		if isDigit(c) {
			j := i + 1
			for j < len(input) && isDigit(input[j]) {
				j++
			}
			if j-i > 1 {
				from := len(buf)
				buf = append(buf, input[i:j]...)
				emit(buf[from:len(buf):len(buf)], i, j, true)
			}
			i = j
			continue
		}
		if !isLetter(c) && c != '_' {
			i++
			continue
		}
		j := i + 1
		for j < len(input) && isIdent(input[j]) {
			j++
		}
		orig := input[i:j]
		from := len(buf)
		for _, b := range orig {
			buf = append(buf, lower(b))
		}
		low := buf[from:len(buf):len(buf)]
		if len(low) > 1 {
			emit(low, i, j, false)
		}
		parts = splitSpans(orig, parts[:0])
		if !(len(parts) == 1 && parts[0].start == 0 && parts[0].end == len(orig)) {
			for _, p := range parts {
				if p.end-p.start >= 2 {
					emit(low[p.start:p.end:p.end], i+p.start, i+p.end, false)
				}
			}
		}
		i = j
	}
	return buf
}

// Frequencies analyzes input like Analyze and returns each distinct term's
// frequency, and the number of terms: what bleve computes from Analyze's
// tokens for a field indexed without term vectors, at a fraction of the
// allocations. The map's terms share one buffer.
func Frequencies(input []byte) (index.TokenFrequencies, int) {
	freqs := make(index.TokenFrequencies, len(input)/16+1)
	var slab []index.TokenFreq
	n := 0
	Visit(input, func(term []byte, _, _ int, _ bool) {
		n++
		if tf, ok := freqs[string(term)]; ok {
			tf.SetFrequency(tf.Frequency() + 1)
			return
		}
		if len(slab) == cap(slab) {
			slab = make([]index.TokenFreq, 0, max(16, len(input)/32))
		}
		slab = append(slab, index.TokenFreq{Term: term})
		tf := &slab[len(slab)-1]
		tf.SetFrequency(1)
		freqs[string(term)] = tf
	})
	return freqs, n
}

// Tokenizer splits text into identifiers ([A-Za-z_][A-Za-z0-9_]*) and
// numbers ([0-9]+); every other byte (including all non-ASCII bytes)
// separates tokens. Terms keep their original case and alias the input.
// It is stateless and safe for concurrent use.
type Tokenizer struct{}

// Tokenize implements analysis.Tokenizer.
func (Tokenizer) Tokenize(input []byte) analysis.TokenStream {
	spans := scan(input, nil)
	slab := make([]analysis.Token, len(spans))
	rv := make(analysis.TokenStream, len(spans))
	for i, sp := range spans {
		typ := analysis.AlphaNumeric
		if isDigit(input[sp.start]) {
			typ = analysis.Numeric
		}
		slab[i] = analysis.Token{
			Start:    sp.start,
			End:      sp.end,
			Term:     input[sp.start:sp.end:sp.end],
			Position: i + 1,
			Type:     typ,
		}
		rv[i] = &slab[i]
	}
	return rv
}

// PartsFilter lowercases every token and, after each identifier made of
// more than one part, emits the parts (see Split). Terms shorter than two
// bytes are dropped. Positions are renumbered 1, 2, … in emission order so
// that the parts of one identifier are adjacent (a phrase "parse http"
// matches parseHTTP). It is stateless and safe for concurrent use.
type PartsFilter struct{}

// Filter implements analysis.TokenFilter. It does not modify the input
// tokens' terms; the output terms share one new buffer.
func (PartsFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	total := 0
	for _, t := range input {
		total += len(t.Term)
	}
	buf := make([]byte, 0, total)
	out := make(analysis.TokenStream, 0, len(input)*2)
	var slab []analysis.Token
	var parts []span
	emit := func(term []byte, start, end int, typ analysis.TokenType) {
		if len(slab) == cap(slab) {
			slab = make([]analysis.Token, 0, len(input)+8)
		}
		slab = append(slab, analysis.Token{
			Start: start, End: end, Term: term,
			Position: len(out) + 1, Type: typ,
		})
		out = append(out, &slab[len(slab)-1])
	}
	for _, t := range input {
		orig := t.Term
		from := len(buf)
		for _, c := range orig {
			buf = append(buf, lower(c))
		}
		low := buf[from:len(buf):len(buf)]
		if t.Type == analysis.Numeric || (len(orig) > 0 && isDigit(orig[0])) {
			if len(low) > 1 {
				emit(low, t.Start, t.End, t.Type)
			}
			continue
		}
		// Offsets of parts are relative to the term; they map onto the
		// input only when the term spans exactly End-Start bytes.
		exact := t.End-t.Start == len(orig)
		parts = splitSpans(orig, parts[:0])
		if len(low) > 1 {
			emit(low, t.Start, t.End, t.Type)
		}
		if len(parts) == 1 && parts[0].start == 0 && parts[0].end == len(orig) {
			continue // the whole identifier is its only part
		}
		for _, p := range parts {
			if p.end-p.start < 2 {
				continue
			}
			s, e := t.Start, t.End
			if exact {
				s, e = t.Start+p.start, t.Start+p.end
			}
			emit(low[p.start:p.end:p.end], s, e, t.Type)
		}
	}
	return out
}

// Terms returns the distinct terms the analyzer produces for text, in order
// of first occurrence. It is what a query must be made of to match the index.
func Terms(text string) []string {
	toks := Analyzer{}.Analyze([]byte(text))
	seen := make(map[string]struct{}, len(toks))
	rv := make([]string, 0, len(toks))
	for _, t := range toks {
		if _, ok := seen[string(t.Term)]; ok {
			continue
		}
		s := string(t.Term)
		seen[s] = struct{}{}
		rv = append(rv, s)
	}
	return rv
}

// Split returns the lowercased parts of one identifier, in order, including
// parts of one byte; for an identifier of one part it returns that part.
// It does not include the whole identifier (unless it is its only part).
//
//	Split("parseHTTPRequest")  = [parse http request]
//	Split("ParseHTTP2Request") = [parse http2 request]
//	Split("__init__")          = [init]
func Split(ident string) []string {
	parts := splitSpans([]byte(ident), nil)
	rv := make([]string, len(parts))
	for i, p := range parts {
		b := []byte(ident[p.start:p.end])
		for j, c := range b {
			b[j] = lower(c)
		}
		rv[i] = string(b)
	}
	return rv
}

// IsIdentifier reports whether s is a single token of the tokenizer that
// starts with a letter or underscore.
func IsIdentifier(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

type span struct{ start, end int }

// scan appends the spans of identifiers and numbers in input to dst.
func scan(input []byte, dst []span) []span {
	if dst == nil {
		dst = make([]span, 0, len(input)/5+1)
	}
	i := 0
	for i < len(input) {
		c := input[i]
		switch {
		case isLetter(c) || c == '_':
			j := i + 1
			for j < len(input) && isIdent(input[j]) {
				j++
			}
			dst = append(dst, span{i, j})
			i = j
		case isDigit(c):
			j := i + 1
			for j < len(input) && isDigit(input[j]) {
				j++
			}
			dst = append(dst, span{i, j})
			i = j
		default:
			i++
		}
	}
	return dst
}

// splitSpans appends to dst the parts of identifier s: underscores
// separate; a part starts at an upper-case letter that follows a lower-case
// letter or a digit (parseHTTP, HTTP2Request), and at the last upper-case
// letter of a run that is followed by a lower-case one (HTTPRequest). Digits
// never start a part, except after an underscore (x86_64 → x86 64).
func splitSpans(s []byte, dst []span) []span {
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			if start >= 0 {
				dst = append(dst, span{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		if isUpper(c) {
			p := s[i-1]
			boundary := isLower(p) || isDigit(p) ||
				(isUpper(p) && i+1 < len(s) && isLower(s[i+1]))
			if boundary {
				dst = append(dst, span{start, i})
				start = i
			}
		}
	}
	if start >= 0 {
		dst = append(dst, span{start, len(s)})
	}
	return dst
}

func isLetter(c byte) bool { return isUpper(c) || isLower(c) }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isIdent(c byte) bool  { return isLetter(c) || isDigit(c) || c == '_' }

func lower(c byte) byte {
	if isUpper(c) {
		return c + ('a' - 'A')
	}
	return c
}
