package walk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Matcher holds the rules of one root: options, globs and ignore files. It
// decides single paths exactly as Walk does, so that a file opened or edited
// in the editor is filtered like the walk filtered it.
//
// Ignore files are read once per directory, the first time a path below that
// directory is checked, and cached; build a new Matcher when an ignore file
// changes. A Matcher is safe for concurrent use.
type Matcher struct {
	root     string // absolute, cleaned; as given (symlinks not resolved)
	realRoot string // root with symlinks resolved
	// realSlash is realRoot as a slash path: the parent of the root's
	// entries for the name rules that look at a file's directory
	// (.aws/credentials), so that they see the real parent of an entry
	// directly in the root.
	realSlash string
	top       string // the enclosing git work tree, or root when there is none
	prefix    string // the root relative to the top, "" when they are the same
	maxSize   int64  // < 0: no limit
	include   []string
	exclude   []string
	noFollow  bool
	// unchanged skips the content checks of files already judged (see
	// Options.Unchanged).
	unchanged func(rel string, size int64, mtime time.Time) bool
	// skippedBefore gives the verdicts of files left out for their
	// content (see Options.SkippedBefore).
	skippedBefore func(rel string, size int64, mtime time.Time) (Reason, string, bool)

	// readHead reads the start of a file for the content checks; tests
	// replace it to observe which files are opened.
	readHead func(name string, buf []byte) (int, error)

	// above is the ignore rules of the top and its descendants down to the
	// root's parent; above[0] also carries the default and info/exclude layers.
	above []*dirIgnore

	mu   sync.Mutex
	dirs map[string]*dirIgnore // by directory relative to the root; nil value: no ignore files
}

// NewMatcher validates opts, resolves root and reads the ignore rules that
// apply to the whole root: the built-in defaults, .git/info/exclude and the
// ignore files of the directories between the enclosing git work tree (if
// the root is inside one) and the root. A root that is or lies in a VCS or
// secret directory is refused with a *RootError (see CheckRoot).
func NewMatcher(root string, opts Options) (*Matcher, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("walk: root %q: %w", root, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("walk: root: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("walk: root %s is not a directory", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("walk: root: resolving symlinks: %w", err)
	}
	if err := CheckRoot(root); err != nil {
		return nil, err
	}
	for _, g := range append(append([]string(nil), opts.Include...), opts.Exclude...) {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("walk: invalid glob %q", g)
		}
	}
	m := &Matcher{
		root:          abs,
		realRoot:      real,
		realSlash:     filepath.ToSlash(real),
		maxSize:       opts.MaxFileSize,
		include:       append([]string(nil), opts.Include...),
		exclude:       append([]string(nil), opts.Exclude...),
		noFollow:      opts.NoFollowSymlinks,
		unchanged:     opts.Unchanged,
		skippedBefore: opts.SkippedBefore,
		readHead:      readFileHead,
		dirs:          make(map[string]*dirIgnore),
	}
	if m.maxSize == 0 {
		m.maxSize = DefaultMaxFileSize
	}
	if err := m.loadAbove(); err != nil {
		return nil, err
	}
	return m, nil
}

// Root returns the absolute root directory (symlinks not resolved).
func (m *Matcher) Root() string { return m.root }

// loadAbove finds the enclosing git work tree and reads the rules that live
// at or above the root.
func (m *Matcher) loadAbove() error {
	m.top = findTop(m.root)
	rel, err := filepath.Rel(m.top, m.root)
	if err != nil {
		return fmt.Errorf("walk: root relative to %s: %w", m.top, err)
	}
	if rel = filepath.ToSlash(rel); rel != "." {
		m.prefix = rel
	}
	first := &dirIgnore{}
	first.files[layerDefault] = parseIgnoreFile("", "built-in default", []byte(defaultIgnore))
	f, err := m.readInfoExclude(m.top, "")
	if err != nil {
		return err
	}
	first.files[layerExclude] = f
	if m.prefix == "" {
		m.above = []*dirIgnore{first} // merged into the root's rules by dirRules
		return nil
	}
	// The directories from the top down to the root's parent.
	elems := strings.Split(m.prefix, "/")
	for k := range elems {
		base := strings.Join(elems[:k], "/")
		dir := filepath.Join(m.top, filepath.FromSlash(base))
		d, err := readDirIgnore(dir, base, filepath.ToSlash(dir)+"/", allIgnoreFiles)
		if err != nil {
			return err
		}
		if k == 0 {
			d = mergeDirIgnore(first, d)
		}
		m.above = append(m.above, d)
	}
	return nil
}

