package tokens

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Registry hands out shared Counters by encoding name. Each encoding is
// built at most once, on first use, and shared by all callers; a Registry is
// safe for concurrent use. Create one per process (or per server) and pass it
// to whoever counts tokens.
type Registry struct {
	// encodings is filled by NewRegistry and only read afterwards.
	encodings map[string]*lazyCounter
	// loaderOnce guards installing tiktoken-go's offline BPE loader.
	loaderOnce sync.Once
}

// lazyCounter builds one encoding's Counter once.
type lazyCounter struct {
	build func() (Counter, error)
	once  sync.Once
	c     Counter
	err   error
}

func (l *lazyCounter) get() (Counter, error) {
	l.once.Do(func() { l.c, l.err = l.build() })
	return l.c, l.err
}

// NewRegistry returns a Registry that knows "approx", "cl100k_base" and
// "o200k_base". It builds nothing until Get is called.
func NewRegistry() *Registry {
	bpe := func(name string) *lazyCounter {
		return &lazyCounter{build: func() (Counter, error) { return NewBPE(name) }}
	}
	return &Registry{encodings: map[string]*lazyCounter{
		"approx":      {build: func() (Counter, error) { return Approx{}, nil }},
		"cl100k_base": bpe("cl100k_base"),
		"o200k_base":  bpe("o200k_base"),
	}}
}

// Known returns the names of the known encodings, sorted.
func (r *Registry) Known() []string {
	names := make([]string, 0, len(r.encodings))
	for name := range r.encodings {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Get returns the shared Counter for the encoding name, building it on the
// first call (tens of milliseconds for a tiktoken encoding). An unknown name,
// including "", is an error listing the known names; choosing a default
// encoding is the caller's business.
func (r *Registry) Get(name string) (Counter, error) {
	if err := r.Check(name); err != nil {
		return nil, err
	}
	c, err := r.encodings[name].get()
	if err != nil {
		return nil, fmt.Errorf("build encoding %s: %w", name, err)
	}
	return c, nil
}

// Check reports whether name is a known encoding, with Get's error when
// it is not, without building it.
func (r *Registry) Check(name string) error {
	if _, ok := r.encodings[name]; !ok {
		return fmt.Errorf("unknown encoding %q (known: %s)", name, strings.Join(r.Known(), ", "))
	}
	return nil
}

// Lazy returns a Counter for name that builds the encoding on its first
// Count (or when Get builds it first), so that a caller can hand counters
// out before paying for them (≈ 20 ms for cl100k_base). It fails only for
// an unknown name; the encodings are built from data compiled into the
// program, so a Count that cannot build its encoding is a bug, and
// panics with the reason.
func (r *Registry) Lazy(name string) (Counter, error) {
	if err := r.Check(name); err != nil {
		return nil, err
	}
	return deferred{r, name}, nil
}

type deferred struct {
	r    *Registry
	name string
}

func (d deferred) Name() string { return d.name }

func (d deferred) Count(text string) int {
	c, err := d.r.Get(d.name)
	if err != nil {
		panic(fmt.Sprintf("tokens: %v", err))
	}
	return c.Count(text)
}

// NewTiktoken builds a new, unshared Counter backed by tiktoken-go's
// EncodeOrdinary for the tiktoken encoding name. It is the reference
// implementation that the exact counters are tested against: slow (2 to
// 3 MB/s) and expensive to build (0.1 to 0.3 s), so production code should
// use Get.
//
// The first call on a Registry installs tiktoken-go's offline loader with
// tiktoken.SetBpeLoader, a process-wide setting of tiktoken-go, so that no
// network access is attempted.
func (r *Registry) NewTiktoken(name string) (Counter, error) {
	if name != "cl100k_base" && name != "o200k_base" {
		return nil, fmt.Errorf("tokens: no tiktoken encoding %q", name)
	}
	r.loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("tokens: tiktoken-go encoding %s: %w", name, err)
	}
	return &tiktokenCounter{name: name, enc: enc}, nil
}

// tiktokenCounter counts with tiktoken-go.
type tiktokenCounter struct {
	name string
	enc  *tiktoken.Tiktoken
}

// Name implements Counter.
func (t *tiktokenCounter) Name() string { return t.name }

// Count implements Counter. EncodeOrdinary treats special tokens such as
// <|endoftext|> as ordinary text (Encode would panic on them).
func (t *tiktokenCounter) Count(text string) int { return len(t.enc.EncodeOrdinary(text)) }
