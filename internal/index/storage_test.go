package index

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxls/ctxls/internal/index/postings"
	"github.com/ctxls/ctxls/internal/tokens"
)

// bigFixture is a tree whose index is far larger than 64 KiB.
func bigFixture() map[string]string {
	files := map[string]string{}
	for i := range 120 {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n\n", i%7)
		for j := range 12 {
			fmt.Fprintf(&sb, "// Handler%d_%d serves requests of kind %d with a buffer.\nfunc Handler%d_%d(w Writer, r *Request) error {\n\treturn serve(w, r, %d)\n}\n\n", i, j, j, i, j, j)
		}
		files[fmt.Sprintf("pkg%d/file%d.go", i%7, i)] = sb.String()
	}
	return files
}

// A cache directory that cannot be created (a file is in the way, as for a
// read-only or foreign directory) leads to an in-memory index, with one
// warning and nothing written.
func TestCacheDirNotWritable(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var warnings atomic.Int32
	var warning atomic.Value
	opts := testOptions(t)
	opts.CacheDir = filepath.Join(blocker, "cache")
	opts.Warnf = func(format string, args ...any) {
		warnings.Add(1)
		warning.Store(fmt.Sprintf(format, args...))
	}
	x := mustOpen(t, root, opts)
	defer x.Close()
	if n := warnings.Load(); n != 1 {
		t.Fatalf("%d warnings, want 1", n)
	}
	if w := warning.Load().(string); !strings.Contains(w, opts.CacheDir) || !strings.Contains(w, "not a directory") || !strings.Contains(w, "in memory") {
		t.Errorf("warning %q does not say where, why and what instead", w)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"Stitch"}}); len(got) == 0 {
		t.Error("the in-memory index finds nothing")
	}
	if st := x.Stats(); !strings.Contains(st.Reason, "in memory") {
		t.Errorf("stats reason %q", st.Reason)
	}
	if err := x.Update(ctx, "ranges/stitch.go", []byte("package ranges\n\nfunc Sewn() {}\n")); err != nil {
		t.Fatal(err)
	}
	if err := x.Checkpoint(ctx); err != nil {
		t.Fatalf("checkpoint of an in-memory index: %v", err)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"Sewn"}}); len(got) != 1 {
		t.Errorf("an update of the in-memory index: %v", got)
	}
	if n := warnings.Load(); n != 1 {
		t.Fatalf("%d warnings after an update and a checkpoint, want 1", n)
	}
}

// With NoMemoryFallback, a cache directory that cannot be created is
// Build's error (a *CacheDirError naming the directory and why), not a
// warning and an index in memory.
func TestCacheDirNotWritableNoFallback(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t)
	opts.CacheDir = filepath.Join(blocker, "cache")
	opts.NoMemoryFallback = true
	var warnings []string
	opts.Warnf = func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	_, err := Build(ctx, root, opts)
	var ce *CacheDirError
	if !errors.As(err, &ce) {
		t.Fatalf("Build: %v, want a *CacheDirError", err)
	}
	if ce.Dir != opts.CacheDir || !strings.Contains(ce.Cause, "not a directory") || !strings.Contains(err.Error(), opts.CacheDir) {
		t.Errorf("error %q (dir %q, cause %q): want the directory and why", err, ce.Dir, ce.Cause)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %q, want none (the error says it)", warnings)
	}
}

// storageResult is what TestStorageHelper reports.
type storageResult struct {
	Err        string `json:"err,omitempty"`
	Warnings   []string
	Reason     string
	Hits       int
	CheckErr   string  `json:"checkErr,omitempty"`
	CheckSecs  float64 `json:"checkSecs"`
	CloseSecs  float64 `json:"closeSecs"`
	CacheBytes int64   `json:"cacheBytes"`
}

