package walk

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
)

// ReadFile applies all of Walk's rules to one file on disk, as CheckFile
// does, and reads the file they admit. It is for a caller that takes
// single files from a tree it does not trust — a pull request's checkout
// laid over the index of its base — so that it reads what an index of that
// tree would read and nothing else: a symlink out of the root (to
// /proc/self/environ, a credential file, /dev/zero) or into .git, a secret
// by name, an ignored file or one over MaxFileSize is refused before it is
// opened, exactly as the walk refuses it.
//
// The bytes come from the file that was judged: it is opened and checked
// to be that same regular file (a path swapped since for a FIFO, a device
// or another file is not read), at most MaxFileSize bytes are read (a file
// grown past it since its stat is ReasonTooLarge), and the text read is
// judged again as a whole: the content checks the walk applies to a file's
// first bytes (binary, generated, secret), and SecretContent on all of it,
// as the indexer applies it. Otherwise the results are CheckFile's: a
// Skipped record for a refused file, and an error for a path that does not
// exist (wrapping fs.ErrNotExist), a directory, or ignore files that
// cannot be read.
func (m *Matcher) ReadFile(relPath string) (File, []byte, *Skipped, error) {
	f, info, s, err := m.checkPath(relPath)
	if err != nil || s != nil {
		return File{}, nil, s, err
	}
	b, s := m.readJudged(f, info)
	if s != nil {
		return File{}, nil, s, nil
	}
	f.Size = int64(len(b))
	return f, b, nil, nil
}

// readJudged reads the file f that checkPath admitted by its stat result
// info, and judges the text read (see ReadFile).
func (m *Matcher) readJudged(f File, info fs.FileInfo) ([]byte, *Skipped) {
	skip := func(r Reason, detail string) *Skipped { return &Skipped{Path: f.Path, Reason: r, Detail: detail} }
	h, err := openRead(f.Abs)
	if err != nil {
		return nil, skip(ReasonUnreadable, err.Error())
	}
	defer h.Close()
	now, err := h.Stat()
	switch {
	case err != nil:
		return nil, skip(ReasonUnreadable, err.Error())
	case !now.Mode().IsRegular():
		return nil, skip(ReasonSpecial, now.Mode().Type().String())
	case !os.SameFile(info, now):
		return nil, skip(ReasonUnreadable, "replaced since it was checked")
	}
	var r io.Reader = h
	if m.maxSize >= 0 {
		r = io.LimitReader(h, m.maxSize+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, skip(ReasonUnreadable, err.Error())
	}
	if m.maxSize >= 0 && int64(len(b)) > m.maxSize {
		return nil, skip(ReasonTooLarge, fmt.Sprintf("more than %d bytes", m.maxSize))
	}
	if r, detail := classifyContent(path.Base(f.Path), b); r != "" {
		return nil, skip(r, detail)
	}
	if what := SecretContent(b); what != "" {
		return nil, skip(ReasonSecret, what)
	}
	return b, nil
}
