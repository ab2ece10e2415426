package index

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"slices"
	"strings"
	"sync"
)

// The state root is a two-level hash over the sorted (path, content hash)
// pairs of a snapshot's files: each directory's files give a directory
// hash, SHA-256 over "path\x00hash\n" in path order, and the root is the
// hex SHA-256 over "dir\x00dirhash\n" in directory order (dir is the path
// up to its last '/', "" at the top). Equal content gives an equal root,
// whatever the order files were indexed in; and a snapshot that changed a
// few files since its base tables rehashes only their directories, not
// all of a large tree's (≈ 3.5 ms per edit on Go's src).

// dirOf returns the directory part of a slash-separated path.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// dirDigest hashes the files of one directory, paths sorted.
func dirDigest(paths []string, hashOf func(string) string) [sha256.Size]byte {
	h := sha256.New()
	var buf []byte
	for _, p := range paths {
		buf = appendFileLine(buf[:0], p, hashOf(p))
		h.Write(buf)
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// appendFileLine appends a file's line of its directory's digest.
func appendFileLine(buf []byte, path, hash string) []byte {
	buf = append(buf, path...)
	buf = append(buf, 0)
	buf = append(buf, hash...)
	return append(buf, '\n')
}

// rootDigest hashes the directory digests, dirs sorted.
func rootDigest(dirs []string, digestOf func(string) [sha256.Size]byte) string {
	h := sha256.New()
	var buf []byte
	for _, d := range dirs {
		dd := digestOf(d)
		buf = append(buf[:0], d...)
		buf = append(buf, 0)
		buf = hex.AppendEncode(buf, dd[:])
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// groupByDir groups sorted paths by directory: the sorted directories,
// and each one's paths (sorted).
func groupByDir(paths []string) ([]string, map[string][]string) {
	byDir := make(map[string][]string)
	for _, p := range paths {
		d := dirOf(p)
		byDir[d] = append(byDir[d], p)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs, byDir
}

// StateRoot computes the state root of a set of files given as path →
// content hash (see above). It is what Snapshot.StateRoot returns for the
// snapshot's files.
func StateRoot(hashes map[string]string) string {
	paths := make([]string, 0, len(hashes))
	for p := range hashes {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	dirs, byDir := groupByDir(paths)
	hashOf := func(p string) string { return hashes[p] }
	return rootDigest(dirs, func(d string) [sha256.Size]byte { return dirDigest(byDir[d], hashOf) })
}

// dirState is the base tables' directory grouping and digests, built on
// first use.
type dirState struct {
	once    sync.Once
	dirs    []string
	byDir   map[string][]string
	digests map[string][sha256.Size]byte
}

// dirState groups the paths by directory and hashes each directory as
// dirDigest does, in one pass over the files in path order: a
// directory's files are met in their order, in runs of consecutive paths
// (cut by its subdirectories' files), and each run costs one lookup of
// its directory rather than one per path.
func (t *tables) dirState() *dirState {
	ds := &t.dirs
	ds.once.Do(func() {
		ds.byDir = make(map[string][]string)
		hs := make(map[string]hash.Hash)
		var buf []byte
		for i := 0; i < len(t.paths); {
			d := dirOf(t.paths[i])
			j := i + 1
			for j < len(t.paths) && dirOf(t.paths[j]) == d {
				j++
			}
			h := hs[d]
			if h == nil {
				h = sha256.New()
				hs[d] = h
				ds.dirs = append(ds.dirs, d)
			}
			ds.byDir[d] = append(ds.byDir[d], t.paths[i:j]...)
			for k := i; k < j; k++ {
				buf = appendFileLine(buf[:0], t.paths[k], t.recs[k].info.Hash)
				h.Write(buf)
			}
			i = j
		}
		slices.Sort(ds.dirs)
		ds.digests = make(map[string][sha256.Size]byte, len(ds.dirs))
		for d, h := range hs {
			var dd [sha256.Size]byte
			h.Sum(dd[:0])
			ds.digests[d] = dd
		}
	})
	return ds
}

// computeStateRoot is StateRoot for the snapshot: the base's directory
// digests, with the directories the delta touches hashed again.
func (s *Snapshot) computeStateRoot() string {
	ds := s.base.dirState()
	if len(s.delta) == 0 {
		return rootDigest(ds.dirs, func(d string) [sha256.Size]byte { return ds.digests[d] })
	}
	touched := make(map[string][]string) // dir → its files in this snapshot
	for p := range s.delta {
		touched[dirOf(p)] = nil
	}
	for d := range touched {
		var files []string
		for _, p := range ds.byDir[d] {
			if _, changed := s.delta[p]; !changed {
				files = append(files, p)
			}
		}
		for p, f := range s.delta {
			if f != nil && dirOf(p) == d {
				files = append(files, p)
			}
		}
		slices.Sort(files)
		touched[d] = files
	}
	dirs := slices.Clone(ds.dirs)
	for d, files := range touched {
		if _, inBase := ds.byDir[d]; !inBase && len(files) > 0 {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	dirs = slices.DeleteFunc(dirs, func(d string) bool {
		files, ok := touched[d]
		return ok && len(files) == 0
	})
	hashOf := func(p string) string { return s.file(p).info.Hash }
	return rootDigest(dirs, func(d string) [sha256.Size]byte {
		if files, ok := touched[d]; ok {
			return dirDigest(files, hashOf)
		}
		return ds.digests[d]
	})
}

// An answer computed with a learned model besides the indexed content (the
// semantic channel's vectors) names the model in its index state: the
// state root, then ModelSep and the model's identity. The same index
// state then means the same content read with the same model, so the
// same parameters give the same answer; a model trained again gives
// another state for the same content.
const ModelSep = "."

// StateWithModel is the index state of an answer computed from content of
// state root root with the model of identity model ("": none, the root
// alone).
func StateWithModel(root, model string) string {
	if model == "" {
		return root
	}
	return root + ModelSep + model
}

// ContentState is the state root part of an index state (StateWithModel):
// the content it was read from, what a held snapshot is found by.
func ContentState(state string) string {
	root, _, _ := strings.Cut(state, ModelSep)
	return root
}
