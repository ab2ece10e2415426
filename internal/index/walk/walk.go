package walk

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
)

const (
	// cancelEvery is how many directory entries are handled between two
	// checks of the context.
	cancelEvery = 256
	// batchSize is how many files are handed to a worker at once.
	batchSize = 64
	// dirBufSize is the size of the buffer a directory is listed into, in
	// as many reads as it takes.
	dirBufSize = 32 << 10
	// minWorkers is the least number of goroutines reading files: more than
	// the cores, so that waiting on a cold disk overlaps.
	minWorkers = 4
)

// Walk lists the files below root that may be indexed, and the paths it
// skipped with their reasons, both sorted by Path. It is NewMatcher followed
// by Matcher.Walk.
func Walk(ctx context.Context, root string, opts Options) (files []File, skipped []Skipped, err error) {
	m, err := NewMatcher(root, opts)
	if err != nil {
		return nil, nil, err
	}
	return m.Walk(ctx)
}

// Walk lists the files below the root that may be indexed, and the paths it
// skipped with their reasons, both sorted by Path (skipped then by Reason).
//
// Directories are listed by one goroutine; files are stat'ed and their first
// 8 KiB read by several.
//
// The error is non-nil only when the root cannot be listed, its ignore files
// cannot be read, or ctx is done; problems below the root are reported as
// Skipped with ReasonUnreadable. A directory reached through a symlink is
// walked once: under its own path when that is walked, otherwise under the
// first symlink met (symlinks met directly in the walk first, in path order,
// then those inside symlinked directories); a file reached through several
// paths is listed once, under its own path when that is listed, otherwise
// under the smallest path.
func (m *Matcher) Walk(ctx context.Context) ([]File, []Skipped, error) {
	stack, err := m.rootStack()
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &walker{
		m:       m,
		ctx:     ctx,
		visited: make(map[string]bool),
		tasks:   make(chan taskBatch, 4),
		dirBuf:  make([]byte, dirBufSize),
	}
	results := make([]workerResult, max(minWorkers, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { w.work(&results[i]) })
	}
	err = w.traverse(stack)
	if err != nil {
		cancel() // let the workers drain
		for _, t := range w.batch {
			t.dir.release()
		}
	}
	close(w.tasks)
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("walk: %w", err)
	}
	// The batches in the order they were queued: the files in the order
	// the directories were walked, which is path order but for those
	// reached through symlinks (see walkDir), so that sorting them
	// (dedupe) finds them sorted.
	for _, b := range w.byBatch {
		w.found = append(w.found, b...)
	}
	for _, r := range results {
		w.skipped = append(w.skipped, r.skipped...)
	}
	files := w.dedupe()
	slices.SortFunc(w.skipped, func(a, b Skipped) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.Detail, b.Detail))
	})
	return files, w.skipped, nil
}

// walker is the state of one Walk. Its fields other than tasks belong to the
// traversing goroutine until the workers are done.
type walker struct {
	m       *Matcher
	ctx     context.Context
	found   []found
	skipped []Skipped
	visited map[string]bool // resolved absolute paths of the directories walked
	pending []dirJob        // symlinked directories, walked after the current pass
	count   int             // entries handled, for cancellation checks
	batch   []fileTask      // files not yet handed to the workers
	nbatch  int             // batches handed to the workers
	tasks   chan taskBatch
	// byBatch holds the files each batch found (its seq's), set by the
	// workers under mu.
	mu      sync.Mutex
	byBatch [][]found
	dirBuf  []byte // readDir's buffer
}

// found is a listed file and, when it was reached through a symlink, the
// resolved path identifying it.
type found struct {
	File
	real string // "" when the path has no symlink
}

// dirJob is a directory to walk.
type dirJob struct {
	rel      string       // relative to the root, "" for the root
	abs      string       // below the root as given
	real     string       // symlinks resolved
	viaLink  bool         // rel has a symlink among its elements
	stack    []*dirIgnore // ignore rules of the ancestors
	included bool         // the directory or an ancestor matches an Include glob (or there are none)
}

// fileTask is a file whose path passed the rules, for a worker to stat and
// sniff.
type fileTask struct {
	rel, name, abs string
	info           fs.FileInfo // the link target's, for symlinks (nil: lstat abs)
	real           string      // resolved path when reached through a symlink
	// dir is the file's directory, open, to stat the file relative to
	// (a reference the task holds until it is handled; nil: stat abs).
	dir *dirHandle
}

