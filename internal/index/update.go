package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"
)

// ErrClosed is returned by changes made after Close.
var ErrClosed = errors.New("index closed")

// Update re-indexes one file: content is its new content, or nil to read
// it from disk (a missing file is removed). The old chunks of the file are
// replaced in the lexical store and in the tables, and a new snapshot is published
// before Update returns. While an editor overlay is set for the path the
// overlay stays indexed and Update does nothing. Content given here is
// treated as the file's disk content; use SetOverlay for unsaved buffers.
// During a background build the change is queued and applied after it.
func (x *Index) Update(ctx context.Context, path string, content []byte) error {
	p, err := x.relPath(path)
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if content != nil {
		content = slices.Clip(content)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return fmt.Errorf("update %s: %w", p, ErrClosed)
	}
	if x.building {
		x.pending = append(x.pending, pendingOp{path: p, content: content})
		return nil
	}
	if _, ok := x.overlays[p]; ok {
		return nil
	}
	if err := x.changeLocked(ctx, p, content, false); err != nil {
		return fmt.Errorf("update %s: %w", p, err)
	}
	return nil
}

// Remove drops files from the index (those with an editor overlay set
// stay) and publishes one new snapshot for all of them.
func (x *Index) Remove(ctx context.Context, paths ...string) error {
	rel := make([]string, 0, len(paths))
	for _, path := range paths {
		p, err := x.relPath(path)
		if err != nil {
			return fmt.Errorf("remove: %w", err)
		}
		rel = append(rel, p)
	}
	what := strings.Join(rel, ", ")
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return fmt.Errorf("remove %s: %w", what, ErrClosed)
	}
	if x.building {
		for _, p := range rel {
			x.pending = append(x.pending, pendingOp{path: p, remove: true})
		}
		return nil
	}
	rel = slices.DeleteFunc(rel, func(p string) bool { _, ok := x.overlays[p]; return ok })
	if len(rel) == 0 {
		return nil
	}
	if _, _, err := x.applyLocked(ctx, nil, rel); err != nil {
		return fmt.Errorf("remove %s: %w", what, err)
	}
	x.scheduleCheckpointLocked()
	return nil
}

// SetOverlay makes content (an open editor buffer) the indexed content of
// path until ClearOverlay, whatever happens on disk: Search, Chunk, File
// and the symbol table all answer from it. The index keeps its own copy.
func (x *Index) SetOverlay(ctx context.Context, path string, content []byte) error {
	p, err := x.relPath(path)
	if err != nil {
		return fmt.Errorf("set overlay: %w", err)
	}
	c := append(make([]byte, 0, len(content)), content...)
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return fmt.Errorf("set overlay %s: %w", p, ErrClosed)
	}
	x.overlays[p] = c
	if x.building {
		done := x.queueBuildOverlayLocked(p)
		x.mu.Unlock()
		if err := waitOverlay(ctx, done); err != nil {
			return fmt.Errorf("set overlay %s: %w", p, err)
		}
		return nil
	}
	defer x.mu.Unlock()
	if err := x.changeLocked(ctx, p, c, true); err != nil {
		return fmt.Errorf("set overlay %s: %w", p, err)
	}
	return nil
}

// ClearOverlay drops the overlay of path (if any) and re-indexes the file
// from disk, or removes it if it is not on disk.
func (x *Index) ClearOverlay(ctx context.Context, path string) error {
	p, err := x.relPath(path)
	if err != nil {
		return fmt.Errorf("clear overlay: %w", err)
	}
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return fmt.Errorf("clear overlay %s: %w", p, ErrClosed)
	}
	if _, ok := x.overlays[p]; !ok {
		x.mu.Unlock()
		return nil
	}
	delete(x.overlays, p)
	if x.building {
		done := x.queueBuildOverlayLocked(p)
		x.mu.Unlock()
		if err := waitOverlay(ctx, done); err != nil {
			return fmt.Errorf("clear overlay %s: %w", p, err)
		}
		return nil
	}
	defer x.mu.Unlock()
	if err := x.changeLocked(ctx, p, nil, false); err != nil {
		return fmt.Errorf("clear overlay %s: %w", p, err)
	}
	return nil
}

