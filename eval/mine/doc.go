// Package mine turns a repository's history into evaluation cases: it walks
// the non-merge commits with git, drops the ones that make poor cases
// (version bumps, docs-only, test-only, mechanical and huge commits, too
// short messages), cleans the messages into queries and extracts the gold
// lines from the parent side of each diff.
//
// It runs the git command-line tool on a git directory (bare or not) and
// never writes to it. It does not run retrieval: see package runner.
package mine
