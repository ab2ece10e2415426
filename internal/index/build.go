package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/index/analysis"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/index/postings"
	"github.com/ctxls/ctxls/internal/index/walk"
)

// fileJob is one file to (re)index.
type fileJob struct {
	entry   Entry
	content []byte // nil: read root/entry.Path from disk
	overlay bool   // content is an editor buffer
	// knownHash is the content hash already indexed for this path, if
	// any: a file that still has it is not chunked again.
	knownHash string
	// old is the file's row in the snapshot being changed (nil in a full
	// build): chunks whose lexical document it already has get none.
	old *fileRec
	// again: chunk with the chunker's ChunkAgain when it has one (an
	// editor buffer's change).
	again bool
}

// fileResult is a processed fileJob: the file's new table row and the
// lexical documents of its chunks (nil after they are written).
type fileResult struct {
	job *fileJob
	// rec is the file's new row; its chunks are filled in by the writer
	// (batchWriter.add) from chunks, which interns their names.
	rec    *fileRec
	chunks []chunk.Chunk
	docs   []*postings.Doc
	skip   string // non-empty: the file is not indexed, for this reason
	err    error  // detail for skip
	// same: the content hash equals job.knownHash; rec holds only the
	// file info, without chunks.
	same bool
	// copied, when set, are the chunk records of a file of this build
	// with the same content and language (sameContent): rec's chunks are
	// a copy of them, with this path's field lengths.
	copied []chunkRec
	// first is the build's sameContent row of the file's content when
	// the file is the first with it (nil otherwise): the build's
	// consumer settles it.
	first *sameRow
}

// sameContent maps the content of files a full build indexes (hash and
// language) to their rows: a file with the same content at another path
// — a vendored copy, a fork inside a monorepo, the same tree checked out
// twice — takes its chunks and token counts (and its secret verdict) from
// the first instead of being parsed and counted again. Only its lexical
// documents, which contain its path, are made anew. A worker that meets a
// content another worker is still indexing waits for it, so that each
// content is chunked once whatever the timing.
type sameContent struct {
	mu   sync.Mutex
	rows map[string]*sameRow
}

// sameRow is one content's first file: rec once the writer has it (nil
// when that file was left out), done closed then.
type sameRow struct {
	done chan struct{}
	rec  *fileRec
}

// claim returns key's row and whether the caller is the first to claim
// it (it must then settle it).
func (t *sameContent) claim(key string) (*sameRow, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.rows[key]; ok {
		return r, false
	}
	r := &sameRow{done: make(chan struct{})}
	t.rows[key] = r
	return r, true
}

// settle records the first file's row (nil: not indexed) and wakes the
// files waiting for it.
func (r *sameRow) settle(rec *fileRec) {
	r.rec = rec
	close(r.done)
}

// processFile reads, hashes, chunks and counts one file. It uses only the
// given chunker and immutable settings, so workers may run it in parallel.
func (x *Index) processFile(ch Chunker, j *fileJob) fileResult {
	return x.processFileSame(context.Background(), ch, j, nil)
}

