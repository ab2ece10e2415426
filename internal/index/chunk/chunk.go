package chunk

// Kind is what syntactic unit a chunk is.
type Kind string

// Chunk kinds. Code units come from tree-sitter; Window and Section are the
// fallbacks for files without a grammar (or that fail to parse).
const (
	KindHeader    Kind = "header"    // package clause, imports, top-level constants
	KindFunction  Kind = "function"  // free function
	KindMethod    Kind = "method"    // function with a receiver or inside a class
	KindType      Kind = "type"      // struct / type alias / typedef
	KindClass     Kind = "class"     // class (or Ruby module)
	KindInterface Kind = "interface" // interface / trait / protocol
	KindEnum      Kind = "enum"
	KindImpl      Kind = "impl"    // Rust impl block
	KindVar       Kind = "var"     // top-level var/const block that is not part of the header
	KindWindow    Kind = "window"  // fixed line window (fallback)
	KindSection   Kind = "section" // Markdown heading section
)

// Chunk is one indexable unit of one file. Lines are 1-based and inclusive;
// bytes are a half-open [StartByte, EndByte) range into the file's content.
type Chunk struct {
	Path      string // slash-separated, relative to the workspace root
	Language  string // "go", "python", …, "markdown", "text"
	Kind      Kind
	StartByte int
	EndByte   int
	StartLine int
	EndLine   int

	Symbol        string // the unit's own name, e.g. "Stitch" ("" for header/window)
	QualifiedName string // receiver/class/module qualified, e.g. "ranges.Stitch", "Server.handle"
	Signature     string // the declaration line(s) without the body
	SigEndLine    int    // last line of the signature (StartLine ≤ SigEndLine ≤ EndLine)
	Doc           string // the doc comment directly above the unit, comment markers kept
	DocStartLine  int    // first line of the doc comment, 0 if none (then < StartLine)

	Defines    []string // identifiers this unit defines (its symbol, methods, fields …), sorted, unique
	References []string // identifiers this unit uses, sorted, unique, minus keywords

	// TrackingHash identifies the unit's content independently of where it
	// sits: hex SHA-256 (first 16 bytes) of the unit's text with runs of
	// whitespace collapsed to one space and leading/trailing space trimmed.
	// Identical code at two paths has the same hash; a whitespace-only change
	// keeps it.
	TrackingHash string
	// ContentHash is hex SHA-256 (first 16 bytes) of the exact bytes.
	ContentHash string

	// Part is 0 for a unit that fits in one chunk. A unit longer than
	// Options.MaxLines is cut into pieces numbered 1, 2, … in file order;
	// all carry the unit's Kind, Symbol, QualifiedName and Signature, only
	// the piece holding the unit's start has its Doc, and the others have
	// SigEndLine = StartLine. Markdown sections split into windows are
	// numbered the same way.
	Part int
}
