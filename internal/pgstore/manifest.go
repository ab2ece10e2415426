package pgstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"strings"
	"unicode"

	"github.com/restic/chunker"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// manifestFormat is the version of Manifest's encoding.
const manifestFormat = 2

// Manifest is one generation of a repository: what a replica checks out.
type Manifest struct {
	Format    int         `json:"format"`
	Repo      string      `json:"repo"`
	StateRoot string      `json:"stateRoot"` // the index snapshot's
	Producer  string      `json:"producer"`  // PublishOptions.Producer
	Files     []FileEntry `json:"files"`     // in path order
	Sides     []SideEntry `json:"sides"`     // in name order
}

// FileEntry is one indexed file.
type FileEntry struct {
	Path   string `json:"p"`
	Size   int64  `json:"s"`
	MTime  int64  `json:"m"` // Unix ns, as the publisher's index recorded it
	Text   string `json:"t"` // the text's blob (the index's content hash)
	Chunks string `json:"c"` // the chunks' blob (encodeChunks)
}

// SideEntry is a side file of the index directory (the vector store, the
// git history's cache), stored as content-defined blocks so that a small
// change to it writes a few blocks.
type SideEntry struct {
	Name   string   `json:"name"`
	Size   int64    `json:"size"`
	Blocks []string `json:"blocks"`
}

func (m *Manifest) encode() []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return b
}

// decodeManifest reads a manifest and checks what a checkout relies on:
// clean relative paths in order, sizes of 0 bytes or more, one size per
// text, hashes that parse, side files known and named once, each of a
// size its blocks can hold. Any other manifest is ErrUnusable.
func decodeManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, unusablef("manifest: %w", err)
	}
	if m.Format != manifestFormat {
		return nil, unusablef("manifest format %d, this ctxls reads %d", m.Format, manifestFormat)
	}
	sizes := make(map[string]int64, len(m.Files))
	for i, f := range m.Files {
		if !localPath(f.Path) {
			return nil, unusablef("manifest: bad path %q", f.Path)
		}
		if i > 0 && m.Files[i-1].Path >= f.Path {
			return nil, unusablef("manifest: paths out of order at %q", f.Path)
		}
		if f.Size < 0 {
			return nil, unusablef("manifest: file %s: size %d", f.Path, f.Size)
		}
		for _, h := range [...]string{f.Text, f.Chunks} {
			if _, err := parseHash(h); err != nil {
				return nil, unusablef("manifest: file %s: %w", f.Path, err)
			}
		}
		if n, ok := sizes[f.Text]; ok && n != f.Size {
			return nil, unusablef("manifest: file %s: its text has two sizes (%d and %d bytes)", f.Path, n, f.Size)
		}
		sizes[f.Text] = f.Size
	}
	for i, sd := range m.Sides {
		if !sideName(sd.Name) {
			return nil, unusablef("manifest: unknown side file %q", sd.Name)
		}
		for _, o := range m.Sides[:i] {
			if o.Name == sd.Name {
				return nil, unusablef("manifest: side file %s named twice", sd.Name)
			}
		}
		if err := checkBlocked(sd); err != nil {
			return nil, unusablef("manifest: %w", err)
		}
	}
	return &m, nil
}

// checkBlocked checks the entry of a file stored as blocks: a size of 0
// bytes or more that its blocks can hold (each holds 1 to blockMax
// bytes), and hashes that parse.
func checkBlocked(e SideEntry) error {
	n := int64(len(e.Blocks))
	if e.Size < 0 {
		return fmt.Errorf("stored file %s: size %d", e.Name, e.Size)
	}
	if e.Size < n || e.Size > n*blockMax {
		return fmt.Errorf("stored file %s: %d bytes in %d blocks of at most %d bytes", e.Name, e.Size, n, blockMax)
	}
	for _, b := range e.Blocks {
		if _, err := parseHash(b); err != nil {
			return fmt.Errorf("stored file %s: %w", e.Name, err)
		}
	}
	return nil
}