// processFileSame is processFile in a full build whose contents seen are
// same (nil: none): a file with the content of one indexed before takes
// its chunks (sameContent). It waits, under ctx, for a first file still
// in progress.
func (x *Index) processFileSame(ctx context.Context, ch Chunker, j *fileJob, same *sameContent) fileResult {
	r := fileResult{job: j}
	src := j.content
	if src == nil {
		b, err := x.env.readFile(j.entry.Path)
		if err != nil {
			r.skip, r.err = "read error", err
			if errors.Is(err, os.ErrNotExist) {
				r.skip = "missing"
			}
			if errors.Is(err, ErrUnavailable) {
				r.skip = skipUnavailable
			}
			return r
		}
		src = b
	}
	info := FileInfo{
		Path:     j.entry.Path,
		Size:     j.entry.Size,
		ModTime:  j.entry.ModTime,
		Hash:     contentHash(src),
		Language: j.entry.Language,
		Overlay:  j.overlay,
	}
	if same != nil && j.content == nil && j.old == nil && !j.again {
		key := info.Hash + "\x00" + chunk.LanguageOf(info.Path)
		row, first := same.claim(key)
		if first {
			r.first = row
		} else {
			select {
			case <-row.done:
			case <-ctx.Done():
				r.skip, r.err = "canceled", ctx.Err()
				return r
			}
			if row.rec != nil {
				x.copyFile(&r, info, row.rec, src)
				return r
			}
		}
	}
	// The walk sniffs only a file's first bytes, and an editor buffer may
	// change after it was judged: the whole text is checked here, where
	// every file and buffer is read before it is chunked, so that a
	// private key or a token anywhere in it keeps the whole file out.
	if what := walk.SecretContent(src); what != "" {
		r.skip, r.err = string(walk.ReasonSecret), errors.New(what)
		return r
	}
	if j.content != nil && !j.overlay {
		// Content given by the caller: the disk file is not known to match,
		// so make the next refresh look at it again.
		info.Size, info.ModTime = int64(len(src)), time.Time{}
	}
	if j.knownHash != "" && j.knownHash == info.Hash {
		r.rec, r.same = &fileRec{info: info}, true
		return r
	}
	chunks, reused, err := x.chunkFile(ch, info.Path, src, j.again)
	if err != nil {
		r.skip, r.err = "chunk error", err
		if errors.Is(err, ErrUnavailable) {
			r.skip = skipUnavailable
		}
		return r
	}
	rec := &fileRec{info: info}
	if j.overlay {
		rec.text = string(src)
	}
	if reused {
		rec.again = chunks
	}
	if rec.info.Language == "" {
		if len(chunks) > 0 {
			rec.info.Language = chunks[0].Language
		} else {
			rec.info.Language = chunk.LanguageOf(info.Path)
		}
	}
	rec.info.Chunks = len(chunks)

	nenc := len(x.set.counters)
	var starts []int
	if nenc > 0 {
		starts = lineStarts(src)
		rec.tokens = make([]int32, len(chunks)*nenc)
	}
	// src as a string for the counters: one copy, not one per chunk (an
	// overlay's row already holds one).
	text := rec.text
	if nenc > 0 && !j.overlay {
		text = string(src)
	}
	var oldRecs []chunkRec
	if j.old != nil {
		oldRecs = j.old.recs()
	}
	prev := x.previousCounts(j.old, len(chunks), nenc)
	// Counts the chunker knows (a store's) are taken as they are.
	var known [][]int32
	if cc, ok := ch.(CountingChunker); ok && nenc > 0 && !reused {
		known = cc.Counts(info.Path, x.set.encodings)
	}
	ac := x.counter()
	defer x.counters.Put(ac)
	r.docs = make([]*postings.Doc, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		if nenc > 0 {
			s, e := lineSpan(starts, len(src), c.StartLine, c.EndLine)
			if !prev.reuse(i, text[s:e], rec.tokens[i*nenc:(i+1)*nenc]) {
				for k, cnt := range x.set.counters {
					if k < len(known) && len(known[k]) == len(chunks) {
						rec.tokens[i*nenc+k] = known[k][i]
						continue
					}
					rec.tokens[i*nenc+k] = int32(cnt.Count(text[s:e]))
				}
			}
		}
		if i < len(oldRecs) && sameChunkDocument(&oldRecs[i], c) {
			continue // the store has it: batchWriter.add keeps it (nil doc)
		}
		r.docs[i] = lexicalDocument(x.doc(), makeChunkID(info.Path, i), info.Path, c.Symbol, c.QualifiedName, c.Doc, src[c.StartByte:c.EndByte], ac)
	}
	r.rec, r.chunks = rec, chunks
	return r
}

// copyFile fills r for the file info whose content src is that of first,
// a row of the same build (sameContent): first's chunks and token counts,
// and lexical documents of this path.
func (x *Index) copyFile(r *fileResult, info FileInfo, first *fileRec, src []byte) {
	recs := first.recs()
	rec := &fileRec{info: info, tokens: first.toks()}
	rec.info.Language = first.info.Language
	rec.info.Chunks = len(recs)
	ac := x.counter()
	defer x.counters.Put(ac)
	r.docs = make([]*postings.Doc, len(recs))
	for i := range recs {
		c := &recs[i]
		r.docs[i] = lexicalDocument(x.doc(), makeChunkID(info.Path, i), info.Path, c.symbol, c.qualifiedName, c.doc, src[c.startByte:c.endByte], ac)
	}
	r.rec, r.copied = rec, recs
}

