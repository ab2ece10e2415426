package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
	"github.com/ctxls/ctxls/internal/workspace"
)

// Default settings.
const (
	DefaultMaxTokens = 8000
	DefaultEncoding  = retrieve.DefaultEncoding
	// DefaultIndexWait is how long a request waits for a folder's first
	// index build before it answers from what is indexed so far.
	DefaultIndexWait = 2 * time.Second
)

// Settings are the server settings (section "ctxls"): the defaults of
// context/assemble's parameters and how folders are indexed. A Settings
// value is never modified once the session holds it; a change replaces it.
type Settings struct {
	Budget   assemble.Budget
	Encoding string
	Format   assemble.Format
	Strategy assemble.Strategy
	// Include and Exclude are doublestar globs on folder-relative paths.
	// Include is the default of a request's include; Exclude is always
	// applied, in addition to a request's exclude.
	Include, Exclude []string
	// CacheDir is the parent directory of the on-disk indexes; "" is the
	// default. It applies to folders opened after it is set.
	CacheDir string
	// IndexWait bounds how long a request waits for a folder's first
	// index build.
	IndexWait time.Duration
	// Weights override the retrieval channels' fusion weights (channel →
	// weight; 0 turns a channel off). Nil keeps the engine's defaults.
	Weights map[string]float64
	// NoGitHistory keeps the folders' git history out of retrieval (and
	// git from being run); setting "gitHistory": false.
	NoGitHistory bool
	// NoActivity leaves the session's activity (open buffers, edited
	// ranges) out of every request; setting "activity": false.
	NoActivity bool
	// Embeddings is the semantic channel's mode (workspace.EmbeddingsWorkspace
	// or ModeOff); "" is the server's default (Options.Embeddings).
	// Setting "embeddings".
	Embeddings string
	// EmbeddingsEndpoint is the service of embeddings "endpoint" (nil:
	// the server's, Options.EmbeddingsEndpoint). Setting
	// "embeddingsEndpoint": {"url", "model", "dimensions", "keyEnv"}.
	EmbeddingsEndpoint *workspace.EndpointConfig
}

// defaultSettings are the settings before the client says anything.
func defaultSettings() Settings {
	return Settings{
		Budget:    assemble.Budget{MaxTokens: DefaultMaxTokens},
		Encoding:  DefaultEncoding,
		Format:    assemble.Markdown,
		Strategy:  assemble.Grouped,
		IndexWait: DefaultIndexWait,
	}
}

// settingsJSON is the JSON shape of the settings; absent fields keep their
// previous value.
type settingsJSON struct {
	Budget *struct {
		MaxTokens        *int `json:"maxTokens"`
		PerFileMaxTokens *int `json:"perFileMaxTokens"`
		PerPartMaxTokens *int `json:"perPartMaxTokens"`
	} `json:"budget"`
	// Top-level spellings of the budget fields, as flat editor settings
	// ("ctxls.maxTokens") arrive.
	MaxTokens          *int                      `json:"maxTokens"`
	PerFileMaxTokens   *int                      `json:"perFileMaxTokens"`
	PerPartMaxTokens   *int                      `json:"perPartMaxTokens"`
	Encoding           *string                   `json:"encoding"`
	Format             *string                   `json:"format"`
	Strategy           *string                   `json:"strategy"`
	Include            *[]string                 `json:"include"`
	Exclude            *[]string                 `json:"exclude"`
	CacheDir           *string                   `json:"cacheDir"`
	IndexWaitMs        *int                      `json:"indexWaitMs"`
	Weights            *map[string]float64       `json:"weights"`
	GitHistory         *bool                     `json:"gitHistory"`
	Embeddings         *string                   `json:"embeddings"`
	Activity           *bool                     `json:"activity"`
	EmbeddingsEndpoint *workspace.EndpointConfig `json:"embeddingsEndpoint"`
}