// taskBatch is a batch of files for a worker, and its place among the
// batches in the order they were queued.
type taskBatch struct {
	seq   int
	tasks []fileTask
}

// workerResult collects one worker's skipped files.
type workerResult struct {
	skipped []Skipped
}

// work handles file batches until the channel is closed.
func (w *walker) work(r *workerResult) {
	buf := make([]byte, sniffSize)
	for batch := range w.tasks {
		var out []found
		for _, t := range batch.tasks {
			if w.ctx.Err() != nil {
				t.dir.release() // drain: the walk fails
				continue
			}
			info := t.info
			if info == nil {
				var err error
				info, err = t.dir.lstat(t.name, t.abs)
				if err != nil {
					t.dir.release()
					r.skipped = append(r.skipped, Skipped{Path: t.rel, Reason: ReasonUnreadable, Detail: err.Error()})
					continue
				}
			}
			t.dir.release()
			f, s := w.m.checkFile(t.rel, t.name, t.abs, t.real, info, buf)
			if s != nil {
				r.skipped = append(r.skipped, *s)
				continue
			}
			out = append(out, found{File: f, real: t.real})
		}
		w.mu.Lock()
		if n := batch.seq + 1; len(w.byBatch) < n {
			w.byBatch = append(w.byBatch, make([][]found, n-len(w.byBatch))...)
		}
		w.byBatch[batch.seq] = out
		w.mu.Unlock()
	}
}

// traverse walks the root, then the symlinked directories pass by pass.
func (w *walker) traverse(stack []*dirIgnore) error {
	// The stack passed down is that of the root's ancestors; walkDir adds
	// the directory's own rules.
	root := dirJob{abs: w.m.root, real: w.m.realRoot, stack: stack[:len(stack)-1], included: len(w.m.include) == 0}
	if err := w.walkDir(root); err != nil {
		return err
	}
	for len(w.pending) > 0 {
		pass := w.pending
		w.pending = nil
		slices.SortFunc(pass, func(a, b dirJob) int { return cmp.Compare(a.rel, b.rel) })
		for _, j := range pass {
			if err := w.walkDir(j); err != nil {
				return err
			}
		}
	}
	return w.flush()
}

// queue hands a file to the workers, in batches.
func (w *walker) queue(t fileTask) error {
	w.batch = append(w.batch, t)
	if len(w.batch) < batchSize {
		return nil
	}
	return w.flush()
}

func (w *walker) flush() error {
	if len(w.batch) == 0 {
		return nil
	}
	select {
	case w.tasks <- taskBatch{w.nbatch, w.batch}:
		w.nbatch++
		w.batch = make([]fileTask, 0, batchSize)
		return nil
	case <-w.ctx.Done():
		return fmt.Errorf("walk: %w", w.ctx.Err())
	}
}

func (w *walker) skip(rel string, r Reason, detail string) {
	w.skipped = append(w.skipped, Skipped{Path: rel, Reason: r, Detail: detail})
}

// tick counts an entry and checks the context every cancelEvery entries.
func (w *walker) tick() error {
	w.count++
	if w.count%cancelEvery == 0 {
		if err := w.ctx.Err(); err != nil {
			return fmt.Errorf("walk: %w", err)
		}
	}
	return nil
}