// mergeDirIgnore returns a with the non-nil layers of b added.
func mergeDirIgnore(a, b *dirIgnore) *dirIgnore {
	if b == nil {
		return a
	}
	out := *a
	for l, f := range b.files {
		if f != nil {
			out.files[l] = f
		}
	}
	return &out
}

// findTop returns the nearest directory at or above dir that contains a
// .git entry, or dir itself when there is none.
func findTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// readInfoExclude reads <gitdir>/info/exclude of the repository whose work
// tree is dir (relative base from the top), following a .git file
// ("gitdir: …", worktrees and submodules) and its commondir. It returns nil
// when dir has no repository or no exclude file.
func (m *Matcher) readInfoExclude(dir, base string) (*ignoreFile, error) {
	gitPath := filepath.Join(dir, ".git")
	info, err := os.Stat(gitPath)
	if err != nil {
		return nil, nil // no repository here; a broken .git is not our concern
	}
	gitDir := gitPath
	if !info.IsDir() {
		b, err := os.ReadFile(gitPath)
		if err != nil {
			return nil, nil
		}
		s, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return nil, nil
		}
		gitDir = strings.TrimSpace(s)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(dir, gitDir)
		}
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		gitDir = common
	}
	name := filepath.Join(gitDir, "info", "exclude")
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("walk: reading %s: %w", name, err)
	}
	return parseIgnoreFile(base, m.displayName(base, ".git/info/exclude"), data), nil
}

// displayName names a file of the directory base (relative to the top) for
// Skipped.Detail: relative to the root when inside it, absolute otherwise.
func (m *Matcher) displayName(base, file string) string {
	rel := path.Join(base, file)
	if m.prefix == "" {
		return rel
	}
	if r, ok := strings.CutPrefix(rel, m.prefix+"/"); ok {
		return r
	}
	return filepath.ToSlash(filepath.Join(m.top, filepath.FromSlash(rel)))
}

// ignoreFiles says which ignore files a directory holds, as found in its
// listing; allIgnoreFiles means "unknown, try them all".
type ignoreFiles uint8

const (
	hasGitignore ignoreFiles = 1 << iota
	hasIgnore
	hasCtxlsignore
	hasGit
	allIgnoreFiles = hasGitignore | hasIgnore | hasCtxlsignore | hasGit
)

// readDirIgnore reads the ignore files of the directory dir whose slash
// path relative to the top is base; namePrefix is prepended to file names
// for messages. It returns nil when there are none.
func readDirIgnore(dir, base, namePrefix string, which ignoreFiles) (*dirIgnore, error) {
	var d dirIgnore
	found := false
	for _, f := range [...]struct {
		flag  ignoreFiles
		name  string
		layer layer
	}{
		{hasGitignore, gitignoreName, layerGitignore},
		{hasIgnore, ignoreName, layerIgnore},
		{hasCtxlsignore, ctxlsignoreName, layerCtxlsignore},
	} {
		if which&f.flag == 0 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || isDirError(err) {
				continue
			}
			return nil, fmt.Errorf("walk: reading ignore file: %w", err)
		}
		d.files[f.layer] = parseIgnoreFile(base, namePrefix+f.name, data)
		found = true
	}
	if !found {
		return nil, nil
	}
	return &d, nil
}

// isDirError reports whether err comes from reading a directory as a file.
func isDirError(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if info, serr := os.Stat(pe.Path); serr == nil && info.IsDir() {
			return true
		}
	}
	return false
}