// doc takes a lexical document to fill from the pool, or a new one.
func (x *Index) doc() *postings.Doc {
	if d, ok := x.docs.Get().(*postings.Doc); ok {
		return d
	}
	return &postings.Doc{}
}

// counter takes an analysis.Counter from the pool (put it back).
func (x *Index) counter() *analysis.Counter {
	if ac, ok := x.counters.Get().(*analysis.Counter); ok {
		return ac
	}
	return new(analysis.Counter)
}

// previousCounts returns what processFile needs to reuse the token counts
// of old, the previous row of an editor buffer (the only files whose
// previous text the index keeps), for a new version with n chunks: an
// edit leaves most chunks' lines as they were, and counting them again is
// most of the token work of a keystroke.
func (x *Index) previousCounts(old *fileRec, n, nenc int) prevCounts {
	if old == nil || old.text == "" || nenc == 0 {
		return prevCounts{}
	}
	recs, toks := old.recs(), old.toks()
	if len(toks) != len(recs)*nenc {
		return prevCounts{}
	}
	return prevCounts{text: old.text, starts: lineStarts([]byte(old.text)), recs: recs, toks: toks, nenc: nenc, shift: len(recs) - n}
}

// prevCounts holds a previous version's chunk lines and token counts.
type prevCounts struct {
	text   string
	starts []int
	recs   []chunkRec
	toks   []int32
	nenc   int
	shift  int // len(recs) minus the new number of chunks
}

// reuse copies into out the counts of a previous chunk whose lines are
// span, trying the chunk at the same ordinal and the one at the same
// distance from the end (chunks added or removed before it), and reports
// whether it found one.
func (p *prevCounts) reuse(i int, span string, out []int32) bool {
	if p.recs == nil {
		return false
	}
	for _, k := range [2]int{i, i + p.shift} {
		if k < 0 || k >= len(p.recs) || (k != i && p.shift == 0) {
			continue
		}
		s, e := lineSpan(p.starts, len(p.text), int(p.recs[k].startLine), int(p.recs[k].endLine))
		if p.text[s:e] == span {
			copy(out, p.toks[k*p.nenc:(k+1)*p.nenc])
			return true
		}
	}
	return false
}

// chunkFile cuts src, the content of path, into checked chunks in line
// order. again asks for ChunkAgain when ch has it; reused reports that
// it parsed incrementally.
func (x *Index) chunkFile(ch Chunker, path string, src []byte, again bool) (chunks []chunk.Chunk, reused bool, err error) {
	if ac, ok := ch.(againChunker); ok && again {
		chunks, reused, err = ac.ChunkAgain(path, src)
	} else {
		chunks, err = ch.Chunk(path, src)
	}
	if err != nil {
		return nil, false, err
	}
	kept := chunks[:0]
	for i := range chunks {
		c := &chunks[i]
		c.Path = path
		if err := checkChunk(c, len(src)); err != nil {
			x.set.Logf("index: %s: dropping chunk: %v", path, err)
			continue
		}
		kept = append(kept, *c)
	}
	sortChunks(kept)
	return kept, reused, nil
}

// runPipeline processes jobs on x.set.Workers goroutines, each with its
// own Chunker, and hands each result to consume on the calling goroutine
// in completion order. It stops at the first error from consume or ctx.
func (x *Index) runPipeline(ctx context.Context, jobs []fileJob, consume func(*fileResult) error) error {
	return x.runPipelineKick(ctx, jobs, pipelineKick{}, consume)
}

// pipelineKick is work the pipeline's consumer runs between two results
// whenever ch signals (a full build applies editor buffers so).
type pipelineKick struct {
	ch <-chan struct{}
	fn func() error
}