// reapplyBufferLocked indexes p as it now stands for an editor: its
// buffer if one is set, else the disk file.
func (x *Index) reapplyBufferLocked(ctx context.Context, p string) error {
	c, ov := x.overlays[p]
	if !ov {
		c = nil
	}
	if err := x.changeLocked(ctx, p, c, ov); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// Refresh brings the index up to date with the disk: it lists the files,
// re-reads those whose size or modification time differ from the file
// table (re-indexing only those whose content hash changed), drops the
// files that are gone, and checkpoints. Overlays are left alone.
func (x *Index) Refresh(ctx context.Context) (Stats, error) {
	if err := x.Wait(ctx); err != nil {
		return Stats{}, err
	}
	start := time.Now()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return Stats{}, fmt.Errorf("refresh: %w", ErrClosed)
	}
	st, err := x.refreshLocked(ctx)
	if err != nil {
		return st, err
	}
	st.DurationMs = msSince(start)
	x.stats = st
	return st, nil
}

// Checkpoint writes the tables and the completeness marker of the live
// generation if anything changed since the last checkpoint, after making
// sure the lexical store has synced every change. It runs by itself
// Options.CheckpointDelay after the last change, and on Close.
func (x *Index) Checkpoint(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.checkpointLocked(ctx)
}

func (x *Index) checkpointLocked(ctx context.Context) error {
	if err := x.verifyLocked(ctx); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if x.gen == "" || x.private || x.building || (!x.dirty && !x.tablesDirty) {
		return nil
	}
	snap := x.cur.Load()
	if snap == nil {
		return nil
	}
	if x.dirty {
		if err := x.post.Persist(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if err := x.writeStateLocked(x.gen, snap, false); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func (x *Index) scheduleCheckpointLocked() {
	persist := x.gen != "" && !x.private && (x.dirty || x.tablesDirty)
	if x.set.CheckpointDelay < 0 || (!persist && len(x.unverified) == 0) {
		return
	}
	if x.ckTimer == nil {
		x.ckTimer = time.AfterFunc(x.set.CheckpointDelay, func() {
			x.mu.Lock()
			defer x.mu.Unlock()
			if x.closed {
				return
			}
			if err := x.checkpointLocked(context.Background()); err != nil {
				x.set.Logf("index: %v", err)
			}
		})
		return
	}
	x.ckTimer.Reset(x.set.CheckpointDelay)
}

// beginChangeLocked runs before the first change to a live generation's
// lexical store after a checkpoint: it removes the completeness marker,
// so that a crash before the next checkpoint leads to a rebuild rather
// than to tables that disagree with the store.
func (x *Index) beginChangeLocked() error {
	if x.gen != "" && !x.dirty && !x.building {
		if err := removeMarker(x.gen); err != nil {
			return err
		}
	}
	x.dirty = true
	return nil
}

// changeLocked re-indexes path from content (nil: from disk) and
// schedules a checkpoint.
func (x *Index) changeLocked(ctx context.Context, p string, content []byte, overlay bool) error {
	if ff, ok := x.set.Lister.(FileFilter); ok {
		if allowed, reason := ff.Allow(x.env.root, p, content); !allowed {
			x.set.Logf("index: %s not indexed: %s", p, reason)
			_, _, err := x.applyLocked(ctx, nil, []string{p})
			x.scheduleCheckpointLocked()
			return err
		}
	}
	if err := x.changeFileLocked(ctx, p, content, overlay); err != nil {
		return err
	}
	if _, ok := x.set.Lister.(*WalkLister); ok && isIgnoreFile(p) {
		// The rules changed: list again, indexing what they now admit and
		// dropping what they now exclude.
		if _, err := x.refreshLocked(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (x *Index) changeFileLocked(ctx context.Context, p string, content []byte, overlay bool) error {
	job := fileJob{entry: Entry{Path: p}, content: content, overlay: overlay, again: overlay}
	if content == nil {
		var size int64
		var mtime time.Time
		var err error
		if x.env.files != nil {
			size, mtime, err = x.env.files.Stat(p)
		} else {
			var fi os.FileInfo
			if fi, err = os.Stat(filepath.Join(x.env.root, filepath.FromSlash(p))); err == nil {
				if !fi.Mode().IsRegular() {
					return fmt.Errorf("not a regular file")
				}
				size, mtime = fi.Size(), fi.ModTime()
			}
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			_, _, err := x.applyLocked(ctx, nil, []string{p})
			x.scheduleCheckpointLocked()
			return err
		case err != nil:
			return err
		}
		job.entry.Size, job.entry.ModTime = size, mtime
	} else {
		job.entry.Size = int64(len(content))
	}
	if _, _, err := x.applyLocked(ctx, []fileJob{job}, nil); err != nil {
		return err
	}
	x.scheduleCheckpointLocked()
	return nil
}

// applyLocked indexes jobs and removes paths, in one stream of writes
// to the lexical store, then publishes a new snapshot. A job whose content hash equals
// the indexed one only updates the file table's size and time. A job
// that cannot be read removes the file.
func (x *Index) applyLocked(ctx context.Context, jobs []fileJob, removed []string) (changed, dropped int, err error) {
	return x.applyCountLocked(ctx, jobs, removed, nil)
}

// applyCountLocked is applyLocked that also counts, by reason, the jobs
// left out when read (a secret found in the whole text, a read error) into
// skipped, when it is not nil.
func (x *Index) applyCountLocked(ctx context.Context, jobs []fileJob, removed []string, skipped map[string]int) (changed, dropped int, err error) {
	cur := x.cur.Load()
	delta := maps.Clone(cur.delta)
	if delta == nil {
		delta = make(map[string]*fileRec)
	}
	w := x.newBatchWriter(x.post)
	w.before = x.beginChangeLocked
	drop := func(p string) error {
		old := cur.file(p)
		if old == nil {
			return nil
		}
		dropped++
		delta[p] = nil
		return w.remove(old)
	}
	var prog Progress
	prog.FilesTotal = len(jobs)
	for i := range jobs {
		j := &jobs[i]
		prog.BytesTotal += j.entry.Size
		if old := cur.file(j.entry.Path); old != nil {
			j.old = old
			if !old.info.Overlay && !j.overlay {
				j.knownHash = old.info.Hash
			}
		}
	}
	consume := func(r *fileResult) error {
		p := r.job.entry.Path
		prog.FilesDone++
		prog.BytesDone += r.job.entry.Size
		if x.set.Progress != nil && len(jobs) > 1 {
			defer x.set.Progress(prog)
		}
		if r.skip != "" {
			x.set.Logf("index: %s: %s: %v", p, r.skip, r.err)
			if skipped != nil {
				skipped[r.skip]++
			}
			x.noteUnavailableLocked(p, r.skip == skipUnavailable)
			return drop(p)
		}
		x.noteUnavailableLocked(p, false)
		old := cur.file(p)
		if r.same && old != nil && old.info.Hash == r.rec.info.Hash {
			g := *old
			g.info.Size, g.info.ModTime = r.rec.info.Size, r.rec.info.ModTime
			delta[p] = &g
			x.tablesDirty = true
			return nil
		}
		changed++
		prog.Chunks += r.rec.info.Chunks
		if r.rec.again != nil {
			if x.unverified == nil {
				x.unverified = map[string]bool{}
			}
			x.unverified[p] = true
		}
		return w.add(r, old)
	}
	if len(jobs) == 1 {
		ch, cerr := x.writerChunker()
		if cerr != nil {
			return 0, 0, cerr
		}
		r := x.processFile(ch, &jobs[0])
		err = consume(&r)
	} else {
		err = x.runPipeline(ctx, jobs, consume)
	}
	for _, p := range removed {
		if err != nil {
			break
		}
		x.noteUnavailableLocked(p, false)
		err = drop(p)
	}
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		// The store may hold part of the change: publish what was written
		// so that tables and store agree, and leave the rest to a refresh.
		maps.Copy(delta, w.out)
		if perr := x.publishLocked(cur.base, delta, cur.complete); perr != nil {
			err = errors.Join(err, perr)
		}
		return changed, dropped, err
	}
	maps.Copy(delta, w.out)
	if err := x.publishLocked(cur.base, delta, cur.complete); err != nil {
		return changed, dropped, err
	}
	return changed, dropped, nil
}

// noteUnavailableLocked records whether the file p is left out because
// its source cannot be read now (ErrUnavailable): the snapshots published
// from now on count such files (Snapshot.Unavailable) and are not
// complete while there is one.
func (x *Index) noteUnavailableLocked(p string, unavailable bool) {
	if unavailable {
		if x.unavailable == nil {
			x.unavailable = map[string]bool{}
		}
		x.unavailable[p] = true
		return
	}
	delete(x.unavailable, p)
}

// writerChunker returns the writer's own chunker, creating it once.
func (x *Index) writerChunker() (Chunker, error) {
	if x.chunker == nil {
		ch, err := x.set.NewChunker()
		if err != nil {
			return nil, fmt.Errorf("new chunker: %w", err)
		}
		if ac, ok := ch.(againChunker); ok {
			ac.KeepTrees(keptTrees)
		}
		x.chunker = ch
	}
	return x.chunker, nil
}

// keptTrees is how many editor buffers' syntax trees the writer keeps for
// incremental parsing: the files being typed in, a few at a time.
const keptTrees = 4

// verifyLocked compares the chunks of every overlay chunked from an
// incremental parse with those of a fresh parse of the same content. They
// are equal in every test (chunk.TestChunkAgainMatchesFresh), but chunks
// must not depend on the edit history, so this runs before every
// checkpoint (a quiet moment after the last change): a difference is
// logged and the file indexed again from a fresh parse.
func (x *Index) verifyLocked(ctx context.Context) error {
	if len(x.unverified) == 0 {
		return nil
	}
	snap := x.cur.Load()
	var paths []string
	for p := range x.unverified {
		// A later change may have replaced the row (or compaction moved
		// it into the base tables: snap.file finds it there too).
		if rec := snap.file(p); rec != nil && rec.again != nil {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	ch, err := x.set.NewChunker()
	if err != nil {
		return fmt.Errorf("verify: new chunker: %w", err)
	}
	defer ch.Close()
	var redo []fileJob
	for _, p := range paths {
		rec := snap.file(p)
		src := []byte(rec.text)
		fresh, _, err := x.chunkFile(ch, p, src, false)
		if err == nil && reflect.DeepEqual(fresh, rec.again) {
			rec.again = nil
			continue
		}
		x.set.Logf("index: %s: an incremental parse gave other chunks than a fresh one (%v); indexing it again", p, err)
		redo = append(redo, fileJob{entry: Entry{Path: p, Size: int64(len(src))}, content: src, overlay: true})
	}
	if len(redo) > 0 {
		if _, _, err := x.applyLocked(ctx, redo, nil); err != nil {
			return fmt.Errorf("verify: %w", err) // left unverified: tried again at the next checkpoint
		}
	}
	clear(x.unverified)
	return nil
}

// refreshLocked compares a fresh listing with the current snapshot and
// applies the difference, then checkpoints.
func (x *Index) refreshLocked(ctx context.Context) (Stats, error) {
	var entries []Entry
	var skipped []Skipped
	var err error
	switch wl, ok := x.set.Lister.(*WalkLister); {
	case x.prelist != nil:
		// Open started this walk while it decoded the tables.
		res := <-x.prelist
		x.prelistCancel()
		x.prelist, x.prelistCancel = nil, nil
		entries, skipped, err = res.entries, res.skipped, res.err
		x.verdicts = res.verdicts
	case ok:
		// Files held with the same size and mtime passed the content checks
		// when they were indexed: the walk need not read them again.
		snap := x.cur.Load()
		if x.verdicts == nil && x.gen != "" {
			x.verdicts = readVerdicts(x.gen)
		}
		entries, skipped, err = wl.listUnchanged(ctx, x.env.root, func(rel string, size int64, mtime time.Time) bool {
			if snap == nil {
				return false
			}
			fi, ok := snap.Stat(rel)
			return ok && fi.sameOnDisk(size, mtime)
		}, x.verdicts)
	default:
		entries, skipped, err = x.set.Lister.List(ctx, x.env.root)
	}
	if err != nil {
		return Stats{}, fmt.Errorf("refresh: %w", err)
	}
	st := Stats{Mode: "open", Skipped: map[string]int{}, Dir: x.dir}
	for _, s := range skipped {
		st.Skipped[s.Reason]++
	}
	x.keepVerdictsLocked(skipped)
	jobs, removed := x.compareLocked(x.cur.Load(), entries)
	st.Read = len(jobs)
	if len(jobs) > 0 || len(removed) > 0 {
		st.Changed, st.Removed, err = x.applyCountLocked(ctx, jobs, removed, st.Skipped)
		if err != nil {
			return st, fmt.Errorf("refresh: %w", err)
		}
		if st.Changed > 0 || st.Removed > 0 {
			st.Mode = "refresh"
		}
	}
	if err := x.checkpointLocked(ctx); err != nil {
		return st, err
	}
	snap := x.cur.Load()
	st.Files, st.Chunks, st.StateRoot = len(snap.paths), snap.nchunks, snap.StateRoot()
	for _, f := range snap.recsInOrder() {
		st.Bytes += f.info.Size
	}
	return st, nil
}

// compareLocked compares a listing with the snapshot cur: the files to
// read (listed, and new or not as cur has them on disk) and those to
// remove (in cur, not listed), editor buffers left alone. A listing
// sorted by path (the walk's) is paired with cur's sorted paths in one
// pass; any other is looked up path by path.
func (x *Index) compareLocked(cur *Snapshot, entries []Entry) (jobs []fileJob, removed []string) {
	overlay := func(p string) bool {
		_, ok := x.overlays[p]
		return ok
	}
	consider := func(e Entry, old *fileRec) {
		if overlay(e.Path) || (old != nil && old.info.sameOnDisk(e.Size, e.ModTime)) {
			return
		}
		jobs = append(jobs, fileJob{entry: e})
	}
	sorted := true
	for i := 1; i < len(entries) && sorted; i++ {
		sorted = entries[i-1].Path < entries[i].Path
	}
	if !sorted {
		listed := make(map[string]bool, len(entries))
		for _, e := range entries {
			listed[e.Path] = true
			consider(e, cur.file(e.Path))
		}
		for _, p := range cur.paths {
			if !listed[p] && !overlay(p) {
				removed = append(removed, p)
			}
		}
		return jobs, removed
	}
	paths, recs := cur.paths, cur.recsInOrder()
	k := 0
	for _, e := range entries {
		for k < len(paths) && paths[k] < e.Path {
			if !overlay(paths[k]) {
				removed = append(removed, paths[k])
			}
			k++
		}
		var old *fileRec
		if k < len(paths) && paths[k] == e.Path {
			old = recs[k]
			k++
		}
		consider(e, old)
	}
	for ; k < len(paths); k++ {
		if !overlay(paths[k]) {
			removed = append(removed, paths[k])
		}
	}
	return jobs, removed
}

// keepVerdictsLocked records the content verdicts of a listing in the
// live generation when they differ from those it has.
func (x *Index) keepVerdictsLocked(skipped []Skipped) {
	if _, ok := x.set.Lister.(*WalkLister); !ok || x.gen == "" {
		return
	}
	v := verdictsOf(skipped)
	if x.verdicts != nil && v.equal(x.verdicts) {
		return
	}
	if err := writeVerdicts(x.gen, v); err != nil {
		x.set.Logf("index: %v (the next refresh reads those files again)", err)
		return
	}
	x.verdicts = v
}

// applyPendingLocked applies the changes queued during a background
// build, the last one per path winning.
func (x *Index) applyPendingLocked(ctx context.Context) error {
	if len(x.pending) == 0 {
		return nil
	}
	last := make(map[string]pendingOp)
	for _, op := range x.pending {
		last[op.path] = op
	}
	x.pending = nil
	paths := slices.Sorted(maps.Keys(last))
	var errs []error
	for _, p := range paths {
		op := last[p]
		var err error
		switch c, ov := x.overlays[p]; {
		case ov:
			err = x.changeLocked(ctx, p, c, true)
		case op.remove:
			_, _, err = x.applyLocked(ctx, nil, []string{p})
		default:
			err = x.changeLocked(ctx, p, op.content, false)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
		}
	}
	x.scheduleCheckpointLocked()
	return errors.Join(errs...)
}