// dirRules returns the ignore rules of the directory rel (relative to the
// root; abs is its path), reading them on first use. which narrows the files
// to read when the caller has listed the directory.
func (m *Matcher) dirRules(rel, abs string, which ignoreFiles) (*dirIgnore, error) {
	m.mu.Lock()
	d, ok := m.dirs[rel]
	m.mu.Unlock()
	if ok {
		return d, nil
	}
	base, namePrefix := m.topRel(rel), ""
	if rel != "" {
		namePrefix = rel + "/"
	}
	d, err := readDirIgnore(abs, base, namePrefix, which&^hasGit)
	if err != nil {
		return nil, err
	}
	// A nested repository (or the root itself when it is the top, already
	// handled in loadAbove) contributes its info/exclude.
	if which&hasGit != 0 && base != "" {
		f, err := m.readInfoExclude(abs, base)
		if err != nil {
			return nil, err
		}
		if f != nil {
			if d == nil {
				d = &dirIgnore{}
			}
			d.files[layerExclude] = f
		}
	}
	if rel == "" && m.prefix == "" {
		// The root is the top: merge with the defaults and info/exclude.
		d = mergeDirIgnore(m.above[0], d)
	}
	m.mu.Lock()
	if prev, ok := m.dirs[rel]; ok {
		d = prev // another goroutine was first; keep one copy
	} else {
		m.dirs[rel] = d
	}
	m.mu.Unlock()
	return d, nil
}

// rootStack returns the ignore stack for entries directly in the root.
func (m *Matcher) rootStack() ([]*dirIgnore, error) {
	d, err := m.dirRules("", m.root, allIgnoreFiles)
	if err != nil {
		return nil, err
	}
	if m.prefix == "" {
		return []*dirIgnore{d}, nil
	}
	return append(m.above[:len(m.above):len(m.above)], d), nil
}

// topRel converts a path relative to the root into one relative to the top.
func (m *Matcher) topRel(rel string) string {
	switch {
	case m.prefix == "":
		return rel
	case rel == "":
		return m.prefix
	}
	return m.prefix + "/" + rel
}

// checkEntry applies the rules that depend only on the path: VCS
// directories, ignore files and the Include/Exclude globs. stack is the
// ignore rules of the entry's ancestors; parentIncluded says whether an
// ancestor directory matched an Include glob. It returns the reason ("" to
// keep) and, for directories, whether the entry itself matched an Include
// glob.
func (m *Matcher) checkEntry(stack []*dirIgnore, rel, name string, isDir, parentIncluded bool) (reason Reason, detail string, included bool) {
	if isVCSDir(name) {
		return ReasonVCS, "", false
	}
	if isDir && secretDir(m.parentPath(rel), name) {
		return ReasonSecret, "credentials directory", false
	}
	if d := evalIgnore(stack, m.topRel(rel), isDir); d.ignored() {
		return ReasonIgnored, d.detail(), false
	}
	for _, g := range m.exclude {
		if doublestar.MatchUnvalidated(g, rel) {
			return ReasonExcluded, "exclude glob " + g, false
		}
	}
	included = parentIncluded || len(m.include) == 0
	for i := 0; !included && i < len(m.include); i++ {
		included = doublestar.MatchUnvalidated(m.include[i], rel)
	}
	if !included && !isDir {
		return ReasonExcluded, "no include glob matches", false
	}
	return "", "", included
}

// parentPath returns the slash path of the directory holding rel (a path
// relative to the root): the resolved root's path joined with rel's
// directory, so that rules looking at a file's parent see it also for the
// root's own entries.
func (m *Matcher) parentPath(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return strings.TrimSuffix(m.realSlash, "/") + "/" + rel[:i]
	}
	return m.realSlash
}

// checkName applies the checks that need a file's name only; they come
// before opening the file, so that credential files are never read.
// parent is the slash path of the file's directory (see parentPath).
func checkName(parent, name string) (Reason, string) {
	if secretName(parent, name) {
		return ReasonSecret, "credential file name"
	}
	if generatedName(name) {
		return ReasonGenerated, "lockfile or bundle name"
	}
	return "", ""
}

// checkSize applies MaxFileSize.
func (m *Matcher) checkSize(size int64) (Reason, string) {
	if m.maxSize >= 0 && size > m.maxSize {
		return ReasonTooLarge, fmt.Sprintf("%d bytes > %d", size, m.maxSize)
	}
	return "", ""
}

// cleanRel validates a path relative to the root and returns it in clean
// slash form; ok is false for the root itself and for paths leaving it.
func cleanRel(relPath string) (string, bool) {
	rel := path.Clean(filepath.ToSlash(relPath))
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) || filepath.IsAbs(relPath) {
		return "", false
	}
	return rel, true
}

