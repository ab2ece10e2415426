// Package gitexec starts git the way every part of ctxls that reads a
// repository does: so that git runs no other program the repository or the
// user's configuration names, opens no connection, prompts for nothing and
// writes nothing, and prints the same output whatever that configuration.
//
// A repository is input like any other file: a checkout from an archive, a
// colleague's directory or a review bot's clone may carry a .git/config
// (core.fsmonitor, a filter driver's clean or process command, an external
// diff or textconv program, a pager) or a partial clone's promisor remote
// that would make a plain `git diff` run a program or fetch from the
// network. Command turns each of those off; FilterOverrides finds the
// filter drivers the configuration defines so that a command that reads
// the working tree (where git would run a driver's clean command) can turn
// them off too.
package gitexec