// TestStorageHelper runs, as a process of its own, an index whose writes
// fail past a file size limit (RLIMIT_FSIZE: writes past it fail with
// EFBIG, as on a full disk), so that the limit binds no other test.
func TestStorageHelper(t *testing.T) {
	mode := os.Getenv("CTXLS_STORAGE_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	root, cache := os.Getenv("CTXLS_HELPER_ROOT"), os.Getenv("CTXLS_HELPER_CACHE")
	limit, _ := strconv.ParseUint(os.Getenv("CTXLS_HELPER_FSIZE"), 10, 64)
	var res storageResult
	opts := Options{
		CacheDir:         cache,
		NewChunker:       func() (Chunker, error) { return blockChunker{}, nil },
		Counters:         map[string]tokens.Counter{"words": wordCounter{}},
		LockTimeout:      time.Second,
		CheckpointDelay:  -1,
		BatchSize:        50,
		Logf:             func(string, ...any) {},
		Warnf:            func(f string, a ...any) { res.Warnings = append(res.Warnings, fmt.Sprintf(f, a...)) },
		NoMemoryFallback: os.Getenv("CTXLS_HELPER_NOFALLBACK") != "",
	}
	setLimit := func() {
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: limit, Max: limit}); err != nil {
			res.Err = err.Error()
		}
	}
	report := func() {
		filepath.Walk(cache, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				res.CacheBytes += fi.Size()
			}
			return nil
		})
		b, _ := json.Marshal(res)
		os.Stdout.Write(append(b, '\n'))
		os.Exit(0)
	}
	if mode == "merge" {
		// A lexical store of its own with 20 small segments (2 documents
		// each), persisted; then the limit, and a merge of them all whose
		// segment does not fit.
		st, err := postings.Create(filepath.Join(cache, "merge"))
		if err != nil {
			res.Err = err.Error()
			report()
		}
		st.MaxSegments = 1000
		for i := range 20 {
			for j := range 2 {
				d := &postings.Doc{ID: fmt.Sprintf("doc%d-%d", i, j)}
				for k := range 1000 { // unique terms: a segment grows with its dictionary
					d.Add(fieldText, fmt.Appendf(nil, "%x", crc32.ChecksumIEEE(fmt.Appendf(nil, "%d/%d/%d", i, j, k))), 1)
				}
				d.Len[fieldText] = 1000
				st.Add(d)
			}
			if err := st.Persist(); err != nil {
				res.Err = err.Error()
				report()
			}
		}
		setLimit()
		start := time.Now()
		res.CheckErr = fmt.Sprint(st.Compact())
		res.CheckSecs = time.Since(start).Seconds()
		report()
	}
	if mode == "build" {
		setLimit()
	}
	x, err := Open(ctx, root, opts)
	if err != nil {
		res.Err = err.Error()
		report()
	}
	if mode == "checkpoint" {
		setLimit()
		for i := range 40 {
			p := fmt.Sprintf("pkg%d/file%d.go", i%7, i)
			// Long doc comments: a checkpoint writes only the changed
			// files' rows (the docs among them), which must not fit
			// under the limit either.
			var filler strings.Builder
			for j := range 10 {
				fmt.Fprintf(&filler, "// Filler%d_%d %s\nfunc Filler%d_%d() {}\n\n", i, j, strings.Repeat("is a filler line of a changed file, ", 20), i, j)
			}
			if err := x.Update(ctx, p, []byte(fmt.Sprintf("package p\n\n// Changed%d is new.\nfunc Changed%d() {}\n\n%s", i, i, filler.String()))); err != nil {
				res.Err = err.Error()
				report()
			}
		}
		start := time.Now()
		if err := x.Checkpoint(ctx); err != nil {
			res.CheckErr = err.Error()
		}
		res.CheckSecs = time.Since(start).Seconds()
	}
	res.Reason = x.Stats().Reason
	snap, release := x.Snapshot()
	if hits, err := snap.Search(ctx, Query{Identifiers: []string{"Handler100_4"}}, 5); err == nil {
		res.Hits = len(hits)
	}
	release()
	start := time.Now()
	x.Close()
	res.CloseSecs = time.Since(start).Seconds()
	report()
}

// runStorageHelper runs TestStorageHelper in mode with a file size limit
// (and env, more of its environment).
func runStorageHelper(t *testing.T, mode string, limit int, env ...string) storageResult {
	t.Helper()
	root, cache := t.TempDir(), filepath.Join(t.TempDir(), "cache")
	writeTree(t, root, bigFixture())
	cmd := exec.Command(os.Args[0], "-test.run=^TestStorageHelper$")
	cmd.Env = append(os.Environ(), "CTXLS_STORAGE_HELPER="+mode, "CTXLS_HELPER_ROOT="+root,
		"CTXLS_HELPER_CACHE="+cache, "CTXLS_HELPER_FSIZE="+strconv.Itoa(limit))
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill() // a hang
		}
	}()
	line, rerr := bufio.NewReader(out).ReadString('\n')
	werr := cmd.Wait()
	var res storageResult
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("helper %s: %q (%v, %v): did it hang?", mode, line, rerr, werr)
	}
	return res
}

