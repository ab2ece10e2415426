package mcp

// The list_repos tool of a server of an index store: the repositories a
// token may read.

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListReposInput is list_repos's arguments (none).
type ListReposInput struct{}

// RepoInfo is one repository of the store.
type RepoInfo struct {
	Name       string `json:"name"`
	Generation int64  `json:"generation" jsonschema:"the index generation served (it grows with each publish)"`
	Files      int    `json:"files"`
	Bytes      int64  `json:"bytes" jsonschema:"the indexed files' total size"`
	Updated    string `json:"updated" jsonschema:"when the generation was published (RFC 3339, UTC)"`
}

// ListReposOutput is list_repos's structured result.
type ListReposOutput struct {
	Repos []RepoInfo `json:"repos"`
}

// listRepos is the list_repos tool.
func (s *Server) listRepos(ctx context.Context, req *sdk.CallToolRequest, _ ListReposInput) (*sdk.CallToolResult, ListReposOutput, error) {
	out := ListReposOutput{Repos: []RepoInfo{}}
	g, err := s.grant(req)
	if err != nil {
		return nil, out, err
	}
	list, err := s.opts.Repos.List(ctx, g)
	if err != nil {
		return nil, out, storeErr(err)
	}
	for _, r := range list {
		out.Repos = append(out.Repos, RepoInfo{Name: r.Name, Generation: r.Generation, Files: r.Files, Bytes: r.Bytes, Updated: r.Updated})
	}
	return nil, out, nil
}
