package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// gate is a TCP proxy to a server that can refuse every connection
// (accepted and closed at once), counting the connections it was asked
// for meanwhile.
type gate struct {
	ln      net.Listener
	target  string
	refuse  atomic.Bool
	refused atomic.Int64
	mu      sync.Mutex
	conns   []net.Conn
}

func newGate(t *testing.T, target string) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); g.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if g.refuse.Load() {
				g.refused.Add(1)
				c.Close()
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			g.mu.Lock()
			g.conns = append(g.conns, c, s)
			g.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }() //nolint:errcheck // a proxy
			go func() { io.Copy(c, s); c.Close() }() //nolint:errcheck // a proxy
		}
	}()
	return g
}

// cut closes the connections made so far.
func (g *gate) cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.conns {
		c.Close()
	}
	g.conns = nil
}

// A union whose chunks the store cannot give (it does not answer) leaves
// its files out at once after the first failure, rather than try the
// store again for each file (each try can wait for a timeout); a moment
// later it tries again, and once the store answers its files are read.
func TestUnionStoreDownFailsFast(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "unionfast")
	s := open(t, url)
	for _, repo := range []string{"org/a", "org/b"} {
		files := map[string]string{}
		for i := range 8 {
			files[fmt.Sprintf("f%d.go", i)] = fmt.Sprintf("package p\n\n// F%d of %s.\nfunc F%d() int { return %d }\n", i, repo, i, i)
		}
		publishTree(t, s, repo, tree(t, files))
	}
	g := newGate(t, fmt.Sprintf("127.0.0.1:%d", srv.Port))
	via := open(t, strings.Replace(url, fmt.Sprintf(":%d/", srv.Port), fmt.Sprintf(":%d/", g.ln.Addr().(*net.TCPAddr).Port), 1))
	u, err := via.CheckoutUnion(ctx, []string{"org/a", "org/b"}, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	entries, _, err := u.Lister().List(ctx, u.Root)
	if err != nil || len(entries) != 16 {
		t.Fatalf("the union lists %d files: %v", len(entries), err)
	}
	chunkAll := func() (failed int) {
		ch, _ := u.NewChunker()
		defer ch.Close()
		for _, e := range entries {
			src, err := u.Files().ReadFile(e.Path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ch.Chunk(e.Path, src); errors.Is(err, index.ErrUnavailable) {
				failed++
			} else if err != nil {
				t.Fatalf("%s: %v", e.Path, err)
			}
		}
		return failed
	}
	// The chunks fetched ahead with the checkouts serve once: these are
	// read from the store from now on.
	if failed := chunkAll(); failed != 0 {
		t.Fatalf("with the store up, %d files failed", failed)
	}
	g.refuse.Store(true)
	g.cut()
	if failed := chunkAll(); failed != len(entries) {
		t.Fatalf("with the store down, %d of %d files failed", failed, len(entries))
	}
	if n := g.refused.Load(); n > 2 {
		t.Fatalf("the union asked the store %d times for %d files", n, len(entries))
	}
	time.Sleep(unionDownWait + 100*time.Millisecond)
	g.refuse.Store(false)
	if failed := chunkAll(); failed != 0 {
		t.Fatalf("with the store back, %d files failed", failed)
	}
}