// ancestors checks the directories above rel (relative to the root) like the
// walk checks them on the way down, and returns the ignore stack for rel's
// entries and whether an ancestor matched an Include glob. A non-empty
// reason means an ancestor was skipped.
func (m *Matcher) ancestors(rel string) (stack []*dirIgnore, included bool, s *Skipped, err error) {
	stack, err = m.rootStack()
	if err != nil {
		return nil, false, nil, err
	}
	included = len(m.include) == 0
	for dir := nextDir(rel, ""); dir != ""; dir = nextDir(rel, dir) {
		name := dir[strings.LastIndexByte(dir, '/')+1:]
		reason, detail, inc := m.checkEntry(stack, dir, name, true, included)
		if reason != "" {
			return nil, false, &Skipped{Path: dir, Reason: reason, Detail: detail}, nil
		}
		included = inc
		d, err := m.dirRules(dir, filepath.Join(m.root, filepath.FromSlash(dir)), allIgnoreFiles)
		if err != nil {
			return nil, false, nil, err
		}
		stack = append(stack, d)
	}
	return stack, included, nil, nil
}

// nextDir returns the ancestor directory of rel one level below dir ("" for
// the root), or "" when dir is rel's parent.
func nextDir(rel, dir string) string {
	start := 0
	if dir != "" {
		start = len(dir) + 1
	}
	i := strings.IndexByte(rel[start:], '/')
	if i < 0 {
		return ""
	}
	return rel[:start+i]
}

// Allowed reports whether a file with this path (slash-separated, relative
// to the root) and content would be indexed, applying the same rules as Walk
// in the same order, except the symlink checks, which need the file system
// (see CheckFile). content is the whole file, for example an unsaved editor
// buffer; its length is the size checked against MaxFileSize. Allowed may
// read the ignore files of the path's ancestor directories the first time
// they are needed. When a directory above the file is skipped, the reason is
// that directory's.
func (m *Matcher) Allowed(relPath string, content []byte) (bool, Reason) {
	rel, ok := cleanRel(relPath)
	if !ok {
		return false, ReasonOutsideRoot
	}
	stack, included, s, err := m.ancestors(rel)
	if err != nil {
		return false, ReasonUnreadable
	}
	if s != nil {
		return false, s.Reason
	}
	name := path.Base(rel)
	if r, _, _ := m.checkEntry(stack, rel, name, false, included); r != "" {
		return false, r
	}
	if r, _ := checkName(m.parentPath(rel), name); r != "" {
		return false, r
	}
	if r, _ := m.checkSize(int64(len(content))); r != "" {
		return false, r
	}
	// The whole buffer, not only the head the walk reads.
	if SecretContent(content) != "" {
		return false, ReasonSecret
	}
	if r, _ := classifyContent(name, content); r != "" {
		return false, r
	}
	return true, ""
}

// DirAllowed reports whether Walk would enter the directory relPath (slash
// path relative to the root), judging by its path only: VCS directories,
// ignore files and Exclude globs, for it and its ancestors. File watchers
// can use it to decide which directories to watch.
func (m *Matcher) DirAllowed(relPath string) (bool, Reason) {
	rel, ok := cleanRel(relPath)
	if !ok {
		if path.Clean(filepath.ToSlash(relPath)) == "." {
			return true, ""
		}
		return false, ReasonOutsideRoot
	}
	stack, included, s, err := m.ancestors(rel)
	if err != nil {
		return false, ReasonUnreadable
	}
	if s != nil {
		return false, s.Reason
	}
	if r, _, _ := m.checkEntry(stack, rel, path.Base(rel), true, included); r != "" {
		return false, r
	}
	return true, ""
}

// CheckFile applies all of Walk's rules to one file on disk, including the
// symlink checks on the file and its ancestor directories, and returns the
// File when it may be indexed or the Skipped record when not. The error is
// for a file that does not exist (it wraps fs.ErrNotExist), a directory, and
// failures to read ignore files; unreadable files are reported as Skipped
// with ReasonUnreadable. Duplicates (the same file reached through
// several paths) are a property of a whole walk and are not detected here.
func (m *Matcher) CheckFile(relPath string) (File, *Skipped, error) {
	f, _, s, err := m.checkPath(relPath)
	return f, s, err
}

