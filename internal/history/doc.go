// Package history reads a workspace's git history, bounded, and turns it
// into the two signals retrieval uses: which files changed together with
// a given set of files (co-change, for a diff) and how often and how
// recently each file changed (a prior for every request).
//
// A Log is the last Options.MaxCommits commits reachable from HEAD that
// touch the workspace (`git log --name-only -- .` run in the workspace
// root, paths relative to it), newest first. It is read once, kept in a
// cache file beside the index (Load, Save) and refreshed incrementally:
// when HEAD moved forward along a chain without merges, only the new
// commits are read, and the result equals a full read (the walk from the
// new HEAD passes through the old one); otherwise it is read again.
// Commits without parents (a root commit, or the boundary of a shallow
// clone, which lists every file as added) carry no co-change and are
// dropped; so are commits that change more than Options.MaxFiles files
// (mass renames, formatting, vendoring).
//
// With no git, no repository, or a repository git refuses to read (an
// unsafe owner), Read returns an error wrapping ErrUnavailable and
// retrieval goes on without history. git runs with the options that make
// its output the same whatever the user's configuration, and with what
// could run another program turned off (no pager, external diff,
// textconv, fsmonitor, signature checks, prompts or a partial clone's
// lazy fetches).
package history
