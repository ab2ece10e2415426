package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// npmLauncher is the npm package's launcher (packaging/npm).
const npmLauncher = "../../packaging/npm/cli/bin/ctxls.js"

// alive reports whether process pid runs (a zombie has ended).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) STATE …: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// childOf returns the pid of process pid's first child, waiting for it.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			if fields := strings.Fields(string(b)); len(fields) > 0 {
				c, _ := strconv.Atoi(fields[0])
				return c
			}
		}
	}
	t.Fatalf("process %d started no child", pid)
	return 0
}

// TestNpmLauncherKilled: when the npm launcher is killed with a signal
// it cannot forward (SIGKILL) or does not catch (SIGQUIT), the ctxls it
// started stops within seconds, though the client still holds its stdin
// open (the MCP server and the language server over stdio).
func TestNpmLauncherKilled(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the npm launcher is not tested")
	}
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	launcher, err := filepath.Abs(npmLauncher)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGQUIT: "SIGQUIT"}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGQUIT} {
		for _, args := range [][]string{{"mcp", "--root", root}, {"serve"}} {
			cmd := exec.Command(node, append([]string{launcher}, append(args, "--cache-dir", t.TempDir())...)...)
			cmd.Dir = t.TempDir() // where a core dump of node's would go
			cmd.Env = append(os.Environ(), "CTXLS_BINARY="+os.Args[0], runAsMain+"=1")
			// Stdin held open, as a client does (not cmd.StdinPipe, which
			// Wait closes).
			stdin, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdin = stdin
			// A file, not a pipe: Wait returns when node ends, not when the
			// last process holding the pipe (ctxls) does.
			stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			child := childOf(t, cmd.Process.Pid)
			time.Sleep(300 * time.Millisecond) // ctxls under way
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait() //nolint:errcheck // killed
			start := time.Now()
			for alive(child) && time.Since(start) < 5*time.Second {
				time.Sleep(20 * time.Millisecond)
			}
			if alive(child) {
				log, _ := os.ReadFile(stderr.Name())
				t.Errorf("%v: the launcher killed with %s, ctxls (pid %d) still runs after 5 s:\n%s", args, names[sig], child, log)
				syscall.Kill(child, syscall.SIGKILL) //nolint:errcheck // the test's own child's child
			} else {
				t.Logf("%v, %s: ctxls stopped %v after the launcher", args, names[sig], time.Since(start).Round(time.Millisecond))
			}
			stdin.Close()
			w.Close()
			stderr.Close()
		}
	}
}