// checkPath is CheckFile; it also returns the stat result the file was
// judged by (of the link's target for a symlink).
func (m *Matcher) checkPath(relPath string) (File, fs.FileInfo, *Skipped, error) {
	rel, ok := cleanRel(relPath)
	if !ok {
		return File{}, nil, &Skipped{Path: filepath.ToSlash(relPath), Reason: ReasonOutsideRoot}, nil
	}
	stack, included, s, err := m.ancestors(rel)
	if err != nil || s != nil {
		return File{}, nil, s, err
	}
	// Symlinks among the ancestors, as the walk would have met them.
	realDir, dir, t := m.resolveDirs(rel)
	switch {
	case dir == "":
	case t.err != nil:
		return File{}, nil, &Skipped{Path: dir, Reason: ReasonUnreadable, Detail: t.err.Error()}, nil
	case t.reason != "":
		return File{}, nil, &Skipped{Path: dir, Reason: t.reason, Detail: t.detail}, nil
	default:
		return File{}, nil, &Skipped{Path: dir, Reason: ReasonUnreadable, Detail: "not a directory"}, nil
	}
	name := path.Base(rel)
	abs := filepath.Join(m.root, filepath.FromSlash(rel))
	t = m.resolve(abs, realDir)
	if errors.Is(t.err, fs.ErrNotExist) {
		return File{}, nil, nil, fmt.Errorf("walk: %w", t.err)
	} else if t.err != nil {
		return File{}, nil, &Skipped{Path: rel, Reason: ReasonUnreadable, Detail: t.err.Error()}, nil
	}
	if r, detail, _ := m.checkEntry(stack, rel, name, t.isDir, included); r != "" {
		return File{}, nil, &Skipped{Path: rel, Reason: r, Detail: detail}, nil
	}
	if t.reason != "" {
		return File{}, nil, &Skipped{Path: rel, Reason: t.reason, Detail: t.detail}, nil
	}
	if t.isDir {
		return File{}, nil, nil, fmt.Errorf("walk: %s is a directory", rel)
	}
	f, skipped := m.checkFile(rel, name, abs, t.real, t.info, make([]byte, sniffSize))
	return f, t.info, skipped, nil
}

// resolveDirs follows the ancestor directories of rel (a clean slash path)
// from the root, as the walk would meet them, and returns the resolved
// path of rel's parent; or, at the first ancestor that cannot be followed
// (missing, unreadable, a symlink the walk refuses, not a directory), that
// ancestor as dir and what resolving it gave.
func (m *Matcher) resolveDirs(rel string) (realDir, dir string, t target) {
	realDir = m.realRoot
	for dir := nextDir(rel, ""); dir != ""; dir = nextDir(rel, dir) {
		t := m.resolve(filepath.Join(m.root, filepath.FromSlash(dir)), realDir)
		if t.err != nil || t.reason != "" || !t.isDir {
			return "", dir, t
		}
		realDir = t.real
	}
	return realDir, "", target{}
}

// target is the outcome of resolving a path that may be a symlink.
type target struct {
	info   fs.FileInfo // of the path, or of the link's target; nil when unknown
	real   string      // resolved absolute path; "" for a symlink not followed
	isDir  bool
	link   bool   // the path itself is a symlink
	reason Reason // symlink problem: not followed, outside the root, loop, broken
	detail string
	err    error // lstat failed
}

// resolve examines abs, an entry of the directory whose resolved path is
// realDir, and follows it when it is a symlink.
func (m *Matcher) resolve(abs, realDir string) target {
	info, err := os.Lstat(abs)
	if err != nil {
		return target{err: err}
	}
	if info.Mode()&fs.ModeSymlink == 0 {
		return target{info: info, real: joinReal(realDir, filepath.Base(abs)), isDir: info.IsDir()}
	}
	return m.resolveLink(abs, realDir)
}

