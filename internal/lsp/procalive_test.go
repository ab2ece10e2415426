package lsp

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcessGone: the client's process is alive while it runs (this
// test's own) and gone once it has exited — on Windows too, where no
// signal 0 can be sent and a session that took the refusal for an exit
// ended five seconds after initialize.
func TestProcessGone(t *testing.T) {
	if err := processGone(os.Getpid()); err != nil {
		t.Fatalf("this process is gone: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := processGone(cmd.Process.Pid); err == nil {
		t.Errorf("process %d exited, and is not gone", cmd.Process.Pid)
	}
}
