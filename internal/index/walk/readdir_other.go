//go:build !linux

package walk

import "os"

// readDir lists the directory dir (buf is unused here: the Linux version
// reads into it).
func readDir(dir string, _ []byte) ([]dirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	es, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]dirEntry, len(es))
	for i, e := range es {
		out[i] = dirEntry{name: e.Name(), typ: e.Type()}
	}
	return out, nil
}
