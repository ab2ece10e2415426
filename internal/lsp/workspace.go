package lsp

import (
	"cmp"
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
		var err error
		if strings.Contains(wf.Name, "\x00") {
			err = errors.New("a workspace folder names one repository")
		} else {
			_, err = s.storeFolderLocked(wf.Name, wf.URI, false)
		}
		if err != nil {
			msg := fmt.Sprintf("workspace folder %q was not opened: %v", wf.Name, err)
			s.noteFolderLocked(msg)
			s.logf("%s", msg)
			s.logMessage(messageTypeWarning, "ctxls: "+msg)
		}
		return
	}
	root, err := uriToPath(wf.URI)
	if err != nil {
		msg := fmt.Sprintf("workspace folder %q was not opened: %v", wf.URI, err)
		s.noteFolderLocked(msg)
		s.logf("%s", msg)
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

// maxFolderNotes bounds the reasons kept for folders that were not opened.
const maxFolderNotes = 4

// noteFolderLocked records why a workspace folder was not opened, for a
// request that finds no folder (errNoFolder). s.mu is held.
func (s *session) noteFolderLocked(msg string) {
	if len(s.folderNotes) >= maxFolderNotes {
		s.folderNotes = slices.Delete(slices.Clone(s.folderNotes), 0, 1)
	}
	s.folderNotes = append(s.folderNotes, msg)
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

// maxRequestUnions is how many unions of repositories a session keeps
// open for its requests' repos: past it, the least recently used is
// closed (its held states with it), so that a session asking every
// combination of its repositories holds a few (workspace.Repos bounds the
// process's).
const maxRequestUnions = 4

// storeFolderLocked returns the session's folder of a store's repository
// (or union key, "\x00a\x00b": several read as one tree), opening it
// on first use; uri is what part URIs start with (the client's folder,
// else ctxls-store:REPO, or for a union ctxls-store: and the path, which
// starts with the repository's name). byRequest: opened for a request's
// repo or repos (a union of those is closed when the session has
// maxRequestUnions newer ones). The session's grant must cover it:
// another repository is answered as one that does not exist. s.mu is
// held.
func (s *session) storeFolderLocked(name, uri string, byRequest bool) (*folder, error) {
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
	s.unionTick++
	if i := slices.IndexFunc(s.folders, func(f *folder) bool { return f.repo == name }); i >= 0 {
		f := s.folders[i]
		if !f.failedToOpen() {
			f.used = s.unionTick
			return f, nil
		}
		// It could not be checked out (the store was down): try again
		// now rather than answer that error for ever.
		s.folders = append(s.folders[:i:i], s.folders[i+1:]...) // a copy: requests hold the old list
		go f.close()
	}
	display := strings.Join(names, " + ")
	switch {
	case uri != "":
	case len(names) > 1:
		uri = storeScheme
	default:
		uri = storeScheme + names[0]
	}
	if byRequest && len(names) > 1 {
		s.closeRequestUnionsLocked(maxRequestUnions - 1)
	}
	repos := s.opts.Repos
	cfg := folderConfig{
		uri: uri, name: display, root: filepath.Join(string(filepath.Separator), "nonexistent", "ctxls-store", strings.Join(names, "+")),
		maxHeld: s.opts.HeldStates, logf: s.logf, docText: s.docText,
		acquire: func(ctx context.Context) (*workspace.Root, func(), error) {
			var r *workspace.Root
			var release func()
			var err error
			if len(names) > 1 {
				r, release, err = repos.Union(ctx, names)
			} else {
				r, release, err = repos.Root(ctx, names[0])
			}
			switch {
			case err == nil, errors.Is(err, pgstore.ErrNoRepo), ctx.Err() != nil:
			case errors.Is(err, pgstore.ErrUnreachable): // says so, naming the store
			case errors.Is(err, pgstore.ErrUnusable):
				err = fmt.Errorf("the index store's content for this repository cannot be used: %w", err)
			default:
				err = fmt.Errorf("the index store cannot be read now (try again shortly): %w", err)
			}
			return r, release, err
		},
	}
	f := newFolder(s.ctx, cfg)
	f.repo, f.repos, f.byRequest, f.used = name, names, byRequest, s.unionTick
	s.folders = append(s.folders, f)
	s.logf("repository %s: opening its index", display)
	f.open(cfg, s.folderOpened, s.folderBuilt)
	if s.state == stateInitialized && s.clientReady {
		go s.reportIndexing(f)
	}
	return f, nil
}

// closeRequestUnionsLocked closes the least recently used unions opened
// for requests until at most keep are open. s.mu is held.
func (s *session) closeRequestUnionsLocked(keep int) {
	for {
		var unions []*folder
		for _, f := range s.folders {
			if f.byRequest && len(f.repos) > 1 {
				unions = append(unions, f)
			}
		}
		if len(unions) <= keep {
			return
		}
		old := slices.MinFunc(unions, func(a, b *folder) int { return cmp.Compare(a.used, b.used) })
		s.folders = slices.DeleteFunc(slices.Clone(s.folders), func(f *folder) bool { return f == old }) // a copy: requests hold the old list
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			if err := old.close(); err != nil {
				s.logf("%v", err)
			}
			s.logf("repository %s: closed (the session's least recently used union)", old.name)
		}()
	}
}

// storeDown is the error of a request that needed the store's list of
// repositories when the store could not be read.
func storeDown(err error) error {
	if errors.Is(err, pgstore.ErrUnreachable) {
		return err // says so, naming the store
	}
	return fmt.Errorf("the index store cannot be read now: %w", err)
}

// readableRepos lists the repositories the session may read.
func (s *session) readableRepos(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	g := s.grant
	s.mu.Unlock()
	infos, err := s.opts.Repos.Store().Repos(ctx, g)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(infos))
	for i, r := range infos {
		out[i] = r.Name
	}
	return out, nil
}

