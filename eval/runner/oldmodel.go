package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/tokens"
)

// OldModelStats describe, for one of Config.ModelAges, the trees answered
// with a model trained that many commits before their commit.
type OldModelStats struct {
	// Reused counts the trees whose cached model was kept (only the files
	// changed since embedded with it), Retrained those that had drifted
	// past the retrain thresholds and got a model trained on themselves.
	Reused, Retrained int
	// PastFiles and PastTerms count the trees past each threshold:
	// Options.RetrainFiles of the files, Options.RetrainDrift of the term
	// occurrences unknown to the model (a tree may be past both).
	PastFiles, PastTerms int
	// Commits counts the older commits a model was trained on (one per
	// distinct commit: trees of the same commit share it).
	Commits int
	// Train is the time spent building the older commits' trees, indexing
	// them and training their models; Load the time the trees' loads took
	// (semantic.Load: the sync, or the training again).
	Train, Load time.Duration
}

// oldModel is a tree's vector store made from a model trained at an older
// commit.
type oldModel struct {
	store     *semantic.Store
	age       int  // commits back (first parent) of the model's commit
	retrained bool // the load trained a model on the tree instead
}

// models holds, for a run, the vector caches made at older commits: one
// file per repository and commit, copied for each tree that loads it.
type models struct {
	dir   string
	files map[string]string // repo + " " + commit → the cache file made there
	seq   int
}

func newModels(work string) (*models, error) {
	dir, err := os.MkdirTemp(work, ".models-")
	if err != nil {
		return nil, fmt.Errorf("model caches: %w", err)
	}
	return &models{dir: dir, files: map[string]string{}}, nil
}

func (m *models) close() { os.RemoveAll(m.dir) }

// trained returns the cache file of the vector store made at commit rev of
// repo, as `ctxls index` there leaves it in the index directory
// (semantic.Load without a cache: a model trained on the commit's tree,
// written to the cache); made once per run.
func (m *models) trained(ctx context.Context, cfg *Config, t *tree, rev string) (string, error) {
	key := t.repo + " " + rev
	if p, ok := m.files[key]; ok {
		return p, nil
	}
	dir, err := commitTreeDir(ctx, cfg.Work, t.git, t.repo, rev)
	if err != nil {
		return "", err
	}
	if !cfg.KeepTrees {
		defer os.RemoveAll(dir)
	}
	x, err := index.Open(ctx, dir, index.Options{InMemory: true, Counters: map[string]tokens.Counter{cfg.Encoding: t.counter}})
	if err != nil {
		return "", err
	}
	defer x.Close()
	if err := x.Wait(ctx); err != nil {
		return "", err
	}
	snap, release := x.Snapshot()
	defer release()
	m.seq++
	p := filepath.Join(m.dir, fmt.Sprintf("commit-%d", m.seq), semantic.CacheFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	var warned error
	warnf := func(format string, args ...any) { warned = fmt.Errorf(format, args...) }
	if _, _, err := semantic.Load(ctx, snap, p, cfg.SemanticOptions, false, warnf); err != nil {
		return "", err
	}
	if warned != nil {
		return "", fmt.Errorf("the vector cache of %s: %w", rev, warned)
	}
	m.files[key] = p
	return p, nil
}

// openOldModel gives t the vectors of its snapshot as a CLI call computes
// them when the index cache was made n commits (first parent) before the
// tree's commit: the cache file made there, loaded by semantic.Load for
// the tree's snapshot (the CLI's loadSemantic), which syncs it with the
// model it holds — only the files changed since embedded — unless the
// tree has drifted past Options.RetrainDrift or RetrainFiles from it, when
// it trains a model on the tree.
func (t *tree) openOldModel(ctx context.Context, n int) error {
	out, err := t.git.Output(ctx, "rev-list", "--first-parent", fmt.Sprintf("--max-count=%d", n+1), t.rev)
	if err != nil {
		return err
	}
	revs := strings.Fields(string(out))
	if len(revs) == 0 {
		return fmt.Errorf("no commit %s", t.rev)
	}
	rev, age := revs[len(revs)-1], len(revs)-1
	st := t.stats.oldModel(n)
	t0 := time.Now()
	had := len(t.models.files)
	made, err := t.models.trained(ctx, t.cfg, t, rev)
	if err != nil {
		return fmt.Errorf("at %s: %w", short(rev), err)
	}
	st.Commits += len(t.models.files) - had
	st.Train += time.Since(t0)

	t1 := time.Now()
	t.models.seq++
	cache := filepath.Join(t.models.dir, fmt.Sprintf("tree-%d", t.models.seq), semantic.CacheFile)
	if err := copyFile(made, cache); err != nil {
		return err
	}
	t.caches = append(t.caches, filepath.Dir(cache))
	var warned error
	warnf := func(format string, args ...any) { warned = fmt.Errorf(format, args...) }
	s, ss, err := semantic.Load(ctx, t.snap, cache, t.cfg.SemanticOptions, false, warnf)
	if err != nil {
		return err
	}
	if warned != nil {
		return warned
	}
	st.Load += time.Since(t1)
	if ss.Trained {
		st.Retrained++
	} else {
		st.Reused++
	}
	t.old[n] = &oldModel{store: s, age: age, retrained: ss.Trained}
	if ss.FileDrift > t.cfg.SemanticOptions.RetrainFiles {
		st.PastFiles++
	}
	if ss.Drift > t.cfg.SemanticOptions.RetrainDrift {
		st.PastTerms++
	}
	if t.cfg.Log != nil {
		what := "reused"
		if ss.Trained {
			what = "trained again"
		}
		fmt.Fprintf(t.cfg.Log, "  model %d commits back (%s): drift %+.4f in terms, %.3f in files: %s\n", age, short(rev), ss.Drift, ss.FileDrift, what)
	}
	return nil
}

// oldModel returns the statistics of the models n commits old, made on
// first use.
func (st *Stats) oldModel(n int) *OldModelStats {
	if st.OldModels == nil {
		st.OldModels = map[int]*OldModelStats{}
	}
	if st.OldModels[n] == nil {
		st.OldModels[n] = &OldModelStats{}
	}
	return st.OldModels[n]
}

// copyFile copies the file src to dst, making dst's directory.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return errors.Join(fmt.Errorf("copy %s: %w", src, err), os.Remove(dst))
	}
	return out.Close()
}