// sideName reports whether name is a side file a manifest may carry.
func sideName(name string) bool { return name == "semantic.v2" || name == "history.v2" }

// localPath reports whether p is a clean, slash-separated relative path
// that stays inside the directory it is joined to.
func localPath(p string) bool {
	return p != "" && p != "." && path.Clean(p) == p && !path.IsAbs(p) && p != ".." &&
		!strings.HasPrefix(p, "../") && !strings.ContainsAny(p, "\\\x00")
}

// CheckRepoName checks a repository's name: 1–200 characters of letters,
// digits and . _ - / (an organisation's "group/project" form), not
// starting with a slash or a dot.
func CheckRepoName(name string) error {
	if name == "" || len(name) > 200 {
		return fmt.Errorf("--repo: a repository's name has 1 to 200 characters (got %d)", len(name))
	}
	for _, r := range name {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-/", r))) {
			return fmt.Errorf("--repo %q: a repository's name has letters, digits and . _ - / only", name)
		}
	}
	if name[0] == '/' || name[0] == '.' || strings.Contains(name, "//") || strings.HasSuffix(name, "/") {
		return fmt.Errorf("--repo %q: not a repository's name (no leading dot or slash, no empty part)", name)
	}
	return nil
}

// chunksFormat starts the stored form of a file's chunks.
const chunksFormat = 1

// StoredChunks are a file's chunks as stored: without their path (equal
// contents at two paths share one blob) and with their token counts in
// the publisher's encodings, so that a replica neither parses nor counts.
type StoredChunks struct {
	Chunks    []chunk.Chunk
	Encodings []string  // sorted
	Tokens    [][]int32 // per encoding, per chunk
}

// encodeChunks is the stored form: a format byte, the encodings, then per
// chunk its strings and numbers as length-prefixed strings and varints,
// its defines and references, and its token counts.
func encodeChunks(sc StoredChunks) []byte {
	b := []byte{chunksFormat}
	b = binary.AppendUvarint(b, uint64(len(sc.Encodings)))
	for _, e := range sc.Encodings {
		b = cachefile.AppendString(b, e)
	}
	b = binary.AppendUvarint(b, uint64(len(sc.Chunks)))
	for i, c := range sc.Chunks {
		for _, s := range [...]string{c.Language, string(c.Kind), c.Symbol, c.QualifiedName, c.Signature, c.Doc, c.TrackingHash, c.ContentHash} {
			b = cachefile.AppendString(b, s)
		}
		for _, n := range [...]int{c.StartByte, c.EndByte, c.StartLine, c.EndLine, c.SigEndLine, c.DocStartLine, c.Part} {
			b = binary.AppendVarint(b, int64(n))
		}
		for _, list := range [...][]string{c.Defines, c.References} {
			b = binary.AppendUvarint(b, uint64(len(list)))
			for _, s := range list {
				b = cachefile.AppendString(b, s)
			}
		}
		for k := range sc.Encodings {
			b = binary.AppendVarint(b, int64(sc.Tokens[k][i]))
		}
	}
	return b
}

