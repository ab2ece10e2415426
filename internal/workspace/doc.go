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
// Repos serves an index store's repositories (package pgstore) as Roots:
// each repository's checkout and index, held by their users, at most
// ReposOptions.MaxOpenRepos of them open (the least recently used closed
// past it and reopened from its checkout on disk), brought to new
// generations as the store's notifications say they are published; and
// unions of several, held by their users and at most
// ReposOptions.MaxUnions of them open.
//
// Faces decode their wire format, acquire a View, call the engine
// (retrieve) with it and shape the answer; the request itself is
// normalised once, by retrieve.Request.Normalize.
package workspace
