// Package osfiletest holds what tests of the OS layer share across
// packages: a temporary directory that can be cleaned up under wine, where
// the Windows binaries' tests run on Linux.
package osfiletest
