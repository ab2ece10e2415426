//go:build !unix

package main

// parentIDChanges: on Windows a process keeps its parent's id after the
// parent exits.
const parentIDChanges = false