// runPipelineKick is runPipeline, except that the consumer also runs
// kick.fn whenever kick.ch signals.
func (x *Index) runPipelineKick(ctx context.Context, jobs []fileJob, kick pipelineKick, consume func(*fileResult) error) error {
	if len(jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := min(x.set.Workers, len(jobs))
	next := make(chan *fileJob)
	results := make(chan fileResult, resultsBuffer)
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch, err := x.set.NewChunker()
			if err != nil {
				errc <- fmt.Errorf("new chunker: %w", err)
				cancel()
				return
			}
			defer ch.Close()
			same := x.same.Load()
			for j := range next {
				r := x.processFileSame(ctx, ch, j, same)
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range jobs {
			select {
			case next <- &jobs[i]:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	var err error
	for done := false; !done; {
		select {
		case r, ok := <-results:
			switch {
			case !ok:
				done = true
			case err != nil: // drain
			default:
				if err = consume(&r); err != nil {
					cancel()
				}
			}
		case <-kick.ch:
			if err == nil {
				if err = kick.fn(); err != nil {
					cancel()
				}
			}
		}
	}
	if err != nil {
		return err
	}
	select {
	case err := <-errc:
		return err
	default:
	}
	return ctx.Err()
}

// batchWriter is the single writer of the lexical store in a build,
// refresh or update: it adds each file's documents to the store (deleting
// the previous ones of its path) and hands the written rows on in
// batches of about BatchSize documents, after which flushed runs.
type batchWriter struct {
	x       *Index
	store   *postings.Store
	size    int
	ops     int // store operations since the last flush
	pending []*fileResult
	out     map[string]*fileRec // files written, by path
	// before runs once, before the first change to the store.
	before func() error
	// flushed runs after each flush.
	flushed func() error
}

func (x *Index) newBatchWriter(store *postings.Store) *batchWriter {
	return &batchWriter{x: x, store: store, size: x.set.BatchSize, out: make(map[string]*fileRec)}
}

// changing runs before once, ahead of the first change to the store.
func (w *batchWriter) changing() error {
	if w.before == nil {
		return nil
	}
	err := w.before()
	w.before = nil
	return err
}

// add writes r's documents, replacing old (the file's previous row, if
// any) in the store.
func (w *batchWriter) add(r *fileResult, old *fileRec) error {
	if r.copied != nil {
		// The copy shares the first file's records (they are never
		// changed in place) unless a field length differs: its path may
		// have more or fewer terms.
		r.rec.chunks = r.copied
		for i, d := range r.docs {
			if d.Len != r.copied[i].flen {
				r.rec.chunks = slices.Clone(r.copied)
				break
			}
		}
		r.copied = nil
	} else {
		nt := w.x.names
		nt.mu.Lock()
		r.rec.info.Language = nt.canonical(r.rec.info.Language)
		r.rec.chunks = make([]chunkRec, len(r.chunks))
		for i := range r.chunks {
			r.rec.chunks[i] = newChunkRec(&r.chunks[i], nt)
		}
		nt.mu.Unlock()
	}
	r.chunks = nil
	if err := w.changing(); err != nil {
		return err
	}
	if old != nil {
		for i := len(r.rec.chunks); i < old.numChunks(); i++ {
			w.store.Delete(string(makeChunkID(old.info.Path, i)))
			w.ops++
		}
	}
	for i, d := range r.docs {
		// A chunk whose document is the old one at the same ordinal (same
		// bytes, names, doc comment, kind and language; processFile left
		// its document nil) is already in the store: an edit inside one
		// function rewrites one document, not the file's hundred.
		if d == nil {
			if old == nil || i >= old.numChunks() {
				return fmt.Errorf("index %s: chunk %d has no document", r.rec.info.Path, i)
			}
			r.rec.chunks[i].flen = old.recs()[i].flen
			continue
		}
		w.x.docsWritten++
		if r.rec.chunks[i].flen != d.Len {
			r.rec.chunks[i].flen = d.Len
		}
		w.store.Add(d)
		w.x.docs.Put(d)
		w.ops++
	}
	r.docs = nil
	w.pending = append(w.pending, r)
	if w.ops >= w.size {
		return w.flush()
	}
	return nil
}

// latest returns the row most recently added for p (flushed or not), or
// nil.
func (w *batchWriter) latest(p string) *fileRec {
	for i := len(w.pending) - 1; i >= 0; i-- {
		if r := w.pending[i]; r.rec.info.Path == p {
			return r.rec
		}
	}
	return w.out[p]
}

// forget drops p from what the writer has written (its documents are
// removed separately).
func (w *batchWriter) forget(p string) {
	delete(w.out, p)
	w.pending = slices.DeleteFunc(w.pending, func(r *fileResult) bool { return r.rec.info.Path == p })
}

// remove deletes old's documents.
func (w *batchWriter) remove(old *fileRec) error {
	if err := w.changing(); err != nil {
		return err
	}
	for i := range old.numChunks() {
		w.store.Delete(string(makeChunkID(old.info.Path, i)))
		w.ops++
	}
	if w.ops >= w.size {
		return w.flush()
	}
	return nil
}

// flush hands the rows written since the last flush on to out and runs
// flushed.
func (w *batchWriter) flush() error {
	if w.ops == 0 && len(w.pending) == 0 {
		return nil
	}
	for _, r := range w.pending {
		w.out[r.rec.info.Path] = r.rec
	}
	clear(w.pending)
	w.pending = w.pending[:0]
	w.ops = 0
	if w.flushed != nil {
		return w.flushed()
	}
	return nil
}

// sameChunkDocument is sameDocument for a chunk record and a new chunk.
func sameChunkDocument(a *chunkRec, c *chunk.Chunk) bool {
	var b chunkRec
	b.symbol, b.qualifiedName, b.doc = c.Symbol, c.QualifiedName, c.Doc
	b.kind, b.language = c.Kind, c.Language
	b.setHashes(c.TrackingHash, c.ContentHash)
	return sameDocument(a, &b)
}

// sameDocument reports whether chunks a and b, at the same ordinal of one
// path, have the same lexical document (lexicalDocument): equal content hashes
// of their bytes, names, doc comments, kinds and languages. Chunks without
// a content hash are never the same.
func sameDocument(a, b *chunkRec) bool {
	if a.symbol != b.symbol || a.qualifiedName != b.qualifiedName || a.doc != b.doc ||
		a.kind != b.kind || a.language != b.language {
		return false
	}
	if a.oddHashes != nil || b.oddHashes != nil {
		return a.oddHashes != nil && b.oddHashes != nil && a.oddHashes[1] != "" && a.oddHashes[1] == b.oddHashes[1]
	}
	return [16]byte(a.hashes[16:]) == [16]byte(b.hashes[16:])
}

// buildBufferChange indexes p as an editor now has it (its buffer, or the
// disk file once the buffer is closed) into a running full build, on the
// build's writer goroutine: it replaces whatever the build wrote for p.
func (x *Index) buildBufferChange(w *batchWriter, p string) error {
	x.mu.Lock()
	content, overlay := x.overlays[p]
	x.mu.Unlock()
	job := fileJob{entry: Entry{Path: p}, content: content, overlay: overlay}
	drop := func() error {
		if old := w.latest(p); old != nil {
			w.forget(p)
			return w.remove(old)
		}
		return nil
	}
	if !overlay {
		size, mtime, err := x.env.stat(p)
		if err != nil {
			return drop()
		}
		job.entry.Size, job.entry.ModTime = size, mtime
	} else {
		job.entry.Size = int64(len(content))
	}
	if ff, ok := x.set.Lister.(FileFilter); ok {
		if allowed, reason := ff.Allow(x.env.root, p, content); !allowed {
			x.set.Logf("index: %s not indexed: %s", p, reason)
			return drop()
		}
	}
	ch, err := x.writerChunker()
	if err != nil {
		return err
	}
	r := x.processFile(ch, &job)
	if r.skip != "" {
		x.set.Logf("index: %s: %s: %v", p, r.skip, r.err)
		return drop()
	}
	return w.add(&r, w.latest(p))
}

// skipUnavailable is the reason of a file left out because its source
// cannot be read now (ErrUnavailable).
const skipUnavailable = "unavailable"

// resultsBuffer is how many processed files the workers may run ahead of
// the writer: while it adds a file's documents to the store, the workers
// keep chunking the next files instead of waiting.
const resultsBuffer = 128