// decodeChunks reads encodeChunks's form back for the file at p.
func decodeChunks(b []byte, p string) (StoredChunks, error) {
	var sc StoredChunks
	if len(b) == 0 || b[0] != chunksFormat {
		return sc, fmt.Errorf("chunks of %s: not a known format", p)
	}
	r := &cachefile.Record{B: b[1:]}
	ne := r.Uvarint()
	if ne > 16 {
		return sc, fmt.Errorf("chunks of %s: damaged", p)
	}
	for range ne {
		sc.Encodings = append(sc.Encodings, r.String())
	}
	n := r.Uvarint()
	// A chunk takes at least a byte for each of its 8 strings, 7 numbers,
	// 2 lists and token counts: a count the bytes cannot hold is refused
	// before anything is allocated for it.
	if r.Err != nil || n > uint64(len(r.B))/uint64(17+ne) {
		return sc, fmt.Errorf("chunks of %s: damaged", p)
	}
	sc.Chunks = make([]chunk.Chunk, n)
	sc.Tokens = make([][]int32, ne)
	for k := range sc.Tokens {
		sc.Tokens[k] = make([]int32, n)
	}
	for i := range sc.Chunks {
		c := &sc.Chunks[i]
		c.Path = p
		c.Language, c.Kind, c.Symbol, c.QualifiedName = r.String(), chunk.Kind(r.String()), r.String(), r.String()
		c.Signature, c.Doc, c.TrackingHash, c.ContentHash = r.String(), r.String(), r.String(), r.String()
		for _, dst := range [...]*int{&c.StartByte, &c.EndByte, &c.StartLine, &c.EndLine, &c.SigEndLine, &c.DocStartLine, &c.Part} {
			*dst = int(r.Varint())
		}
		for _, dst := range [...]*[]string{&c.Defines, &c.References} {
			m := r.Uvarint()
			if m > uint64(len(r.B)) {
				return sc, fmt.Errorf("chunks of %s: damaged", p)
			}
			if m > 0 {
				*dst = make([]string, m)
				for j := range *dst {
					(*dst)[j] = r.String()
				}
			}
		}
		for k := range sc.Tokens {
			v := r.Varint()
			if v < 0 || v > math.MaxInt32 {
				return sc, fmt.Errorf("chunks of %s: damaged (a token count of %d)", p, v)
			}
			sc.Tokens[k][i] = int32(v)
		}
		if r.Err != nil {
			return sc, fmt.Errorf("chunks of %s: damaged", p)
		}
	}
	if len(r.B) != 0 {
		return sc, fmt.Errorf("chunks of %s: damaged (trailing bytes)", p)
	}
	return sc, nil
}

// The side files' blocks: content-defined boundaries (Rabin
// fingerprints, restic's chunker) between 16 and 256 KiB, 64 KiB on
// average, so that an edit in the middle of a file changes the blocks
// around it and not every block after it.
const (
	blockMin  = 16 << 10
	blockMax  = 256 << 10
	blockBits = 16
	// blockPol is the chunker's irreducible polynomial: fixed, so that
	// every publisher cuts the same bytes at the same places.
	blockPol = chunker.Pol(0x3DA3358B4DC173)
)

// An index image's files are cut finer: between 2 and 64 KiB, 8 KiB on
// average. A repository's image changes in many small places when a few
// files do (the tables of files, symbols and postings each take a few
// bytes of them), and near-copies of a repository (forks, vendored
// copies, a monorepo's siblings) differ the same way: smaller blocks let
// their images share more blocks (a quarter fewer bytes written per
// near-copy of a small repository than with the side files' 64 KiB;
// 4 KiB blocks gain little more and compress worse). A reader takes any
// block of at most blockMax bytes, whatever cut it.
const (
	imageBlockMin  = 2 << 10
	imageBlockMax  = 64 << 10
	imageBlockBits = 13
)

// splitBlocks cuts b into content-defined blocks (a side file's).
func splitBlocks(b []byte) ([][]byte, error) {
	return splitBlocksSized(b, blockMin, blockMax, blockBits)
}

// splitImageBlocks cuts b into content-defined blocks (an image file's).
func splitImageBlocks(b []byte) ([][]byte, error) {
	return splitBlocksSized(b, imageBlockMin, imageBlockMax, imageBlockBits)
}

// splitBlocksSized cuts b into content-defined blocks of lo to hi
// bytes, of 2^bits on average.
func splitBlocksSized(b []byte, lo, hi, bits int) ([][]byte, error) {
	c := chunker.NewWithBoundaries(bytes.NewReader(b), blockPol, uint(lo), uint(hi))
	c.SetAverageBits(bits)
	var out [][]byte
	var off int
	buf := make([]byte, hi)
	for {
		ch, err := c.Next(buf)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b[off:off+int(ch.Length)])
		off += int(ch.Length)
	}
}
