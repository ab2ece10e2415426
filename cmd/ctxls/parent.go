package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// envParentPID, set by a launcher that starts ctxls as its child (the
// npm package's, packaging/npm), is the launcher's pid. ctxls then stops
// when the launcher is gone. A launcher forwards the signals it can
// catch, but one killed with SIGKILL (or by a signal it does not handle,
// SIGQUIT) cannot, and ctxls would live on, its stdin still open to the
// client that started the launcher.
const envParentPID = "CTXLS_PARENT_PID"

// parentPollInterval is how often ctxls checks that its launcher lives.
const parentPollInterval = 500 * time.Millisecond

// watchParent calls stop once the process $CTXLS_PARENT_PID names is no
// longer ctxls's parent: when the parent dies, the kernel gives its
// children another (init, or a subreaper), and getppid says so. It checks
// at once and then every parentPollInterval until ctx ends, and removes
// the variable from the environment, so that the processes ctxls starts
// (git) never compare their own parent with it. Without the variable, or
// on Windows (where a process's parent id does not change when the parent
// exits), it does nothing.
func watchParent(ctx context.Context, stop func(), stderr io.Writer) {
	v, ok := os.LookupEnv(envParentPID)
	if !ok {
		return
	}
	os.Unsetenv(envParentPID)
	pid, err := strconv.Atoi(v)
	if err != nil || pid <= 1 {
		fmt.Fprintf(stderr, "ctxls: $%s=%q is not a launcher's pid: ignored\n", envParentPID, v)
		return
	}
	if !parentIDChanges {
		return
	}
	gone := func() bool {
		if os.Getppid() == pid {
			return false
		}
		fmt.Fprintf(stderr, "ctxls: the launcher that started this process (pid %d) is gone: stopping\n", pid)
		stop()
		return true
	}
	if gone() {
		return
	}
	go func() {
		t := time.NewTicker(parentPollInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if gone() {
					return
				}
			}
		}
	}()
}
