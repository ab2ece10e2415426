// Package postings is the workspace index's lexical store: an inverted
// index of term → (document, term frequency) postings per field, with each
// document's field lengths, kept in immutable segments. It holds exactly
// what the index's BM25 scoring reads and nothing else — no stored fields,
// no positions, no doc values — which is why it replaces a general search
// library there (docs/architecture.md, "The lexical store", has the
// measurements).
//
// # Segments
//
// A segment (segment.go) is one byte slice, a file mapped in memory or a
// buffer: the documents' IDs and field lengths, then per field its terms
// in byte order with their document frequencies and postings, then a
// footer of section offsets and a CRC-32 (IEEE) of everything before it
// in its last 4 bytes. A segment is read in place: opening one reads its
// footer, a term lookup is a binary search over its term table, and a
// postings list is decoded as it is iterated.
//
// # The store
//
// A Store (store.go) is a list of segments, each with the set of its
// documents deleted since it was written, and an open Builder that takes
// new documents. Adding a document whose ID is already live deletes the
// older one (found in a map of the documents this Store wrote, or by a
// binary search of a segment's documents in ID order: a store opened
// from disk builds no map of every document for its first change); Seal
// turns the open builder into a segment; Reader seals and returns an
// immutable view that later writes do not change. Small
// segments are merged as they accumulate, and segments whose documents
// are mostly deleted are rewritten. A store in a directory writes each
// segment as a file when it is sealed and, on Persist, syncs the files and
// replaces the manifest (the list of live segments and their deleted
// documents) atomically; a store without a directory lives in memory.
//
// A Store is not safe for concurrent writes: its owner serializes them.
// Readers are safe for concurrent use with each other and with the
// writer.
package postings
