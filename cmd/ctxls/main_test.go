package main

import (
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
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

// TestVersionOf: a published module's version as it is; a build from a
// checkout "devel" and its commit, "-dirty" with uncommitted changes; one
// word either way.
func TestVersionOf(t *testing.T) {
	vcs := func(mod string, kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/ctxls/ctxls", Version: mod}}
		for i := 0; i+1 < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{vcs("v1.2.3", "vcs.revision", "0123456789abcdef0123"), "v1.2.3"},
		{vcs("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), "devel+0123456789ab"},
		{vcs("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "devel+0123456789ab-dirty"},
		{vcs("(devel)"), "devel"},
		{vcs(""), "devel"},
	} {
		if got := versionOf(c.info); got != c.want {
			t.Errorf("versionOf(%v %v) = %q, want %q", c.info.Main.Version, c.info.Settings, got, c.want)
		}
	}
}
