package semantic

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/history/historytest"
	"github.com/ctxls/ctxls/internal/index"
)

// topics makes a corpus of four topics, each written with its own
// identifiers and comment words, several files per topic.
func topics() map[string]string {
	files := map[string]string{}
	topic := func(dir string, comment, idents []string, n int) {
		for i := range n {
			var b strings.Builder
			fmt.Fprintf(&b, "package %s\n\n", dir)
			for j := range 3 {
				c1, c2 := comment[(i+j)%len(comment)], comment[(i+j+1)%len(comment)]
				id1, id2 := idents[(i+j)%len(idents)], idents[(i+2*j+1)%len(idents)]
				fmt.Fprintf(&b, "// %s%d handles the %s and the %s.\nfunc %s%d(%s int) int {\n\treturn %s + %s\n}\n\n",
					id1, j, c1, c2, id1, i*10+j, id2, id2, id1)
			}
			files[fmt.Sprintf("%s/f%d.go", dir, i)] = b.String()
		}
	}
	topic("cache", []string{"eviction", "capacity", "stale entries", "memory pressure"}, []string{"lruList", "evictOldest", "capacityLimit", "entryAge"}, 8)
	topic("web", []string{"request headers", "response status", "routing", "cookies"}, []string{"httpHeader", "statusCode", "routeTable", "cookieJar"}, 8)
	topic("parse", []string{"grammar", "tokens", "syntax tree", "precedence"}, []string{"tokenStream", "astNode", "parseExpr", "precedenceLevel"}, 8)
	topic("geo", []string{"latitude", "distance", "projection", "coordinates"}, []string{"latLng", "haversineDist", "mercatorProj", "coordPair"}, 8)
	// Code about the cache, without any of the cache comments' words.
	files["cache/target.go"] = "package cache\n\nfunc trimList(lruList []int, capacityLimit int) []int {\n\tfor len(lruList) > capacityLimit {\n\t\tlruList = evictOldest(lruList)\n\t}\n\treturn lruList\n}\n"
	return files
}

