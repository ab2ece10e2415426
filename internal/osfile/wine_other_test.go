//go:build !windows

package osfile_test

func underWine() bool { return false }
