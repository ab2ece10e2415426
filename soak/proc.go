package soak

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a running ctxls process: its stderr goes to a log file and is
// watched for the lines the harness reads (the address, goroutine counts,
// panics).
type proc struct {
	cmd  *exec.Cmd
	name string
	log  *logWatch

	exited  chan struct{}
	waitErr error
}

// startProc starts bin with args, its stderr appended to logPath.
func startProc(name, bin string, args []string, logPath string) (*proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the log of %s: %w", name, err)
	}
	lw := &logWatch{f: f}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = lw
	cmd.Stdout = lw
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{cmd: cmd, name: name, log: lw, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	return p, nil
}

// pid is the process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// waitLine waits for a line of the process's output matching re that
// arrived after the first skip matches, and returns its submatches.
func (p *proc) waitLine(re *regexp.Regexp, skip int, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if m := p.log.find(re, skip); m != nil {
			return m, nil
		}
		select {
		case <-p.exited:
			if m := p.log.find(re, skip); m != nil {
				return m, nil
			}
			return nil, fmt.Errorf("%s exited (%v) before printing /%s/", p.name, p.waitErr, re)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s printed no /%s/ within %v", p.name, re, timeout)
		}
	}
}

// goroutinesRE matches what ctxls prints on SIGUSR1.
var goroutinesRE = regexp.MustCompile(`goroutines: (\d+)`)

// goroutines asks the process for its goroutine count (SIGUSR1; ctxls
// prints "goroutines: N" on stderr).
func (p *proc) goroutines() (int, error) {
	n := p.log.count(goroutinesRE)
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return 0, fmt.Errorf("signal %s: %w", p.name, err)
	}
	m, err := p.waitLine(goroutinesRE, n, 10*time.Second)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(m[1])
}

// rssMB reads the process's resident set size from /proc/PID/status.
func (p *proc) rssMB() (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid()))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				return 0, fmt.Errorf("VmRSS %q: %w", v, err)
			}
			return float64(kb) / 1024, nil
		}
	}
	return 0, errors.New("no VmRSS in /proc/PID/status")
}

// stop interrupts the process (SIGTERM) and returns its exit status; it
// is killed after timeout.
func (p *proc) stop(timeout time.Duration) (int, error) {
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(timeout):
			p.cmd.Process.Kill()
			<-p.exited
			return -1, fmt.Errorf("%s did not stop within %v of SIGTERM (killed)", p.name, timeout)
		}
	}
	code := p.cmd.ProcessState.ExitCode()
	return code, nil
}

// dumpAndStop ends the process with SIGQUIT, which makes the Go runtime
// write every goroutine's stack to its log (for a leak's diagnosis).
func (p *proc) dumpAndStop(timeout time.Duration) {
	p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// logWatch writes a process's output to a file and keeps the lines the
// harness looks for.
type logWatch struct {
	mu      sync.Mutex
	f       *os.File
	partial []byte
	kept    []string // lines matching keepRE
	panics  []string // lines that report a panic or a fatal error
}

// keepRE: the lines a harness waits for.
var keepRE = regexp.MustCompile(`listening on |goroutines: |token file: `)

// panicRE: lines that show the process (or a handler) panicked or died.
var panicRE = regexp.MustCompile(`\bpanic[:( ]|fatal error:|DATA RACE|internal error`)

func (w *logWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.f.Write(b)
	w.partial = append(w.partial, b...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		if keepRE.MatchString(line) {
			w.kept = append(w.kept, line)
		}
		if panicRE.MatchString(line) && len(w.panics) < 50 {
			w.panics = append(w.panics, line)
		}
	}
	return len(b), nil
}

// find returns the submatches of the first kept line matching re after
// skip earlier matches.
func (w *logWatch) find(re *regexp.Regexp, skip int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, line := range w.kept {
		if m := re.FindStringSubmatch(line); m != nil {
			if skip == 0 {
				return m
			}
			skip--
		}
	}
	return nil
}

// count is how many kept lines match re.
func (w *logWatch) count(re *regexp.Regexp) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, line := range w.kept {
		if re.MatchString(line) {
			n++
		}
	}
	return n
}

// panicLines returns the lines that reported a panic.
func (w *logWatch) panicLines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.panics...)
}
