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
//     A server checks its clients' tokens with a TokenChecker, which
//     remembers the store's answers (refusals too) for TokenTTL and
//     answers ErrUnavailable, saying nothing of the store, for tokens it
//     does not know while the store is down.
//
// A replica checks a generation out into a disposable cache directory
// (checkout.go): the texts as files, and an index built from the stored
// chunks by the same code a local index uses (index.Options' Lister and
// NewChunker come from the manifest), so that a context assembled from the
// store is the one a local index of the same tree gives, byte for byte. A
// later generation updates the checkout by what changed. A Union reads
// several repositories' checkouts as one tree (at most MaxUnionRepos;
// ResolveRepos bounds a request's list before it is expanded); its index
// takes each file's chunks from the repository's own index open in the
// process (Union.SetLocal) and asks the store only for the others.
//
// The connection string is a credential (source.go, dsn.go): Source reads
// it from --store, --store-file or the environment ($CTXLS_STORE_FILE,
// $CTXLS_STORE), a file only when only its owner may read it (package
// secretfile); Open takes a missing password from PostgreSQL's password
// file, refused as well when others may read it; and no error Open returns
// says a password, in any of the forms a connection string holds one
// (Redact).
//
// The store's collection (gc.go: Store.GC, `ctxls store gc`) deletes the
// blobs no kept generation and no index image names. It and the publishes
// exclude each other through advisory locks: a collection waits for the
// publishes under way, and a commit checks that the blobs it names are
// still stored (a publish whose lock was lost writes them again).
//
// A server that cannot be reached (down, restarting, the session ended)
// is ErrUnreachable (reach.go), named by host, port and database: never a
// repository's absence. A publish tries such a failed step again with a
// bounded backoff (RetryFirst, RetryMax, RetryFor), each retry logged; a
// chunk a union's index cannot read then is index.ErrUnavailable, the
// file left out and the index incomplete until a refresh reads it; for a
// moment after such a failure the union's other files are left out at
// once rather than each asking the store again.
//
// The checkout directory follows the rules of an index directory
// (index.PrepareOwnedDir), and no symbolic link in it is followed.
//
// A replica trusts nothing it reads from the store beyond what it checks:
// whoever may publish may write any row. Each blob's row is judged before
// the blob is decompressed (its declared size, the size its manifest or
// its kind allows, what the checkout may still read: EnvMaxRepoBytes),
// and the blob decompresses to exactly that size and to its name;
// manifests are checked as they are decoded (manifest.go, image.go).
// Content that fails is ErrUnusable: an error for its repository alone,
// logged once per generation (Store.SetLogf), never a panic or an
// allocation of what a row declares. An index image that cannot be used
// is left out: the index is built from the stored chunks.
package pgstore
