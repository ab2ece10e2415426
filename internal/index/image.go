package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// An image is the files of an index's live generation, as another
// machine takes them: a store's replica starts from its publisher's index
// instead of building one (ImportImage), then refreshes what changed
// since. The files are the generation's schema, completeness marker,
// tables and lexical store; the advisory files (SKIPPED, CHECKED) stay
// behind.

// ImageFiles returns the live generation's files, by slash path relative
// to the generation (postings/… for the lexical store's), after a
// checkpoint that writes the tables file whole: what ImportImage takes. An index without a cache directory
// has none (nil).
func (x *Index) ImageFiles(ctx context.Context) (map[string]string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.checkpointLocked(ctx); err != nil {
		return nil, err
	}
	if x.gen == "" || x.private {
		return nil, nil
	}
	// An image is the tables file alone: a delta written beside it by a
	// checkpoint is folded in first.
	if snap := x.cur.Load(); x.diskDelta && snap != nil {
		if err := x.writeStateLocked(x.gen, snap, true); err != nil {
			return nil, fmt.Errorf("image: %w", err)
		}
	}
	out := map[string]string{}
	for _, name := range []string{schemaName, completeName, tablesName} {
		out[name] = filepath.Join(x.gen, name)
	}
	ents, err := os.ReadDir(filepath.Join(x.gen, postingsName))
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".tmp") {
			out[postingsName+"/"+e.Name()] = filepath.Join(x.gen, postingsName, e.Name())
		}
	}
	if _, err := os.Stat(out[completeName]); err != nil {
		return nil, fmt.Errorf("image: the generation has no completeness marker after a checkpoint: %w", err)
	}
	return out, nil
}

// ImportImage makes files (ImageFiles's, read) the live generation of the
// index directory dir, for an index of root opened with opts: its
// completeness marker is rewritten for root and opts's configuration, so
// that Open serves it and refreshes only what differs from what opts's
// Lister lists. dir must have no live generation.
func ImportImage(dir, root string, opts Options, files map[string][]byte) error {
	set, err := opts.settings()
	if err != nil {
		return fmt.Errorf("import index image: %w", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("import index image: %w", err)
	}
	if err := prepareCacheDir(dir); err != nil {
		return fmt.Errorf("import index image: %w", err)
	}
	lock, err := lockDir(context.Background(), dir, 10*time.Second)
	if err != nil {
		return fmt.Errorf("import index image: %w", err)
	}
	defer lock.release()
	if cur, err := readCurrent(dir); err != nil || cur != "" {
		return errors.New("import index image: the directory has an index already")
	}
	var m marker
	if b, ok := files[completeName]; !ok || json.Unmarshal(b, &m) != nil {
		return errors.New("import index image: no completeness marker")
	}
	m.Root, m.ConfigKey = filepath.Clean(abs), set.ConfigKey
	gen, err := newGeneration(dir)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		os.RemoveAll(gen)
		return fmt.Errorf("import index image: %w", err)
	}
	if err := os.Mkdir(filepath.Join(gen, postingsName), 0o700); err != nil {
		return fail(err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		switch {
		case name == completeName || name == schemaName:
			continue
		case name == tablesName, strings.HasPrefix(name, postingsName+"/") && path.Base(name) == name[len(postingsName)+1:] &&
			path.Base(name) != "." && path.Base(name) != "..":
		default:
			return fail(fmt.Errorf("unexpected file %q", name))
		}
		if err := os.WriteFile(filepath.Join(gen, filepath.FromSlash(name)), files[name], 0o600); err != nil {
			return fail(err)
		}
	}
	if err := writeMarker(gen, m); err != nil {
		return fail(err)
	}
	return switchCurrent(dir, gen)
}
