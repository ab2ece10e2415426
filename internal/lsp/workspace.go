package lsp

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/ctxls/ctxls/internal/index"
)

// addFolderLocked opens a workspace folder (unless it is open already):
// its index opens in the background, the open documents below it are
// overlaid first, and indexing progress is reported once the client is
// initialized. s.mu is held.
func (s *session) addFolderLocked(wf WorkspaceFolder) {
	root, err := uriToPath(wf.URI)
	if err != nil {
		s.logf("workspace folder %q: %v", wf.URI, err)
		return
	}
	for _, f := range s.folders {
		if f.root == root {
			return
		}
	}
	cfg := folderConfig{
		uri: wf.URI, name: wf.Name, root: root,
		indexOptions: s.indexOptionsFunc(root, s.settings.CacheDir),
		pool:         s.opts.Pool,
		maxHeld:      s.opts.HeldStates,
		logf:         s.logf,
		docText:      s.docText,
		warn: func(msg string) {
			// Once per folder: the index warns once, and a folder
			// listens from its opening to its closing.
			s.showMessage(messageTypeWarning, "ctxls: "+msg)
		},
	}
	f := newFolder(s.ctx, cfg)
	s.folders = append(s.folders, f)
	for p := range s.docs {
		if g, rel, ok := s.folderOfLocked(p); ok && g == f {
			f.queue.push(change{kind: changeDocument, rel: rel})
		}
	}
	s.logf("workspace folder %s: opening its index", root)
	f.open(cfg, s.folderOpened, s.folderBuilt)
	if s.state == stateInitialized && s.clientReady {
		go s.reportIndexing(f)
	}
}

// indexOptionsFunc returns the function that computes the index options
// of a folder root (the caller's, with the cacheDir setting applied); it
// runs on the folder's opening goroutine, since building token counters
// takes a while.
func (s *session) indexOptionsFunc(root, cacheDir string) func() index.Options {
	return func() index.Options {
		var opts index.Options
		if s.opts.IndexOptions != nil {
			opts = s.opts.IndexOptions(root)
		}
		if cacheDir != "" && !opts.InMemory {
			opts.CacheDir = index.CacheDirIn(cacheDir, root)
		}
		return opts
	}
}

// removeFolder closes the folder at root, in the background.
func (s *session) removeFolder(root string) bool {
	s.mu.Lock()
	var f *folder
	for i, g := range s.folders {
		if g.root == root {
			f = g
			s.folders = append(s.folders[:i:i], s.folders[i+1:]...)
			break
		}
	}
	if f == nil {
		s.mu.Unlock()
		return false
	}
	s.bg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.bg.Done()
		if err := f.close(); err != nil {
			s.logf("%v", err)
		}
		s.logf("workspace folder %s: closed", root)
	}()
	return true
}

// folderOpened runs when a folder's index is open (or failed to open).
func (s *session) folderOpened(f *folder) {
	if f.openErr != nil {
		s.logf("%v", f.openErr)
		s.logMessage(messageTypeError, fmt.Sprintf("ctxls: %v", f.openErr))
	}
}

// folderBuilt runs when a folder's first index build has finished.
func (s *session) folderBuilt(f *folder) {
	if f.openErr != nil {
		return
	}
	if f.buildErr != nil {
		if f.ctx.Err() == nil {
			s.logf("index %s: %v", f.root, f.buildErr)
			s.logMessage(messageTypeError, fmt.Sprintf("ctxls: indexing %s failed: %v", f.root, f.buildErr))
		}
		return
	}
	st := f.idx.Stats()
	msg := fmt.Sprintf("ctxls: %s indexed (%s): %d files, %d chunks in %s", f.name, st.Mode, st.Files, st.Chunks,
		time.Since(f.opened).Round(time.Millisecond))
	if st.Reason != "" {
		msg += " — " + st.Reason
	}
	s.logf("%s", msg)
	s.logMessage(messageTypeInfo, msg)
	if st.Mode == "build" {
		// A full build leaves hundreds of MB of garbage behind (parse trees,
		// batches); hand it back to the OS now rather than keep it resident
		// for the life of the session.
		debug.FreeOSMemory()
	}
}
