package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/workspace"
)

// addFolderLocked opens a workspace folder (unless it is open already):
// its index opens in the background, the open documents below it are
// overlaid first, and indexing progress is reported once the client is
// initialized. s.mu is held.
func (s *session) addFolderLocked(wf WorkspaceFolder) {
	if s.opts.Repos != nil {
		// A server of a store: the folder names a repository.
		if _, err := s.storeFolderLocked(wf.Name, wf.URI); err != nil {
			s.logf("workspace folder %q: %v", wf.Name, err)
			s.logMessage(messageTypeWarning, fmt.Sprintf("ctxls: workspace folder %q: %v", wf.Name, err))
		}
		return
	}
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

// storeFolderLocked returns the session's folder of a store's repository
// (or union key, "\x00a\x00b": several read as one tree), opening it
// on first use; uri is what part URIs start with (the client's folder, or
// ctxls-store:REPO). The session's grant must cover it: another
// repository is answered as one that does not exist. s.mu is held.
func (s *session) storeFolderLocked(name, uri string) (*folder, error) {
	if s.opts.Repos == nil {
		return nil, errors.New("this server reads directories, not an index store's repositories")
	}
	names := []string{name}
	if rest, ok := strings.CutPrefix(name, "\x00"); ok {
		names = strings.Split(rest, "\x00")
	}
	for _, n := range names {
		if err := pgstore.CheckRepoName(n); err != nil {
			return nil, err
		}
		if s.grant != nil && !s.grant.Allows(n) {
			return nil, fmt.Errorf("%w: %s", pgstore.ErrNoRepo, n)
		}
	}
	if i := slices.IndexFunc(s.folders, func(f *folder) bool { return f.repo == name }); i >= 0 {
		f := s.folders[i]
		if !f.failedToOpen() {
			return f, nil
		}
		// It could not be checked out (the store was down): try again
		// now rather than answer that error for ever.
		s.folders = append(s.folders[:i:i], s.folders[i+1:]...) // a copy: requests hold the old list
		go f.close()
	}
	display := strings.Join(names, " + ")
	if uri == "" {
		uri = "ctxls-store:" + strings.Join(names, "+")
	}
	repos := s.opts.Repos
	cfg := folderConfig{
		uri: uri, name: display, root: filepath.Join(string(filepath.Separator), "nonexistent", "ctxls-store", strings.Join(names, "+")),
		maxHeld: s.opts.HeldStates, logf: s.logf, docText: s.docText,
		acquire: func(ctx context.Context) (*workspace.Root, error) {
			var r *workspace.Root
			var err error
			if len(names) > 1 {
				r, err = repos.Union(ctx, names)
			} else {
				r, err = repos.Root(ctx, names[0])
			}
			if err != nil && !errors.Is(err, pgstore.ErrNoRepo) && !errors.Is(err, pgstore.ErrDamaged) && ctx.Err() == nil {
				err = fmt.Errorf("the index store cannot be read now (try again shortly): %w", err)
			}
			return r, err
		},
	}
	f := newFolder(s.ctx, cfg)
	f.repo = name
	s.folders = append(s.folders, f)
	s.logf("repository %s: opening its index", display)
	f.open(cfg, s.folderOpened, s.folderBuilt)
	if s.state == stateInitialized && s.clientReady {
		go s.reportIndexing(f)
	}
	return f, nil
}

// repoFolder is storeFolderLocked for a request's repo (or repos) param.
func (s *session) repoFolder(repo *string, repos []string) (*folder, error) {
	if s.opts.Repos == nil {
		return nil, paramError("repo", "this server reads directories, not an index store's repositories")
	}
	field := "repo"
	name := ""
	switch {
	case repo != nil && len(repos) > 0:
		return nil, paramError("repos", "give repo or repos, not both")
	case repo != nil:
		name = *repo
	default:
		field = "repos"
		list := slices.Clone(repos)
		if slices.Contains(list, pgstore.AllRepos) {
			// Every repository the session may read.
			s.mu.Lock()
			g := s.grant
			s.mu.Unlock()
			infos, err := s.opts.Repos.Store().Repos(s.ctx, g)
			if err != nil {
				return nil, fmt.Errorf("the index store cannot be read now: %w", err)
			}
			list = slices.DeleteFunc(list, func(r string) bool { return r == pgstore.AllRepos })
			for _, r := range infos {
				list = append(list, r.Name)
			}
		}
		slices.Sort(list)
		list = slices.Compact(list)
		if len(list) == 0 {
			return nil, paramError("repos", "no repository to read")
		}
		if len(list) == 1 {
			name = list[0]
		} else {
			name = "\x00" + strings.Join(list, "\x00")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.storeFolderLocked(name, "")
	if err != nil {
		return nil, paramError(field, "%v", err)
	}
	return f, nil
}
