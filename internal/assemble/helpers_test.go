package assemble

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
)

// approxCounter is ceil(bytes/4), the rough estimate of a simple
// tokenizer. It is not
// additive (a sum of segments over-counts), which the assembler must cope
// with: its final whole-text count decides.
type approxCounter struct{}

func (approxCounter) Name() string       { return "approx" }
func (approxCounter) Count(s string) int { return (len(s) + 3) / 4 }

// fieldsCounter counts whitespace-separated words: additive across any
// boundary next to whitespace, so test vectors can set exact costs.
type fieldsCounter struct{}

func (fieldsCounter) Name() string       { return "fields" }
func (fieldsCounter) Count(s string) int { return len(strings.Fields(s)) }

// words returns n words on one line.
func words(n int, w string) string {
	return strings.TrimSpace(strings.Repeat(w+" ", n)) + "\n"
}

// genFile makes a Go-looking file of n lines.
func genFile(r *rand.Rand, n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		switch r.IntN(9) {
		case 0:
			sb.WriteString("\n")
		case 1:
			fmt.Fprintf(&sb, "func F%d(a int) error {\n", i)
		case 2:
			sb.WriteString("}\n")
		case 3:
			fmt.Fprintf(&sb, "\t// comment %d with `code` and <tags> & \"quotes\"\n", i)
		case 4:
			sb.WriteString("\t```\n")
		case 5:
			fmt.Fprintf(&sb, "\tx := y[%d] + z /* ]]> */\n", i)
		case 6:
			sb.WriteString("\tnaïve := \"日本語\" // ünïcode\n")
		default:
			fmt.Fprintf(&sb, "\treturn call%d(a, b, c)\n", i)
		}
	}
	if r.IntN(4) == 0 {
		return strings.TrimSuffix(sb.String(), "\n") // no final newline
	}
	return sb.String()
}

// genCase makes random files and candidates over them.
func genCase(r *rand.Rand) (MapFiles, []Candidate) {
	files := MapFiles{}
	nf := 1 + r.IntN(6)
	paths := make([]string, nf)
	for i := range paths {
		paths[i] = fmt.Sprintf("pkg%d/file%d.go", r.IntN(3), i)
		files[paths[i]] = genFile(r, r.IntN(120))
	}
	var cs []Candidate
	nc := r.IntN(25)
	for i := 0; i < nc; i++ {
		p := paths[r.IntN(nf)]
		if r.IntN(15) == 0 {
			p = "missing.go"
		}
		var rs []ranges.Range
		for k := 0; k < 1+r.IntN(3); k++ {
			s := r.IntN(130) - 3
			rs = append(rs, ranges.Range{Start: s, End: s + r.IntN(40) - 2})
		}
		c := Candidate{
			ID: fmt.Sprintf("c%d", r.IntN(nc+1)), Path: p, Ranges: rs,
			Score: float64(r.IntN(100)) / 100, Sources: []string{[]string{"lexical", "symbol", "focus"}[r.IntN(3)]},
			Symbol: fmt.Sprintf("F%d", r.IntN(5)),
		}
		if r.IntN(3) == 0 {
			c.TrackingHash = fmt.Sprintf("h%d", r.IntN(4))
		}
		if r.IntN(2) == 0 && len(rs) > 0 {
			c.Signature = ranges.Range{Start: rs[0].Start, End: rs[0].Start + r.IntN(2)}
			c.Hits = []int{rs[0].Start + r.IntN(20), rs[0].Start + r.IntN(30)}
		}
		if r.IntN(4) == 0 && len(rs) > 0 {
			c.Doc = ranges.Range{Start: rs[0].Start - 2, End: rs[0].Start - 1}
		}
		if r.IntN(20) == 0 {
			c.Score = []float64{nan(), inf()}[r.IntN(2)]
		}
		if r.IntN(6) == 0 {
			c.Reserve = "focus"
		}
		cs = append(cs, c)
	}
	return files, cs
}

func nan() float64 { z := 0.0; return z / z }
func inf() float64 { z := 0.0; return 1 / z }