// indexFiles writes files under a new root and opens an in-memory index.
func indexFiles(t testing.TB, files map[string]string) (*index.Index, string) {
	t.Helper()
	root := historytest.Write(t, files)
	x, err := index.Open(context.Background(), root, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, root
}

// write writes a file of the root and updates the index.
func write(t testing.TB, x *index.Index, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.Update(context.Background(), name, nil); err != nil {
		t.Fatal(err)
	}
}

func snapshot(t testing.TB, x *index.Index) *index.Snapshot {
	snap, release := x.Snapshot()
	t.Cleanup(release)
	return snap
}

func testOptions() Options {
	o := DefaultOptions()
	o.Dim = 8
	return o
}

// TestBridgesVocabulary: a question in the comments' words finds the code
// that has none of them, through the identifiers those comments sit with.
func TestBridgesVocabulary(t *testing.T) {
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	s, st, err := Build(context.Background(), snap, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Trained || st.Embedded != len(snap.Paths()) {
		t.Fatalf("stats %+v, want a trained model and every file embedded", st)
	}
	hits := s.Search(snap, s.Query("eviction under memory pressure"), 200, -1, nil)
	rank := slices.IndexFunc(hits, func(h Hit) bool { return strings.HasPrefix(string(h.ID), "cache/target.go#") })
	if rank < 0 {
		t.Fatalf("cache/target.go not found: %v", hits)
	}
	for _, h := range hits[:rank] {
		if !strings.HasPrefix(string(h.ID), "cache/") {
			t.Errorf("%s (%.3f) ranks above cache/target.go (%.3f)", h.ID, h.Score, hits[rank].Score)
		}
	}
	// And it is far from the other topics' questions.
	for _, q := range []string{"routing of request headers", "latitude and distance"} {
		hits := s.Search(snap, s.Query(q), 10, -1, nil)
		for _, h := range hits {
			if strings.HasPrefix(string(h.ID), "cache/") {
				t.Errorf("%q: %s in the top 10", q, h.ID)
			}
		}
	}
}

// TestDeterministic: two builds (on any number of CPUs) give the same vectors and the same hits,
// ranked by a total order.
func TestDeterministic(t *testing.T) {
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	a, _, err := Build(context.Background(), snap, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	// The second on one CPU: the split of the work must not matter.
	procs := runtime.GOMAXPROCS(1)
	b, _, err := Build(context.Background(), snap, testOptions())
	runtime.GOMAXPROCS(procs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.model.Codes, b.model.Codes) || !slices.Equal(a.model.Scales, b.model.Scales) || !slices.Equal(a.model.Terms, b.model.Terms) {
		t.Fatal("two builds trained different models")
	}
	for _, p := range a.paths {
		if !slices.Equal(a.file(p).Vecs, b.file(p).Vecs) {
			t.Fatalf("%s: different vectors", p)
		}
	}
	q := a.Query("stale entries and capacity")
	ha, hb := a.Search(snap, q, 30, -1, nil), b.Search(snap, q, 30, -1, nil)
	if !slices.Equal(ha, hb) {
		t.Fatalf("different hits:\n%v\n%v", ha, hb)
	}
	for i := 1; i < len(ha); i++ {
		if ha[i].Score > ha[i-1].Score || ha[i].Score == ha[i-1].Score && ha[i].ID < ha[i-1].ID && !sameFile(ha[i].ID, ha[i-1].ID) {
			t.Fatalf("hits %d and %d out of order: %v, %v", i-1, i, ha[i-1], ha[i])
		}
	}
}

func sameFile(a, b index.ChunkID) bool {
	pa, _, _ := a.Split()
	pb, _, _ := b.Split()
	return pa == pb
}

// TestSync: only changed files are embedded again; a removed file is
// dropped; a file changed after the store was synced is not searched.
func TestSync(t *testing.T) {
	ctx := context.Background()
	x, root := indexFiles(t, topics())
	s, _, err := Build(ctx, snapshot(t, x), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	write(t, x, root, "web/f1.go", "package web\n\nfunc cookieJar9(statusCode int) int {\n\treturn statusCode\n}\n")
	if err := os.Remove(filepath.Join(root, "geo", "f2.go")); err != nil {
		t.Fatal(err)
	}
	if err := x.Update(ctx, "geo/f2.go", nil); err != nil {
		t.Fatal(err)
	}
	snap := snapshot(t, x)
	// Not synced yet: the changed file's old vectors are not used.
	for _, h := range s.Search(snap, s.Query("cookies"), 100, -1, nil) {
		if p, _, _ := h.ID.Split(); p == "web/f1.go" || p == "geo/f2.go" {
			t.Errorf("stale hit %s", h.ID)
		}
	}
	n, st, err := s.Sync(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	if st.Trained || st.Embedded != 1 || st.Removed != 1 {
		t.Fatalf("sync stats %+v, want 1 embedded, 1 removed, no training", st)
	}
	if n.file("web/f0.go") != s.file("web/f0.go") {
		t.Error("an unchanged file's vectors were not shared")
	}
	if n.file("geo/f2.go") != nil {
		t.Error("the removed file is still in the store")
	}
	found := false
	for _, h := range n.Search(snap, n.Query("cookies"), 100, -1, nil) {
		found = found || strings.HasPrefix(string(h.ID), "web/f1.go#")
	}
	if !found {
		t.Error("the changed file is not found after the sync")
	}
	if again, st, _ := n.Sync(ctx, snap); again != n || st != (SyncStats{}) {
		t.Errorf("a sync with nothing changed did something: %+v", st)
	}
}

// TestRetrainOnDrift: files of words the model never saw raise the drift
// past the threshold and the sync trains again.
func TestRetrainOnDrift(t *testing.T) {
	ctx := context.Background()
	x, root := indexFiles(t, topics())
	s, _, err := Build(ctx, snapshot(t, x), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "// quaternion%d rotates the gimbal without lock.\nfunc slerpQuat%d(gimbalAxis int) int { return gimbalAxis }\n", i%7, i)
	}
	write(t, x, root, "rot/q.go", "package rot\n\n"+b.String())
	n, st, err := s.Sync(ctx, snapshot(t, x))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Trained {
		t.Fatalf("drift %.3f: not trained again (%+v)", s.Drift(), st)
	}
	if _, ok := n.model.id("gimbal"); !ok {
		t.Error("the new model does not know the new words")
	}
	if n.Drift() > 1e-9 || n.Drift() < -1e-9 {
		t.Errorf("drift %.4f right after training", n.Drift())
	}
}

// TestBuildOn: a store trained on part of the files is the model of an
// older state: Sync embeds the rest with it (drift: the words it never
// saw), and its state is none.
func TestBuildOn(t *testing.T) {
	ctx := context.Background()
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	opts := testOptions()
	opts.RetrainDrift, opts.RetrainFiles = 1, 1
	s, _, err := BuildOn(ctx, snap, opts, func(p string) bool { return !strings.HasPrefix(p, "geo/") })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.model.id("haversinedist"); ok || s.Files() != len(snap.Paths())-8 || s.TrainedAt() != "" {
		t.Fatalf("trained on the held-out files too: %d files, trained at %q", s.Files(), s.TrainedAt())
	}
	n, st, err := s.Sync(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	if st.Trained || st.Embedded != 8 || n.Files() != len(snap.Paths()) || n.Drift() <= 0 {
		t.Fatalf("sync: %+v, %d files, drift %.4f", st, n.Files(), n.Drift())
	}
	if full, _, _ := Build(ctx, snap, opts); full.Drift() != 0 {
		t.Fatalf("a store trained on everything drifts %.4f", full.Drift())
	}
}

// TestQuantizedDot: int8 codes keep the cosine within 0.02.
func TestQuantizedDot(t *testing.T) {
	a := make([]float32, 99)
	b := make([]float32, 99)
	for i := range a {
		a[i] = float32(math.Sin(float64(i) * 0.7))
		b[i] = float32(math.Cos(float64(i)*0.3) + 0.2)
	}
	normalize(a)
	normalize(b)
	var want float64
	for i := range a {
		want += float64(a[i] * b[i])
	}
	qa, qb := make([]int8, len(a)), make([]int8, len(b))
	sa, sb := quantize(a, qa), quantize(b, qb)
	got := float64(float32(dot8(qa, qb)) * sa * sb)
	if math.Abs(got-want) > 0.02 {
		t.Fatalf("quantized cosine %.4f, exact %.4f", got, want)
	}
}

// TestSplitIndependent: files bagged by several goroutines (each with a
// dictionary of its own, as on a machine with more CPUs) train the same
// model as files bagged by one.
func TestSplitIndependent(t *testing.T) {
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	paths := snap.Paths()
	bagged := func(parts int) []*fileBags {
		out := make([]*fileBags, len(paths))
		for p := range parts {
			g := newBagger()
			for i := len(paths) * p / parts; i < len(paths)*(p+1)/parts; i++ {
				out[i] = bagFile(snap, paths[i], g)
			}
		}
		return out
	}
	one, err := train(bagged(1), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	three, err := train(bagged(3), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Terms, three.Terms) || !slices.Equal(one.IDF, three.IDF) || !slices.Equal(one.Codes, three.Codes) || !slices.Equal(one.Scales, three.Scales) {
		t.Fatal("the split of the bagging changed the model")
	}
}

// A store read ahead (PrefetchStore, while the index opens) loads as the
// same store as Load reads: the cache written by the first load is used,
// nothing is trained again.
func TestLoadPrefetched(t *testing.T) {
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	cache := filepath.Join(t.TempDir(), CacheFile)
	a, st, err := Load(context.Background(), snap, cache, testOptions(), false, nil)
	if err != nil || !st.Trained {
		t.Fatalf("first load: %v, %+v", err, st)
	}
	pre := PrefetchStore(cache)
	if pre.Path() != cache {
		t.Fatalf("path %q", pre.Path())
	}
	b, st, err := LoadPrefetched(context.Background(), snap, pre, testOptions(), false, nil)
	if err != nil || st.Trained {
		t.Fatalf("prefetched load: %v, %+v (want the cached store, not trained again)", err, st)
	}
	q := a.Query("stale entries and capacity")
	if ha, hb := a.Search(snap, q, 30, -1, nil), b.Search(snap, q, 30, -1, nil); len(ha) == 0 || !slices.Equal(ha, hb) {
		t.Fatalf("different hits:\n%v\n%v", ha, hb)
	}
	// A missing cache file: built, as Load does.
	c, st, err := LoadPrefetched(context.Background(), snap, PrefetchStore(filepath.Join(t.TempDir(), CacheFile)), testOptions(), false, nil)
	if err != nil || !st.Trained || c == nil {
		t.Fatalf("no cache: %v, %+v", err, st)
	}
}

// TestModelID: the model's identity is a function of the model: the same
// content trains the same ID, a cache read back keeps it, other content
// trains another.
func TestModelID(t *testing.T) {
	ctx := context.Background()
	x, root := indexFiles(t, topics())
	a, _, err := Build(ctx, snapshot(t, x), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Build(ctx, snapshot(t, x), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if a.ModelID() == "" || a.ModelID() != b.ModelID() {
		t.Fatalf("the same content trained %q and %q", a.ModelID(), b.ModelID())
	}
	enc, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Unmarshal(enc)
	if err != nil || r.ModelID() != a.ModelID() {
		t.Fatalf("read back: %v, %q, want %q", err, r.ModelID(), a.ModelID())
	}
	write(t, x, root, "geo/f1.go", "package geo\n\n// latLng0 handles the distance and the coordinates.\nfunc latLng9(mercatorProj int) int {\n\treturn mercatorProj\n}\n")
	c, _, err := Build(ctx, snapshot(t, x), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.ModelID() == a.ModelID() {
		t.Error("other content trained the same model")
	}
	if (&Store{}).ModelID() != "" {
		t.Error("a store without a model has an identity")
	}
}

// TestRetrainOnFileDrift: files changed since training, in words the
// model knows (no vocabulary drift), are embedded with the model it has
// until their share passes RetrainFiles; then the sync trains again. The
// share survives the cache file.
func TestRetrainOnFileDrift(t *testing.T) {
	ctx := context.Background()
	x, root := indexFiles(t, topics())
	opts := testOptions()
	opts.RetrainFiles = 0.25 // 33 files: 8 changed are within, 9 past
	s, _, err := Build(ctx, snapshot(t, x), opts)
	if err != nil {
		t.Fatal(err)
	}
	files := topics()
	edit := func(name string) {
		write(t, x, root, name, strings.Replace(files[name], "handles the", "handles all the", 1))
	}
	var names []string
	for _, d := range []string{"web", "geo", "parse"} {
		for i := range 8 {
			names = append(names, fmt.Sprintf("%s/f%d.go", d, i))
		}
	}
	for _, n := range names[:8] {
		edit(n)
	}
	n, st, err := s.Sync(ctx, snapshot(t, x))
	if err != nil {
		t.Fatal(err)
	}
	if st.Trained || st.Embedded != 8 || n.ModelID() != s.ModelID() {
		t.Fatalf("8 of 33 files changed: %+v, model %s → %s (file drift %.3f, drift %.4f)", st, s.ModelID(), n.ModelID(), n.FileDrift(), n.Drift())
	}
	if d := n.FileDrift(); math.Abs(d-8.0/33) > 1e-9 || st.FileDrift != d || st.Drift != n.Drift() {
		t.Errorf("file drift %.4f, want 8/33; the sync's stats say %.4f and %.4f (store: %.4f)", d, st.FileDrift, st.Drift, n.Drift())
	}
	enc, err := n.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Unmarshal(enc)
	if err != nil || r.FileDrift() != n.FileDrift() {
		t.Fatalf("read back: %v, file drift %.4f, want %.4f", err, r.FileDrift(), n.FileDrift())
	}
	// A file changed again counts once.
	write(t, x, root, names[0], files[names[0]]+"\n")
	if r, _, _ = r.Sync(ctx, snapshot(t, x)); r.FileDrift() != n.FileDrift() {
		t.Errorf("a file changed twice: file drift %.4f, want %.4f", r.FileDrift(), n.FileDrift())
	}
	edit(names[8])
	n2, st, err := r.Sync(ctx, snapshot(t, x))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Trained || n2.ModelID() == s.ModelID() || n2.FileDrift() != 0 {
		t.Fatalf("9 of 33 files changed: %+v, file drift %.3f after", st, n2.FileDrift())
	}
	// The stats keep the drift that made the sync train again.
	if math.Abs(st.FileDrift-9.0/33) > 1e-9 {
		t.Errorf("the retraining sync's file drift %.4f, want 9/33", st.FileDrift)
	}
	if full, _, _ := Build(ctx, snapshot(t, x), opts); full.ModelID() != n2.ModelID() {
		t.Error("the model trained again is not the one the tree trains")
	}
}

// TestLoadRetrain: Load reuses the cached model after an edit (only the
// changed file embedded); with retrain it trains on the snapshot whatever
// the drift.
func TestLoadRetrain(t *testing.T) {
	ctx := context.Background()
	x, root := indexFiles(t, topics())
	cache := filepath.Join(t.TempDir(), CacheFile)
	a, _, err := Load(ctx, snapshot(t, x), cache, testOptions(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, x, root, "web/f2.go", "package web\n\n// routeTable7 handles the cookies.\nfunc routeTable7(httpHeader int) int {\n\treturn httpHeader\n}\n")
	b, st, err := Load(ctx, snapshot(t, x), cache, testOptions(), false, nil)
	if err != nil || st.Trained || st.Embedded != 1 || b.ModelID() != a.ModelID() {
		t.Fatalf("after an edit: %v, %+v, model %s → %s", err, st, a.ModelID(), b.ModelID())
	}
	c, st, err := Load(ctx, snapshot(t, x), cache, testOptions(), true, nil)
	if err != nil || !st.Trained || c.ModelID() == a.ModelID() {
		t.Fatalf("retrain: %v, %+v, model %s", err, st, c.ModelID())
	}
	d, st, err := Load(ctx, snapshot(t, x), cache, testOptions(), false, nil)
	if err != nil || st.Trained || st.Embedded != 0 || d.ModelID() != c.ModelID() {
		t.Fatalf("the retrained store was not kept: %v, %+v", err, st)
	}
}