// repoFolder is storeFolderLocked for a request's repo (or repos) param;
// the request pins the folder.
func (s *session) repoFolder(ctx *requestCtx, repo *string, repos []string) (*folder, error) {
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
		var storeErr error
		list, err := pgstore.ResolveRepos(repos, func() ([]string, error) {
			// Every repository the session may read.
			names, err := s.readableRepos(ctx)
			storeErr = err
			return names, err
		})
		if storeErr != nil {
			return nil, storeDown(storeErr)
		}
		if err != nil {
			return nil, paramError("repos", "%v", err)
		}
		if len(list) == 1 {
			name = list[0]
		} else {
			name = "\x00" + strings.Join(list, "\x00")
		}
	}
	return s.holdStoreFolder(ctx, name, field)
}

// storeFolderOfURI returns the folder of the store's file at uri
// (ctxls-store:REPO/PATH): a folder of the request's that holds it, else
// the folder of the repository REPO names (the longest that the session
// may read), opened for the request. field names the param in errors.
func (s *session) storeFolderOfURI(ctx *requestCtx, uri, field string) (*folder, error) {
	if f := storeFolderIn(ctx.folders, uri); f != nil {
		return f, nil
	}
	s.mu.Lock()
	g := s.grant
	s.mu.Unlock()
	rest := strings.TrimPrefix(uri, storeScheme)
	var candidates []string // longest first
	for i := len(rest) - 1; i > 0; i-- {
		if rest[i] == '/' && pgstore.CheckRepoName(rest[:i]) == nil && (g == nil || g.Allows(rest[:i])) {
			candidates = append(candidates, rest[:i])
		}
	}
	name := ""
	if len(candidates) > 0 {
		readable, err := s.readableRepos(ctx)
		if err != nil {
			return nil, storeDown(err)
		}
		for _, c := range candidates {
			if slices.Contains(readable, c) {
				name = c
				break
			}
		}
	}
	if name == "" {
		return nil, paramError(field, "%s is in no repository this session may read (%sREPO/PATH)", uri, storeScheme)
	}
	return s.holdStoreFolder(ctx, name, field)
}

// holdStoreFolder opens (or finds) the folder of the store's repository
// or union name for the request, which holds it until it ends; field
// names the param in errors.
func (s *session) holdStoreFolder(ctx *requestCtx, name, field string) (*folder, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.storeFolderLocked(name, "", true)
	if err != nil {
		return nil, paramError(field, "%v", err)
	}
	ctx.hold(f)
	return f, nil
}

// storeFolderIn returns the store's folder among folders that holds the
// file at uri (by its URI, or its ctxls-store: URI), or nil.
func storeFolderIn(folders []*folder, uri string) *folder {
	for _, f := range folders {
		if f.repo != "" {
			if _, ok := f.relOf(uri); ok {
				return f
			}
		}
	}
	return nil
}
