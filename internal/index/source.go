package index

import (
	"context"
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

// A Chunker splits one file into chunks. It need not be safe for concurrent
// use: the index creates one per worker goroutine with Options.NewChunker
// and closes it when done.
type Chunker interface {
	Chunk(path string, src []byte) ([]chunk.Chunk, error)
	Close()
}

// againChunker is a Chunker that can chunk an edited file again from the
// syntax tree of its previous content (chunk.Chunker.ChunkAgain): the
// index uses it for editor buffers, whose every change is chunked anew.
type againChunker interface {
	ChunkAgain(path string, src []byte) (chunks []chunk.Chunk, reused bool, err error)
	KeepTrees(n int)
}