// resolveLink follows the symlink abs found in the directory realDir.
func (m *Matcher) resolveLink(abs, realDir string) target {
	t := target{link: true}
	if m.noFollow {
		t.reason = ReasonSymlink
		return t
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		t.reason, t.detail = ReasonBrokenSymlink, err.Error()
		return t
	}
	t.real = real
	if !within(m.realRoot, real) {
		t.reason, t.detail = ReasonSymlinkOutside, "-> "+real
		return t
	}
	info, err := os.Stat(real)
	if err != nil {
		t.reason, t.detail = ReasonBrokenSymlink, err.Error()
		return t
	}
	t.info, t.isDir = info, info.IsDir()
	switch {
	case t.isDir && within(real, realDir):
		t.reason, t.detail = ReasonSymlinkLoop, "-> "+real
	default:
		if r := m.forbiddenDir(real); r != "" {
			t.reason, t.detail = r, "-> "+real
		}
	}
	return t
}

// realRel returns the slash path relative to the resolved root of real, a
// resolved path within it.
func (m *Matcher) realRel(real string) string {
	if len(real) <= len(m.realRoot) {
		return ""
	}
	return filepath.ToSlash(strings.TrimLeft(real[len(m.realRoot):], string(filepath.Separator)))
}

// forbiddenDir returns ReasonVCS or ReasonSecret when the resolved path
// real, within the root, is or lies in a VCS metadata directory or a
// secret directory, which a symlink must not lead into; else "".
func (m *Matcher) forbiddenDir(real string) Reason {
	rel := m.realRel(real)
	if rel == "" {
		return ""
	}
	for dir := rel; ; {
		if name := lastElem(dir); isVCSDir(name) {
			return ReasonVCS
		} else if secretDir(m.parentPath(dir), name) {
			return ReasonSecret
		}
		if !strings.Contains(dir, "/") {
			return ""
		}
		dir = parentOf(dir)
	}
}

// within reports whether p is dir or below it (both clean absolute paths).
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	if !strings.HasPrefix(p, dir) {
		return false
	}
	return os.IsPathSeparator(dir[len(dir)-1]) || os.IsPathSeparator(p[len(dir)])
}

// joinReal appends name to the resolved directory dir.
func joinReal(dir, name string) string {
	if len(dir) > 0 && os.IsPathSeparator(dir[len(dir)-1]) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// checkFile applies the name, size and content rules to the file abs whose
// stat result (following symlinks) is info. real is the file's resolved path
// when abs has symlinks (else ""): the file's own name must pass the name
// rules too, so that a link cannot smuggle a credential file in under an
// innocent name. The file is opened only when its names and size pass; buf
// must have room for sniffSize bytes.
func (m *Matcher) checkFile(rel, name, abs, real string, info fs.FileInfo, buf []byte) (File, *Skipped) {
	if r, detail := checkName(m.parentPath(rel), name); r != "" {
		return File{}, &Skipped{Path: rel, Reason: r, Detail: detail}
	}
	if real != "" {
		if r, detail := checkName(m.parentPath(m.realRel(real)), filepath.Base(real)); r != "" {
			return File{}, &Skipped{Path: rel, Reason: r, Detail: detail + " (-> " + real + ")"}
		}
	}
	if !info.Mode().IsRegular() {
		return File{}, &Skipped{Path: rel, Reason: ReasonSpecial, Detail: info.Mode().Type().String()}
	}
	if r, detail := m.checkSize(info.Size()); r != "" {
		return File{}, &Skipped{Path: rel, Reason: r, Detail: detail}
	}
	if m.unchanged != nil && m.unchanged(rel, info.Size(), info.ModTime()) {
		return File{Path: rel, Abs: abs, Size: info.Size(), ModTime: info.ModTime()}, nil
	}
	if m.skippedBefore != nil {
		if r, detail, ok := m.skippedBefore(rel, info.Size(), info.ModTime()); ok {
			return File{}, &Skipped{Path: rel, Reason: r, Detail: detail, Size: info.Size(), ModTime: info.ModTime()}
		}
	}
	n := 0
	if info.Size() > 0 {
		var err error
		n, err = m.readHead(abs, buf[:min(int64(len(buf)), info.Size())])
		if err != nil {
			return File{}, &Skipped{Path: rel, Reason: ReasonUnreadable, Detail: err.Error()}
		}
	}
	if r, detail := classifyContent(name, buf[:n]); r != "" {
		return File{}, &Skipped{Path: rel, Reason: r, Detail: detail, Size: info.Size(), ModTime: info.ModTime()}
	}
	return File{Path: rel, Abs: abs, Size: info.Size(), ModTime: info.ModTime()}, nil
}
