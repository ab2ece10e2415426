package chunk

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/*.txtar")

// archive is a parsed txtar file: a comment and named sections.
type archive struct {
	comment []byte
	files   []archiveFile
}

type archiveFile struct {
	name string
	data []byte
}

// parseArchive reads the txtar format: "-- name --" lines start sections.
func parseArchive(data []byte) archive {
	var a archive
	cur := -1
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		t := bytes.TrimRight(line, "\r\n")
		if bytes.HasPrefix(t, []byte("-- ")) && bytes.HasSuffix(t, []byte(" --")) && len(t) >= 6 {
			a.files = append(a.files, archiveFile{name: string(t[3 : len(t)-3])})
			cur = len(a.files) - 1
			continue
		}
		if cur < 0 {
			a.comment = append(a.comment, line...)
		} else {
			a.files[cur].data = append(a.files[cur].data, line...)
		}
	}
	return a
}

// format writes the archive back in txtar form.
func (a archive) format() []byte {
	var b bytes.Buffer
	b.Write(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.Write(f.data)
		if len(f.data) > 0 && f.data[len(f.data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// field renders a snapshot field: "-" when empty, quoted when it has space.
func field(s string) string {
	if s == "" {
		return "-"
	}
	if strings.ContainsAny(s, " \t\n\"") {
		return strconv.Quote(s)
	}
	return s
}

// snapshot renders chunks one per line for the golden files:
//
//	kind symbol qualifiedName Lstart-Lend sig=<SigEndLine> doc=<DocStartLine> [part=N] refs=<count> [defs=a,b] "signature"
//
// defs is shown when the chunk defines more than its own symbol.
func snapshot(cs []Chunk) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s %s L%d-%d sig=%d doc=%d", c.Kind, field(c.Symbol), field(c.QualifiedName),
			c.StartLine, c.EndLine, c.SigEndLine, c.DocStartLine)
		if c.Part > 0 {
			fmt.Fprintf(&b, " part=%d", c.Part)
		}
		fmt.Fprintf(&b, " refs=%d", len(c.References))
		if len(c.Defines) > 1 || (len(c.Defines) == 1 && c.Defines[0] != c.Symbol) {
			fmt.Fprintf(&b, " defs=%s", strings.Join(c.Defines, ","))
		}
		if c.Signature != "" {
			fmt.Fprintf(&b, " %s", strconv.Quote(c.Signature))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestGolden chunks the input.<ext> section of every testdata/*.txtar file
// and compares the snapshot with its want section (-update rewrites it).
// An optional "options" section holds "MaxLines=N" style settings.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(data)
			var input *archiveFile
			var opts Options
			wantIdx := -1
			for i := range a.files {
				f := &a.files[i]
				switch {
				case strings.HasPrefix(f.name, "input."):
					input = f
				case f.name == "want":
					wantIdx = i
				case f.name == "options":
					opts = parseOptions(t, string(f.data))
				}
			}
			if input == nil {
				t.Fatal("no input.<ext> section")
			}
			ck := NewChunker(opts)
			defer ck.Close()
			cs, err := ck.Chunk("testdata/"+input.name, input.data)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, input.data, cs)
			got := snapshot(cs)
			if *update {
				if wantIdx < 0 {
					a.files = append(a.files, archiveFile{name: "want"})
					wantIdx = len(a.files) - 1
				}
				a.files[wantIdx].data = []byte(got)
				if err := os.WriteFile(file, a.format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if wantIdx < 0 {
				t.Fatal("no want section; run go test -update")
			}
			if want := string(a.files[wantIdx].data); got != want {
				t.Errorf("snapshot mismatch (go test -update to accept)\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

func parseOptions(t *testing.T, s string) Options {
	var o Options
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil {
			t.Fatalf("bad option %q", f)
		}
		switch k {
		case "MaxLines":
			o.MaxLines = n
		case "WindowLines":
			o.WindowLines = n
		case "WindowOverlap":
			o.WindowOverlap = n
		default:
			t.Fatalf("unknown option %q", k)
		}
	}
	return o
}

// checkInvariants asserts what must hold for any chunking of any input.
func checkInvariants(t testing.TB, src []byte, cs []Chunk) {
	t.Helper()
	lines := bytes.Count(src, []byte("\n")) + 1
	headers := 0
	for i, c := range cs {
		if c.StartByte < 0 || c.EndByte > len(src) || c.StartByte >= c.EndByte {
			t.Fatalf("chunk %d: bytes [%d,%d) outside file of %d bytes (or empty)", i, c.StartByte, c.EndByte, len(src))
		}
		if c.StartLine < 1 || c.EndLine > lines || c.StartLine > c.EndLine {
			t.Fatalf("chunk %d: lines %d-%d outside 1-%d", i, c.StartLine, c.EndLine, lines)
		}
		if !(c.StartLine <= c.SigEndLine && c.SigEndLine <= c.EndLine) {
			t.Fatalf("chunk %d (%s %s): SigEndLine %d not in %d-%d", i, c.Kind, c.Symbol, c.SigEndLine, c.StartLine, c.EndLine)
		}
		if got := 1 + bytes.Count(src[:c.StartByte], []byte("\n")); got != c.StartLine {
			t.Fatalf("chunk %d: StartLine %d but StartByte is on line %d", i, c.StartLine, got)
		}
		if got := 1 + bytes.Count(src[:c.EndByte-1], []byte("\n")); got != c.EndLine {
			t.Fatalf("chunk %d: EndLine %d but EndByte-1 is on line %d", i, c.EndLine, got)
		}
		if c.Kind == KindHeader {
			headers++
		}
		if i > 0 && chunkLess(c, cs[i-1]) {
			t.Fatalf("chunks %d and %d out of order", i-1, i)
		}
		if len(c.TrackingHash) != 32 || len(c.ContentHash) != 32 {
			t.Fatalf("chunk %d: bad hashes %q %q", i, c.TrackingHash, c.ContentHash)
		}
	}
	if headers > 1 {
		t.Fatalf("%d header chunks", headers)
	}
}

// chunkLess is the documented order: (StartLine, EndLine, Kind, Symbol).
func chunkLess(a, b Chunk) bool {
	if a.StartLine != b.StartLine {
		return a.StartLine < b.StartLine
	}
	if a.EndLine != b.EndLine {
		return a.EndLine < b.EndLine
	}
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Symbol < b.Symbol
}
