//go:build unix

package main

// parentIDChanges: a process whose parent dies gets another parent, and
// getppid says so.
const parentIDChanges = true
