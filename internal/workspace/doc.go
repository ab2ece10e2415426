// Package workspace is the layer between the faces (the language server,
// the MCP server, the CLI) and the engine: one Root per served directory,
// shared by every session and face of the process, and one Session per
// client of a root.
//
// A Root owns what is the same for every client: the index (opened in the
// background, refreshed from the disk), the disk changes seen and their
// application (told by an editor, or seen by the root's own watcher), the
// git history and semantic trackers (one of each per root, whatever the
// number of clients), the index's warnings, and close. A Pool hands out
// Roots by directory and closes a Root when its last user lets go.
//
// A Session owns what is one client's: its unsaved editor buffers, kept as
// an index.Overlay so that no other client ever reads them, and the index
// states held after an assemble for the expand requests that follow it.
// A request acquires a View — the session's snapshot, with its buffers — and
// either releases it (Done) or keeps it for expand (Keep).
//
// Repos serves an index store's repositories (Store) as Roots:
// each repository's checkout and index, held by their users, at most
// ReposOptions.MaxOpenRepos of them open (the least recently used closed
// past it and reopened from its checkout on disk), brought to new
// generations as the store's notifications say they are published; and
// unions of several, held by their users and at most
// ReposOptions.MaxUnions of them open. A union's index reads its chunks
// from its repositories' own indexes (IndexChunks; it holds their roots
// while it is open), its vectors are its repositories' own, composed
// (UnionVectors: a function of their content, the same on every replica
// and in the CLI), and it reads no history (UnionHistoryNote).
//
// A request reads a Target: a directory, a repository of the store, or a
// union of several (UnionTarget; Repos.Open).
//
// Faces decode their wire format, have the engine check the request once
// (retrieve.Engine.Plan), acquire a View, give the plan the root's history
// and vectors (View.Attach), run it (retrieve.Engine.AssemblePlan) and
// shape the answer. A face imports this package and the engine, never
// package index, pgstore, history or semantic: what it needs of them is
// named and done here — vocab.go (the words a face passes through: index
// options, a snapshot, a store's grant and errors, the embeddings' modes),
// symbols.go (find_symbol's search), call.go (a CLI call's history,
// vectors, store checkout and publish). TestFacesImportOnlyTheWorkspace
// keeps it so.
//
// The index store is behind the interface Store (store.go), which the
// workspace owns: what Repos, a CLI call and the faces' store commands
// ask of a store. Repos, the call functions and the faces hold a Store,
// never a *pgstore.Store; the PostgreSQL store is its one implementation, opened
// by the process's start-up (cmd/ctxls asserts that *pgstore.Store
// satisfies Store) or by OpenStore. The interface is declared here rather
// than in package pgstore because the workspace imports pgstore and
// pgstore must not import the workspace. The values that cross the seam
// (a checkout, a union, a grant, a repository's listing, a publish's
// options and figures) stay pgstore's, named here by aliases, so that
// *pgstore.Store satisfies Store as it is.
// TestStoreSeamNamesNoPgstoreType keeps the workspace's exported API
// free of any other pgstore type.
package workspace
