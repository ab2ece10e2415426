// Package index is the workspace index: it lists a workspace's files,
// chunks them, and keeps
//
//   - a lexical store (package postings) with one document per chunk:
//     fields text (a "path qualified-name" line, then the chunk's text),
//     symbol (symbol and qualified name), path and doc (the doc comment),
//     analyzed with the code analyzer of index/analysis, kept as postings
//     (term → chunk, term frequency) and field lengths;
//   - a file table (path, size, modification time, content hash,
//     language), a chunk table (chunk.Chunk plus its token count in each
//     requested encoding, computed once at index time) and a symbol table
//     (definitions by name and by qualified name, references by
//     identifier: a reference graph between chunks, hence files);
//   - the state root, the hex SHA-256 over the sorted (path, content hash)
//     pairs: the version of the indexed content.
//
// # Reading
//
// Readers work on a *Snapshot (Index.Snapshot), an immutable view whose
// tables and lexical reader always agree, as in gopls. A writer never
// blocks readers: it prepares the next snapshot and swaps an atomic
// pointer. Snapshots are reference counted; release each one.
//
// File contents are not kept in memory, except editor overlays.
// Snapshot.File reads the file from disk and verifies it against the
// indexed content hash, returning ErrStale rather than text whose lines do
// not match the chunks.
// So a 90 MB tree costs its chunk metadata in memory, not its text.
//
// # Searching
//
// Snapshot.Search scores chunks with BM25 over the fields text, symbol
// (boosted 3×), path and doc, from the postings of the snapshot's
// reader: per (term, field), idf·tf·(k1+1)/(tf+k1·(1−b+b·len/avglen)),
// with Lucene's k1 and b (1.2, 0.75), the field length as Lucene and
// bleve keep it (through a float32 norm) and the average field lengths
// kept in the tables, times the field boost and the term's weight,
// summed. These are the scores the index computed when its postings
// were bleve's, to the bit.
// Postings of (term, field) pairs found in over a fifth of a large index
// are skipped when the query has rarer terms. Ties are broken by path,
// then line. A Query carries raw text, identifiers (searched whole and by
// parts) and prose words (also matched by naive inflections).
//
// # Writing
//
// Open builds, or loads and refreshes, the index; Update, Remove,
// SetOverlay, ClearOverlay and Refresh change it. All changes go through
// one writer mutex and one writer of the lexical store; chunking, token
// counting and the analysis of each chunk's fields run on GOMAXPROCS
// workers, each with its own Chunker. Overlays (open editor buffers)
// override the disk in every answer until cleared. Single-file changes and overlays are admitted by
// the walker's rules (ignore files, secrets, size, binary). Overlay.LayTree
// lays the files of another checkout (a pull request's) over the index,
// each read by the walker's rules for that tree (walk.Matcher.ReadFile),
// so that a review sees what an index of that tree would hold and nothing
// a link in it points at outside.
//
// A full build adds every document to one open segment of the store,
// written once at the end (a background build seals one whenever it
// publishes a snapshot, and merges them at the end); incremental changes
// add small segments that the store merges as they accumulate. Chunks are
// kept compactly (int32 positions, Defines and References as ids into an
// append-only name table), about half the size of chunk.Chunk; Chunk and
// ChunksOf expand them.
//
// # On disk
//
// The index of a root lives in DefaultCacheDir(root)
// (os.UserCacheDir()/ctxls/<hash of the absolute root>, or
// $CTXLS_CACHE_DIR/<hash>), or in Options.CacheDir. A full build is written
// to a new generation directory and switched in by atomically replacing
// the CURRENT file; a completeness marker is written last, after the
// lexical store has synced its segments and manifest and the tables file
// (a checksummed binary file) is written. Incremental changes remove the
// marker first and a checkpoint writes it again (Options.CheckpointDelay after the last
// change, and on Close), so a crash in between costs a rebuild, never a
// wrong answer. A checkpoint whose snapshot's base is the tables file's
// writes only the rows of the files changed since into a delta file beside
// it, and the removed files into the marker, which names both files by
// checksum: an edit costs its own files' rows, not the tree's; past
// compactAfter changed files the tables file is written whole again. A missing marker, another schema version, tables that fail
// their checksum or a lexical segment that fails its own all lead to a full
// build; files changed since (size or modification time differ, then the
// content hash) are re-read and re-indexed on open.
//
// A lock on <dir>/lock (flock(2), LockFileEx on Windows: internal/osfile)
// makes one Index the only writer of a directory.
// A second Open of the same root waits Options.LockTimeout and then fails
// with ErrLocked, or with Options.PrivateWhenLocked builds a private
// index in a temporary directory.
//
// This package knows nothing of LSP, queries in natural language, or
// token budgets: the retrieval and assembly layers build on it.
package index
