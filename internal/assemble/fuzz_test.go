package assemble

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/ranges"
)

// FuzzAssemble derives a random case from the fuzzer's bytes and checks the
// invariants (budget, texts, no overlap, syntax of the rendered text).
func FuzzAssemble(f *testing.F) {
	f.Add(uint64(1), uint16(100), uint8(0))
	f.Add(uint64(42), uint16(7), uint8(1))
	f.Add(uint64(7), uint16(2000), uint8(2))
	f.Add(uint64(99), uint16(1), uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, budget uint16, knobs uint8) {
		r := rand.New(rand.NewPCG(seed, uint64(budget)))
		files, cs := genCase(r)
		req := Request{
			Budget:   Budget{MaxTokens: int(budget)},
			Format:   []Format{Markdown, XML, JSON}[int(knobs)%3],
			Strategy: []Strategy{Grouped, Interleaved, ByScore}[int(knobs/3)%3],
			Policy:   DefaultPolicy(),
		}
		req.Policy.Outlines = knobs&0x10 != 0
		req.Policy.Levels = knobs&0x20 == 0
		if knobs&0x40 != 0 {
			req.Budget.PerPartMaxTokens = int(budget/3) + 1
		}
		if knobs&0x80 != 0 {
			req.Budget.PerFileMaxTokens = int(budget/2) + 1
		}
		res, err := Assemble(context.Background(), req, cs, files, fieldsCounter{})
		if budget == 0 {
			if err == nil {
				t.Fatal("budget 0 accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, req, files, res, fieldsCounter{})
	})
}

// FuzzRender renders arbitrary text and metadata in each format and checks
// that the output parses and gives the text back.
func FuzzRender(f *testing.F) {
	f.Add("package main\n", "a.go", "main", uint8(0))
	f.Add("```\n````\n]]>\n<x>&amp;\n", "dir/we\"ird<>.md", "S&<", uint8(1))
	f.Add("\x00\x01\x1f\ufffe text\n", "\n.go", "\r\n", uint8(2))
	f.Add("", "", "", uint8(3))
	f.Fuzz(func(t *testing.T, text, path, symbol string, knobs uint8) {
		text = strings.ToValidUTF8(text, "\uFFFD")
		path = strings.ToValidUTF8(path, "\uFFFD")
		symbol = strings.ToValidUTF8(symbol, "\uFFFD")
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		b := &block{num: 1 + int(knobs), first: knobs%2 == 0, path: path, language: "go", symbol: symbol,
			level: []Level{LevelFull, LevelTrimmed}[knobs%2], ranges: []ranges.Range{{Start: 1, End: 2}}, text: text}
		for _, format := range []Format{Markdown, XML, JSON} {
			r := rendererFor(format)
			b.first = true
			out := r.preamble() + r.header(b) + r.body(b) + r.trailer()
			for _, seg := range []string{r.header(b), r.body(b)} {
				if !strings.HasSuffix(seg, "\n") || seg[0] == ' ' || seg[0] == '\n' || seg[0] == '\t' || seg[0] == '/' {
					t.Fatalf("%s: segment %q breaks the segment rule", format, seg)
				}
			}
			switch format {
			case JSON:
				var doc struct {
					Parts []struct{ Text, Path, Symbol string }
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatalf("json: %v\n%s", err, out)
				}
				if len(doc.Parts) != 1 || doc.Parts[0].Text != text || doc.Parts[0].Path != path {
					t.Fatalf("json round trip: %+v", doc)
				}
			case XML:
				dec := xml.NewDecoder(strings.NewReader(out))
				var code strings.Builder
				in := false
				for {
					tok, err := dec.Token()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("xml: %v\n%q", err, out)
					}
					switch tok := tok.(type) {
					case xml.StartElement:
						in = tok.Name.Local == "code"
					case xml.EndElement:
						in = false
					case xml.CharData:
						if in {
							code.Write(tok)
						}
					}
				}
				want := "\n" + xmlClean(text)
				want = strings.ReplaceAll(want, "\r\n", "\n") // XML normalizes line ends
				want = strings.ReplaceAll(want, "\r", "\n")
				if code.String() != want {
					t.Fatalf("xml round trip: got %q want %q", code.String(), want)
				}
			case Markdown:
				fence := fenceFor(text)
				if !strings.Contains(out, "\n"+fence+"go\n"+text+fence+"\n") {
					t.Fatalf("markdown: fence %q does not enclose the text:\n%s", fence, out)
				}
				for _, line := range strings.Split(text, "\n") {
					if strings.HasPrefix(strings.TrimLeft(line, " \t"), fence) {
						t.Fatalf("markdown: a text line starts with the fence %q", fence)
					}
				}
			}
		}
	})
}
