package mcp

// The index_status tool: each root's index state.

import (
	"cmp"
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// IndexStatusInput is index_status's arguments.
type IndexStatusInput struct {
	Root string `json:"root,omitempty" jsonschema:"only this root"`
	Repo string `json:"repo,omitempty" jsonschema:"on a server of an index store: the repository to read (list_repos lists them); required when the token may read several"`
}

// Progress is a build's progress.
type Progress struct {
	FilesDone  int `json:"filesDone"`
	FilesTotal int `json:"filesTotal"`
	Chunks     int `json:"chunks"`
}

// RootStatus is one root's index state.
type RootStatus struct {
	Root           string         `json:"root"`
	State          string         `json:"state" jsonschema:"opening, building (answers may miss files), ready or failed"`
	Complete       bool           `json:"complete"`
	Files          int            `json:"files"`
	Chunks         int            `json:"chunks"`
	StateRoot      string         `json:"stateRoot,omitempty"`
	Progress       *Progress      `json:"progress,omitempty"`
	LastMode       string         `json:"lastMode,omitempty" jsonschema:"how the index was last brought up to date: build, refresh or open"`
	BuildReason    string         `json:"buildReason,omitempty" jsonschema:"why a full build was needed"`
	LastRefresh    string         `json:"lastRefresh,omitempty" jsonschema:"when the index was last opened or refreshed from disk (RFC 3339)"`
	Skipped        map[string]int `json:"skipped" jsonschema:"files left out, by reason"`
	Watching       bool           `json:"watching" jsonschema:"changes on disk are watched (else each call refreshes first)"`
	WatchNote      string         `json:"watchNote,omitempty"`
	PendingChanges int            `json:"pendingChanges"`
	CacheDir       string         `json:"cacheDir,omitempty"`
	Warnings       []string       `json:"warnings,omitempty" jsonschema:"what the user should know, e.g. that the cache directory cannot be written, so the index is kept in memory and nothing is saved"`
	Error          string         `json:"error,omitempty"`
}

// IndexStatusOutput is index_status's structured result.
type IndexStatusOutput struct {
	Roots []RootStatus `json:"roots"`
}

// indexStatus is the index_status tool.
func (s *Server) indexStatus(ctx context.Context, req *sdk.CallToolRequest, in IndexStatusInput) (*sdk.CallToolResult, IndexStatusOutput, error) {
	out := IndexStatusOutput{Roots: []RootStatus{}}
	c, err := s.callRoots(ctx, req)
	if err != nil {
		return nil, out, err
	}
	roots := c.roots
	if s.opts.Repos != nil && cmp.Or(in.Repo, in.Root) == "" {
		roots = s.openOf(roots) // not every repository the token may read: those open
	}
	if cmp.Or(in.Repo, in.Root) != "" {
		r, err := s.pick(c, cmp.Or(in.Repo, in.Root), "")
		if err != nil {
			return nil, out, err
		}
		roots = []string{r}
	}
	for _, r := range roots {
		w, err := s.workspace(ctx, r)
		if err != nil {
			return nil, out, err
		}
		out.Roots = append(out.Roots, w.status())
	}
	return nil, out, nil
}

// openOf returns those of roots whose workspace is open.
func (s *Server) openOf(roots []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range roots {
		if _, ok := s.spaces[r]; ok {
			out = append(out, r)
		}
	}
	return out
}
