package secretfile

import (
	"fmt"
	"io"
	"io/fs"
	"runtime"
)

// Refusal is a file Read refuses: not a regular file, another user's,
// readable or writable by others, or too large.
type Refusal struct {
	File   string
	Reason string
}

func (r *Refusal) Error() string { return r.File + ": " + r.Reason }

// Read returns the content of file after checking that it is a regular
// file, owned by the user this process runs as, that no other user may
// read or write (none of the mode bits 0077), and of at most maxSize
// bytes. A refusal is a *Refusal; an error opening or reading the file is
// returned as the os package gives it (an *fs.PathError).
func Read(file string, maxSize int) ([]byte, error) {
	f, err := open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Refusal{file, fmt.Sprintf("not a regular file (%s)", kind(st.Mode()))}
	}
	if err := checkOwner(st); err != nil {
		return nil, &Refusal{file, err.Error()}
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, &Refusal{file, fmt.Sprintf("other users may read or change it (mode %04o); run chmod 600 %s", perm, file)}
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(maxSize)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSize {
		return nil, &Refusal{file, fmt.Sprintf("larger than %d bytes", maxSize)}
	}
	return data, nil
}

// kind names a file's type for a refusal.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a plain file"
}
