package main

import (
	"os"
	"os/exec"
	"regexp"
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

// TestVersion: `ctxls version` prints one line editors' health checks show.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		cmd := exec.Command(os.Args[0], arg)
		cmd.Env = append(os.Environ(), runAsMain+"=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ctxls %s: %v", arg, err)
		}
		if !regexp.MustCompile(`^ctxls \S+\n$`).Match(out) {
			t.Errorf("ctxls %s printed %q, want \"ctxls VERSION\\n\"", arg, out)
		}
	}
}
