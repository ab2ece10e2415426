// Package gitdiff runs `git diff REV` for a request that names a revision
// or a range instead of giving a diff (`ctxls assemble --diff`, the MCP
// tool's diff_rev): every revision checked first so that a bad one is
// named, ranges without a merge base reported as such, and git's output
// made the same whatever the user's git configuration.
package gitdiff
