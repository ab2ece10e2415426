package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
)

// Conversions from the JSON params of the custom requests to the engine's
// types, with errors that name the offending field.

// AssembleParams are the params of the protocol's context/assemble
// request (docs/protocol.md). Absent fields
// take their defaults from the settings.
type AssembleParams struct {
	Query    *string         `json:"query"`
	Focus    json.RawMessage `json:"focus"`
	Diff     *string         `json:"diff"`
	Budget   json.RawMessage `json:"budget"`
	Encoding *string         `json:"encoding"`
	Format   *string         `json:"format"`
	Strategy *string         `json:"strategy"`
	// Mode is what the context is for: "related" (the default) or
	// "review" (a diff under review; retrieve.ModeReview).
	Mode    *string  `json:"mode"`
	Include []string `json:"include"`
	Exclude []string `json:"exclude"`
	// Explain adds the engine's explanation of each part and omission.
	Explain bool `json:"explain"`
	// Activity: false leaves the session's activity (open buffers, edited
	// ranges) out of retrieval; absent or true uses it.
	Activity *bool `json:"activity"`
	// History is the earlier turns of the conversation, newest last: a
	// weaker query than query.
	History []string `json:"history"`
	// Repo names the repository to read on a server of an index store
	// (ctxls serve --store); Repos several, read as one tree.
	Repo  *string  `json:"repo"`
	Repos []string `json:"repos"`
}

// FocusParam is the cursor of context/assemble.
type FocusParam struct {
	URI      string    `json:"uri"`
	Position *Position `json:"position"`
}

// ExpandParams are context/expand's params: handles from an earlier
// result, or a uri and lines (range: an LSP range; ranges: 1-based
// inclusive line ranges as in a part's "ranges").
type ExpandParams struct {
	Handles []string        `json:"handles"`
	URI     string          `json:"uri"`
	Range   json.RawMessage `json:"range"`
	Ranges  []ranges.Range  `json:"ranges"`
	// IndexState names the state to expand from (a result's
	// stats.indexState); by default the newest held state whose results
	// listed the handles.
	IndexState string          `json:"indexState"`
	Budget     json.RawMessage `json:"budget"`
	Encoding   *string         `json:"encoding"`
	Format     *string         `json:"format"`
	// Repo and Repos: as context/assemble's.
	Repo  *string  `json:"repo"`
	Repos []string `json:"repos"`
}

// budgetJSON is a budget whose absent fields keep their defaults.
type budgetJSON struct {
	MaxTokens        *int           `json:"maxTokens"`
	PerFileMaxTokens *int           `json:"perFileMaxTokens"`
	PerPartMaxTokens *int           `json:"perPartMaxTokens"`
	Reserves         map[string]int `json:"reserves"`
}

// decodeParams decodes an object of params into v; a JSON type mismatch
// becomes InvalidParams naming the field.
func decodeParams(params json.RawMessage, v any) error {
	if isNull(params) {
		return nil
	}
	if p := bytes.TrimSpace(params); len(p) == 0 || p[0] != '{' {
		return paramError("params", "want an object, got %s", abbreviate(string(p)))
	}
	if err := json.Unmarshal(params, v); err != nil {
		return fieldError("", err)
	}
	return nil
}

// fieldError turns a decoding error of the value at prefix into
// InvalidParams naming the field.
func fieldError(prefix string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if prefix != "" {
			field = strings.TrimSuffix(prefix+"."+field, ".")
		}
		if field == "" {
			field = "params"
		}
		return paramError(field, "want %s, got a JSON %s", typeName(te.Type.String()), te.Value)
	}
	if prefix == "" {
		prefix = "params"
	}
	return paramError(prefix, "%v", err)
}

// typeName says a Go type the way a JSON user reads it.
func typeName(t string) string {
	switch {
	case t == "string", t == "*string":
		return "a string"
	case strings.Contains(t, "int"):
		return "an integer"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "bool":
		return "a boolean"
	}
	return "an object"
}

