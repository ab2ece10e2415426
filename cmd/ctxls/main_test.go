package main

import (
	"os"
	"testing"
)

// runAsMain, set to 1 in a child process's environment, makes this test
// binary run as ctxls itself (tests and benchmarks that need a real
// process start it with os.Args[0]).
const runAsMain = "CTXLS_TEST_RUN_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runAsMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