// settingsPayload extracts the ctxls settings object from raw, which may be
// the object itself or wrap it as {"ctxls": {...}}. Null, absent and empty
// payloads give nil.
func settingsPayload(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var wrapped map[string]json.RawMessage
	if json.Unmarshal(raw, &wrapped) == nil {
		if inner, ok := wrapped[configSection]; ok {
			return settingsPayload(inner)
		}
		if len(wrapped) == 0 {
			return nil
		}
	}
	return raw
}

// apply returns s with the settings in raw (see settingsPayload) applied
// over it. Invalid values are skipped and reported in problems, so that
// one bad setting does not lose the others.
func (s Settings) apply(raw json.RawMessage, reg *tokens.Registry) (out Settings, problems []string) {
	out = s
	raw = settingsPayload(raw)
	if raw == nil {
		return out, nil
	}
	var j settingsJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return out, []string{fmt.Sprintf("settings: %v", err)}
	}
	bad := func(field string, err error) { problems = append(problems, fmt.Sprintf("setting %s: %v", field, err)) }

	b := out.Budget
	setCaps(&b, j.MaxTokens, j.PerFileMaxTokens, j.PerPartMaxTokens)
	if j.Budget != nil {
		setCaps(&b, j.Budget.MaxTokens, j.Budget.PerFileMaxTokens, j.Budget.PerPartMaxTokens)
	}
	if err := b.Validate(); err != nil {
		bad("budget", err)
	} else {
		out.Budget = b
	}
	if j.Encoding != nil {
		if _, err := reg.Get(*j.Encoding); err != nil {
			bad("encoding", err)
		} else {
			out.Encoding = *j.Encoding
		}
	}
	if j.Format != nil {
		if f, err := assemble.ParseFormat(*j.Format); err != nil {
			bad("format", err)
		} else {
			out.Format = f
		}
	}
	if j.Strategy != nil {
		if st, err := assemble.ParseStrategy(*j.Strategy); err != nil {
			bad("strategy", err)
		} else {
			out.Strategy = st
		}
	}
	if j.Include != nil {
		if err := validGlobs(*j.Include); err != nil {
			bad("include", err)
		} else {
			out.Include = append([]string(nil), (*j.Include)...)
		}
	}
	if j.Exclude != nil {
		if err := validGlobs(*j.Exclude); err != nil {
			bad("exclude", err)
		} else {
			out.Exclude = append([]string(nil), (*j.Exclude)...)
		}
	}
	if j.CacheDir != nil {
		out.CacheDir = *j.CacheDir
	}
	if j.IndexWaitMs != nil {
		if *j.IndexWaitMs < 0 {
			bad("indexWaitMs", fmt.Errorf("must be ≥ 0, got %d", *j.IndexWaitMs))
		} else {
			out.IndexWait = time.Duration(*j.IndexWaitMs) * time.Millisecond
		}
	}
	if j.Weights != nil {
		if err := retrieve.CheckWeights(*j.Weights); err != nil {
			bad("weights", err)
		} else {
			out.Weights = maps.Clone(*j.Weights)
		}
	}
	if j.GitHistory != nil {
		out.NoGitHistory = !*j.GitHistory
	}
	if j.EmbeddingsEndpoint != nil {
		if _, err := j.EmbeddingsEndpoint.Endpoint(); err != nil {
			bad("embeddingsEndpoint", err)
		} else {
			out.EmbeddingsEndpoint = j.EmbeddingsEndpoint
		}
	}
	if j.Activity != nil {
		out.NoActivity = !*j.Activity
	}
	if j.Embeddings != nil {
		if err := workspace.CheckEmbeddings(*j.Embeddings); err != nil {
			bad("embeddings", err)
		} else {
			out.Embeddings = *j.Embeddings
		}
	}
	return out, problems
}

// validGlobs checks doublestar globs.
func validGlobs(globs []string) error {
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			return fmt.Errorf("bad glob %q", g)
		}
	}
	return nil
}
