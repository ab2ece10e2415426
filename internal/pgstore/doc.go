// Package pgstore keeps repositories' indexes in PostgreSQL, so that any
// number of ctxls replicas answer for an organisation's repositories with
// no index of their own.
//
// What is stored (schema.go):
//
//   - blobs: content-addressed (SHA-256 of the bytes), zstd-compressed,
//     shared by every repository and generation: each indexed file's text,
//     each file's chunks (the parse's output: the one costly step a replica
//     must not redo), and the blocks of the index's side files (the vector
//     store, the git history's cache) cut at content-defined boundaries;
//   - generations: per repository, a numbered manifest (a blob too) naming
//     the files, their texts and chunks, and the side files' blocks. A
//     publish checks the stored row of every blob its generation names
//     (repair.go: anyone who may write the store may have written any row)
//     and writes those the store lacks or holds damaged, then the manifest
//     and the repository's current generation in one transaction: a new
//     generation becomes visible atomically, a push that changes a few files
//     writes about those files' blobs and a manifest, and one publish
//     repairs what another writer did to the repository;
//   - tokens: a token (kept as its SHA-256) grants a set of repositories.
//
// A replica checks a generation out into a disposable cache directory
// (checkout.go): the texts as files, and an index built from the stored
// chunks by the same code a local index uses (index.Options' Lister and
// NewChunker come from the manifest), so that a context assembled from the
// store is the one a local index of the same tree gives, byte for byte. A
// later generation updates the checkout by what changed.
package pgstore
