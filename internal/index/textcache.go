package index

import (
	"container/list"
	"sync"
)

// defaultTextCacheBytes bounds the texts an Index keeps in memory.
const defaultTextCacheBytes = 32 << 20

// textCache holds the texts of recently read files, shared by every
// snapshot of one Index, so that a request does not read and hash again
// the files earlier requests used. An entry is keyed by path and content
// hash: a snapshot only takes it when its file table row has the same
// hash and the disk file still has the size and modification time that
// row recorded (see Snapshot.File). Least recently used entries go first
// once the total text size passes the limit.
type textCache struct {
	mu    sync.Mutex
	limit int
	size  int
	m     map[string]*list.Element // path → *textEntry
	lru   list.List                // front: most recently used
}

type textEntry struct {
	path, hash, text string
}

func newTextCache(limit int) *textCache {
	return &textCache{limit: limit, m: make(map[string]*list.Element)}
}

// get returns path's text if the cache holds it for content hash.
func (c *textCache) get(path, hash string) (string, bool) {
	if c == nil || c.limit <= 0 {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[path]
	if !ok {
		return "", false
	}
	e := el.Value.(*textEntry)
	if e.hash != hash {
		return "", false
	}
	c.lru.MoveToFront(el)
	return e.text, true
}

// put stores path's text with its content hash, replacing any older text
// of path, and evicts the least recently used texts over the limit. A
// text larger than a quarter of the limit is not kept.
func (c *textCache) put(path, hash, text string) {
	if c == nil || c.limit <= 0 || len(text) > c.limit/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[path]; ok {
		c.size -= len(el.Value.(*textEntry).text)
		c.lru.Remove(el)
	}
	c.m[path] = c.lru.PushFront(&textEntry{path, hash, text})
	c.size += len(text)
	for c.size > c.limit {
		el := c.lru.Back()
		e := el.Value.(*textEntry)
		c.lru.Remove(el)
		delete(c.m, e.path)
		c.size -= len(e.text)
	}
}