// walkDir lists one directory and handles its entries, descending into
// subdirectories, queueing symlinked ones and handing files to the workers.
func (w *walker) walkDir(job dirJob) error {
	if err := w.ctx.Err(); err != nil {
		return fmt.Errorf("walk: %w", err)
	}
	if w.visited[job.real] {
		w.skip(job.rel, ReasonDuplicate, "directory already walked: "+job.real)
		return nil
	}
	w.visited[job.real] = true
	entries, dir, err := openDir(job.abs, w.dirBuf)
	if dir != nil {
		defer dir.release()
	}
	if err != nil {
		if job.rel == "" {
			return fmt.Errorf("walk: listing root: %w", err)
		}
		w.skip(job.rel, ReasonUnreadable, err.Error())
		return nil
	}
	// In path order: a directory's entries sorted as their paths sort,
	// a subdirectory's name as if followed by '/' (its files' paths).
	slices.SortFunc(entries, comparePathOrder)
	var which ignoreFiles
	for _, e := range entries {
		switch e.name {
		case gitignoreName:
			which |= hasGitignore
		case ignoreName:
			which |= hasIgnore
		case ctxlsignoreName:
			which |= hasCtxlsignore
		case ".git":
			which |= hasGit
		}
	}
	rules, err := w.m.dirRules(job.rel, job.abs, which)
	if err != nil {
		if job.rel == "" {
			return err
		}
		w.skip(job.rel, ReasonUnreadable, err.Error())
		return nil
	}
	stack := append(job.stack[:len(job.stack):len(job.stack)], rules)
	sep := string(filepath.Separator)
	for _, e := range entries {
		if err := w.tick(); err != nil {
			return err
		}
		name := e.name
		rel, abs := name, job.abs+sep+name
		if job.rel != "" {
			rel = job.rel + "/" + name
		}
		typ := e.typ
		t := target{isDir: typ.IsDir()}
		if typ&fs.ModeSymlink != 0 {
			t = w.m.resolveLink(abs, job.real)
		}
		reason, detail, included := w.m.checkEntry(stack, rel, name, t.isDir, job.included)
		if reason == "" {
			reason, detail = t.reason, t.detail
		}
		if reason != "" {
			w.skip(rel, reason, detail)
			continue
		}
		real := t.real // set for symlinks
		if real == "" && (t.isDir || job.viaLink) {
			real = joinReal(job.real, name)
		}
		switch {
		case t.isDir:
			child := dirJob{rel: rel, abs: abs, real: real, viaLink: job.viaLink || t.link, stack: stack, included: included}
			if t.link {
				w.pending = append(w.pending, child)
			} else if err := w.walkDir(child); err != nil {
				return err
			}
		case t.link || typ.IsRegular():
			task := fileTask{rel: rel, name: name, abs: abs, info: t.info}
			if job.viaLink || t.link {
				task.real = real
			}
			if t.info == nil && dir != nil {
				dir.acquire()
				task.dir = dir
			}
			if err := w.queue(task); err != nil {
				return err
			}
		default:
			w.skip(rel, ReasonSpecial, typ.String())
		}
	}
	return nil
}

// comparePathOrder orders directory entries as the paths below them sort:
// by name, a directory's followed by '/' ("a.go" < "a/" < "a_b.go").
func comparePathOrder(a, b dirEntry) int {
	an, bn := len(a.name), len(b.name)
	for i := 0; ; i++ {
		ca, cb := pathByte(a, i, an), pathByte(b, i, bn)
		if ca != cb || ca < 0 {
			return cmp.Compare(ca, cb)
		}
	}
}

// pathByte is the i-th byte of e's name, then '/' for a directory, then
// -1.
func pathByte(e dirEntry, i, n int) int {
	switch {
	case i < n:
		return int(e.name[i])
	case i == n && e.typ.IsDir():
		return '/'
	}
	return -1
}

// dirEntry is one entry of a directory listing: its name and its type
// bits (fs.FileMode.Type).
type dirEntry struct {
	name string
	typ  fs.FileMode
}

// dedupe drops the files reached twice (through symlinks), keeping the
// path without symlinks, or else the smallest path, and returns the files
// sorted by path.
func (w *walker) dedupe() []File {
	linked := slices.ContainsFunc(w.found, func(f found) bool { return f.real != "" })
	if linked {
		// Paths without symlinks first, then by path.
		slices.SortFunc(w.found, func(a, b found) int {
			return cmp.Or(cmp.Compare(linkRank(a), linkRank(b)), cmp.Compare(a.Path, b.Path))
		})
	}
	files := make([]File, 0, len(w.found))
	var first map[string]string // resolved path -> listed path
	if linked {
		first = make(map[string]string, len(w.found))
	}
	for _, f := range w.found {
		if linked {
			key := f.real
			if key == "" {
				key = filepath.Join(w.m.realRoot, filepath.FromSlash(f.Path))
			}
			if p, ok := first[key]; ok {
				w.skip(f.Path, ReasonDuplicate, "same file as "+p)
				continue
			}
			first[key] = f.Path
		}
		files = append(files, f.File)
	}
	slices.SortFunc(files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	return files
}

// linkRank orders files without symlinks in their path first.
func linkRank(f found) int {
	if f.real != "" {
		return 1
	}
	return 0
}