// decodeBudget applies a budget object over def.
func decodeBudget(raw json.RawMessage, def assemble.Budget) (assemble.Budget, error) {
	if isNull(raw) {
		return def, nil
	}
	if p := bytes.TrimSpace(raw); p[0] != '{' {
		return def, paramError("budget", "want an object like {\"maxTokens\": 8000}, got %s", abbreviate(string(p)))
	}
	var j budgetJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return def, fieldError("budget", err)
	}
	b := def
	setCaps(&b, j.MaxTokens, j.PerFileMaxTokens, j.PerPartMaxTokens)
	if j.Reserves != nil {
		b.Reserves = j.Reserves
	}
	return b, nil // checked with the rest of the request (Engine.Plan)
}

// setCaps sets the token caps of b that are given (not nil): request
// params and settings both leave absent ones as they were.
func setCaps(b *assemble.Budget, maxTokens, perFile, perPart *int) {
	for _, c := range [...]struct{ dst, v *int }{
		{&b.MaxTokens, maxTokens}, {&b.PerFileMaxTokens, perFile}, {&b.PerPartMaxTokens, perPart},
	} {
		if c.v != nil {
			*c.dst = *c.v
		}
	}
}

// decodeFocus reads the focus object; nil when absent.
func decodeFocus(raw json.RawMessage) (*FocusParam, error) {
	if isNull(raw) {
		return nil, nil
	}
	if p := bytes.TrimSpace(raw); p[0] != '{' {
		return nil, paramError("focus", "want an object {\"uri\": …, \"position\": {\"line\": …, \"character\": …}}, got %s", abbreviate(string(p)))
	}
	var f FocusParam
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fieldError("focus", err)
	}
	switch {
	case f.URI == "":
		return nil, paramError("focus.uri", "required: the file: URI of the document with the cursor")
	case f.Position == nil:
		return nil, paramError("focus.position", "required: {\"line\": …, \"character\": …}, 0-based")
	case f.Position.Line < 0:
		return nil, paramError("focus.position.line", "must be ≥ 0 (0-based), got %d", f.Position.Line)
	case f.Position.Character < 0:
		return nil, paramError("focus.position.character", "must be ≥ 0 (0-based), got %d", f.Position.Character)
	}
	return &f, nil
}

// decodeExpandRange reads context/expand's range: an LSP range (0-based,
// end exclusive) or {"start": 12, "end": 40} (1-based, inclusive).
func decodeExpandRange(raw json.RawMessage) ([]ranges.Range, error) {
	if isNull(raw) {
		return nil, nil
	}
	var lines ranges.Range
	if err := json.Unmarshal(raw, &lines); err == nil {
		if lines.Start < 1 || lines.End < lines.Start {
			return nil, paramError("range", "want 1-based lines with start ≤ end, got %d-%d", lines.Start, lines.End)
		}
		return []ranges.Range{lines}, nil
	}
	var r Range
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, paramError("range", "want an LSP range {\"start\": {\"line\", \"character\"}, \"end\": …} or 1-based lines {\"start\": 12, \"end\": 40}")
	}
	if r.Start.Line < 0 || r.End.Line < r.Start.Line {
		return nil, paramError("range", "want 0-based lines with start ≤ end, got %d-%d", r.Start.Line, r.End.Line)
	}
	end := r.End.Line + 1 // 1-based
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		end-- // an end at the start of a line excludes that line
	}
	return []ranges.Range{{Start: r.Start.Line + 1, End: end}}, nil
}

// abbreviate shortens a JSON value for an error message.
func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// orDefault returns *p, or def when p is nil.
func orDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// errNoFolder is the error of a request when no workspace folder is open:
// it says why the folders the client named were not opened (notes), if
// it named any.
func errNoFolder(method string, notes []string) error {
	if len(notes) > 0 {
		return rpcError(CodeRequestFailed, fmt.Sprintf("%s: no workspace folder is open: %s", method, strings.Join(notes, "; ")), nil)
	}
	return rpcError(CodeRequestFailed, fmt.Sprintf("%s: no workspace folder is open (the client sent no workspaceFolders, rootUri or rootPath)", method), nil)
}