// A disk that fills up during a build (here: writes past a 64 KiB file
// size limit fail) makes the build go on in memory, with one warning;
// before, Open waited for ever while bleve retried at full speed.
func TestDiskFullDuringBuild(t *testing.T) {
	res := runStorageHelper(t, "build", 64<<10)
	if res.Err != "" {
		t.Fatalf("Open: %s", res.Err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "in memory") {
		t.Errorf("warnings %q, want one saying the index is in memory", res.Warnings)
	}
	if !strings.Contains(res.Reason, "in memory") || res.Hits == 0 {
		t.Errorf("reason %q, %d hits: want an in-memory index that finds Handler100_4", res.Reason, res.Hits)
	}
	if res.CloseSecs > promptSecs {
		t.Errorf("Close took %.1f s", res.CloseSecs)
	}
}

// With NoMemoryFallback, a disk that fills up during a build fails the
// build with a *CacheDirError naming the directory, at once, and leaves
// nothing of it in the cache directory.
func TestDiskFullDuringBuildNoFallback(t *testing.T) {
	res := runStorageHelper(t, "build", 64<<10, "CTXLS_HELPER_NOFALLBACK=1")
	if !strings.Contains(res.Err, "cannot write the index of") || !strings.Contains(res.Err, "cache") {
		t.Errorf("Open: %q, want the cache directory cannot be written", res.Err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q, want none", res.Warnings)
	}
	if res.CacheBytes > 4<<10 {
		t.Errorf("%d bytes left in the cache directory: the failed generation was not deleted", res.CacheBytes)
	}
}

// A disk that fills up while an index is served makes the checkpoint fail
// with an error, at once, instead of holding the index's lock for ever;
// the index keeps answering and closes.
func TestDiskFullAtCheckpoint(t *testing.T) {
	res := runStorageHelper(t, "checkpoint", 64<<10)
	if res.Err != "" {
		t.Fatalf("%s", res.Err)
	}
	if !strings.Contains(res.CheckErr, "file too large") {
		t.Errorf("checkpoint error %q, want one saying the disk does not take the index", res.CheckErr)
	}
	if res.CheckSecs > promptSecs || res.CloseSecs > promptSecs {
		t.Errorf("checkpoint %.1f s, close %.1f s: want an error at once", res.CheckSecs, res.CloseSecs)
	}
	if res.Hits == 0 {
		t.Error("the index stopped answering")
	}
}

// promptSecs tells an error returned "at once" from a wait for ever (the
// helper gives up after 60 s): a bound on a hang, not a speed target, with
// room for -race on a loaded machine (a final merge took 5.8 s there once,
// against a 5 s bound).
const promptSecs = 20

// A merge whose segment the disk does not take ends with an error at
// once, naming the cause.
func TestDiskFullAtFinalMerge(t *testing.T) {
	res := runStorageHelper(t, "merge", 64<<10)
	if res.Err != "" {
		t.Fatalf("%s", res.Err)
	}
	if !strings.Contains(res.CheckErr, "file too large") {
		t.Errorf("final merge: %q, want the disk's error", res.CheckErr)
	}
	if res.CheckSecs > promptSecs {
		t.Errorf("final merge took %.1f s: want an error at once", res.CheckSecs)
	}
}

// A lexical segment with a flipped byte fails its checksum at open: the
// index is rebuilt instead of served.
func TestDamagedSegmentIsRebuilt(t *testing.T) {
	opts := testOptions(t)
	root := t.TempDir()
	writeTree(t, root, bigFixture())
	first, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		segs, err := filepath.Glob(filepath.Join(liveGen(t, opts.CacheDir), postingsName, "*.seg"))
		if err != nil || len(segs) == 0 {
			t.Fatalf("no segments: %v", err)
		}
		seg := segs[i%len(segs)]
		b, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		b[(i+1)*len(b)/4] ^= 0x10
		if err := os.WriteFile(seg, b, 0o600); err != nil {
			t.Fatal(err)
		}
		x := mustOpen(t, root, opts)
		st := x.Stats()
		if st.Mode != "build" || !strings.Contains(st.Reason, "checksum") {
			t.Errorf("%s damaged: mode %q reason %q, want a rebuild naming the checksum", filepath.Base(seg), st.Mode, st.Reason)
		}
		if st.StateRoot != first.StateRoot || len(hitPaths(t, x, Query{Identifiers: []string{"Handler100_4"}})) == 0 {
			t.Errorf("%s damaged: rebuilt state %s, or nothing found", filepath.Base(seg), st.StateRoot)
		}
		x.Close()
	}
}

// A truncated segment or manifest (segments are read through mmap: a
// read past the end of a mapped file faults) never ends the process nor
// is served: the index is rebuilt.
func TestTruncatedStoreNeverCrashes(t *testing.T) {
	opts := testOptions(t)
	root := t.TempDir()
	writeTree(t, root, bigFixture())
	first, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	file := func(name string) string {
		if name == "MANIFEST" {
			return filepath.Join(liveGen(t, opts.CacheDir), postingsName, name)
		}
		segs, _ := filepath.Glob(filepath.Join(liveGen(t, opts.CacheDir), postingsName, "*.seg"))
		if len(segs) == 0 {
			t.Fatal("no segments")
		}
		return segs[0]
	}
	for _, name := range []string{"segment", "MANIFEST"} {
		fi, err := os.Stat(file(name))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int64{0, 8, 100, fi.Size() / 2, fi.Size() - 1} {
			if err := os.Truncate(file(name), n); err != nil {
				t.Fatal(err)
			}
			x := mustOpen(t, root, opts)
			st := x.Stats()
			if st.Mode != "build" {
				t.Errorf("%s truncated to %d: mode %q, want a rebuild", name, n, st.Mode)
			}
			if st.StateRoot != first.StateRoot || len(hitPaths(t, x, Query{Identifiers: []string{"Handler100_4"}})) == 0 {
				t.Errorf("%s truncated to %d: state %s (%s %s), or nothing found", name, n, st.StateRoot, st.Mode, st.Reason)
			}
			x.Close()
		}
	}
}

// Verified segments are recorded in the generation and not read again
// while their stat holds; a segment written since (same size, a flipped
// byte) has another change time and is verified again: the open rebuilds.
func TestCheckedSegmentsRecord(t *testing.T) {
	opts := testOptions(t)
	root := t.TempDir()
	writeTree(t, root, bigFixture())
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	mustOpen(t, root, opts).Close()
	gen := liveGen(t, opts.CacheDir)
	segs, err := filepath.Glob(filepath.Join(gen, postingsName, "*.seg"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segments: %v", err)
	}
	rec := readChecked(gen)
	if _, ok := rec[tablesName]; !ok || len(rec) != len(segs)+1 {
		t.Fatalf("%d files recorded as verified (tables file: %v), %d segments and the tables file on disk", len(rec), ok, len(segs))
	}
	for _, s := range segs {
		if st, ok := statSegment(s); !ok || rec[filepath.Base(s)] != st {
			t.Errorf("%s: recorded %+v, on disk %+v", filepath.Base(s), rec[filepath.Base(s)], st)
		}
	}
	if x := mustOpen(t, root, opts); x.Stats().Mode != "open" {
		t.Fatalf("a second open: mode %q (%s)", x.Stats().Mode, x.Stats().Reason)
	} else {
		x.Close()
	}
	b, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(segs[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	x := mustOpen(t, root, opts)
	defer x.Close()
	if st := x.Stats(); st.Mode != "build" || !strings.Contains(st.Reason, "checksum") {
		t.Errorf("a segment damaged after it was recorded: mode %q reason %q, want a rebuild naming the checksum", st.Mode, st.Reason)
	}
	// A damaged record is not trusted.
	if err := os.WriteFile(filepath.Join(liveGen(t, opts.CacheDir), checkedName), []byte(checkedMagic+"garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if readChecked(liveGen(t, opts.CacheDir)) != nil {
		t.Error("a damaged record was read")
	}
}
