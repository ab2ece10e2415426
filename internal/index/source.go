package index

import (
	"context"
	"errors"
	"time"

	"github.com/ctxls/ctxls/internal/index/chunk"
)

// Entry is one file a Lister found: a candidate for indexing.
type Entry struct {
	Path     string // slash-separated, relative to the root
	Size     int64
	ModTime  time.Time
	Language string // optional; the chunker's answer wins when empty
}

// Skipped is a file a Lister (or the build) left out, with the reason
// ("ignored", "binary", "too large", "read error", …). Reasons are short
// fixed phrases so that Stats can count by reason.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Detail, Size and ModTime are the walk's (walk.Skipped): ModTime is
	// set for a file left out for its content, whose verdict holds while
	// its size and modification time do.
	Detail  string    `json:"-"`
	Size    int64     `json:"-"`
	ModTime time.Time `json:"-"`
}

// A Lister lists the files of a workspace to index. Implementations decide
// what is excluded (ignore files, size, binary, generated, secrets) and must
// never return paths outside root. List is called from one goroutine at a
// time.
type Lister interface {
	List(ctx context.Context, root string) ([]Entry, []Skipped, error)
}

// A FileSource serves a root's files in place of the disk (Options.Files):
// a store's checkout keeps the texts of a generation in one pack rather
// than a file each. Paths are root-relative and slash-separated; a path
// the source does not have is fs.ErrNotExist (wrapped). Implementations
// are safe for concurrent use; ReadFile's result is the caller's.
type FileSource interface {
	Stat(rel string) (size int64, mtime time.Time, err error)
	ReadFile(rel string) ([]byte, error)
}

// ErrUnavailable is wrapped by a Chunker's or a FileSource's error when a
// file cannot be read now but may be later: its source (an index store)
// does not answer. The file is left out ("unavailable" in
// Stats.Skipped), and every snapshot says so (Complete false,
// Unavailable counting such files) until a Refresh, or the file's next
// change, indexes it.
var ErrUnavailable = errors.New("cannot be read now")

// A Chunker splits one file into chunks. It need not be safe for concurrent
// use: the index creates one per worker goroutine with Options.NewChunker
// and closes it when done.
type Chunker interface {
	Chunk(path string, src []byte) ([]chunk.Chunk, error)
	Close()
}

// A CountingChunker is a Chunker that also knows the token counts of the
// chunks it returns (a store's checkout has the publisher's): the index
// takes them instead of counting. Counts returns, for the chunks the last
// Chunk call returned for path, each encoding's counts per chunk (nil for
// an encoding it does not know, which the index counts).
type CountingChunker interface {
	Chunker
	Counts(path string, encodings []string) [][]int32
}

// againChunker is a Chunker that can chunk an edited file again from the
// syntax tree of its previous content (chunk.Chunker.ChunkAgain): the
// index uses it for editor buffers, whose every change is chunked anew.
type againChunker interface {
	ChunkAgain(path string, src []byte) (chunks []chunk.Chunk, reused bool, err error)
	KeepTrees(n int)
}
