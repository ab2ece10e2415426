package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/workspace"
)

// FindSymbolInput is find_symbol's arguments.
type FindSymbolInput struct {
	Name       string   `json:"name" jsonschema:"a name (Stitch, parse_request) or a qualified name (ranges.Stitch, Server.handle)"`
	References bool     `json:"references,omitempty" jsonschema:"also list the code units that use the name"`
	Budget     *Budget  `json:"budget,omitempty" jsonschema:"token budget of the listing (maxTokens only; default 2000)"`
	Encoding   string   `json:"encoding,omitempty" jsonschema:"the tokenizer the budget counts in (default cl100k_base)"`
	Root       string   `json:"root,omitempty" jsonschema:"which root to search when the server has several"`
	Repo       string   `json:"repo,omitempty" jsonschema:"on a server of an index store: the repository to read (list_repos lists them); required when the token may read several"`
	Repos      []string `json:"repos,omitempty" jsonschema:"on a server of an index store: several repositories (or '*': every one the token may read) read as one tree, each repository's paths under its name: one ranked context across them"`
}

// SymbolDef is one definition.
type SymbolDef struct {
	Path          string `json:"path"`
	StartLine     int    `json:"startLine"`
	EndLine       int    `json:"endLine"`
	Kind          string `json:"kind"`
	Symbol        string `json:"symbol"`
	QualifiedName string `json:"qualifiedName,omitempty"`
	Language      string `json:"language"`
	Signature     string `json:"signature"`
	Doc           string `json:"doc,omitempty" jsonschema:"the first line of its doc comment"`
	Handle        string `json:"handle" jsonschema:"pass to expand_context to read the whole unit"`
}

// SymbolRef is one code unit that references the name.
type SymbolRef struct {
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Symbol    string `json:"symbol,omitempty" jsonschema:"the enclosing unit"`
	Handle    string `json:"handle"`
}

// FindSymbolOutput is find_symbol's structured result.
type FindSymbolOutput struct {
	Root             string      `json:"root"`
	Name             string      `json:"name"`
	Definitions      []SymbolDef `json:"definitions"`
	References       []SymbolRef `json:"references"`
	TotalDefinitions int         `json:"totalDefinitions"`
	TotalReferences  int         `json:"totalReferences"`
	Tokens           int         `json:"tokens" jsonschema:"tokens of the text listing"`
	Truncated        bool        `json:"truncated" jsonschema:"true when the budget left some out"`
	IndexState       string      `json:"indexState"`
	IndexComplete    bool        `json:"indexComplete"`
}

// findSymbol is the find_symbol tool.
func (s *Server) findSymbol(ctx context.Context, req *sdk.CallToolRequest, in FindSymbolInput) (*sdk.CallToolResult, FindSymbolOutput, error) {
	out := FindSymbolOutput{Definitions: []SymbolDef{}, References: []SymbolRef{}}
	name := strings.TrimSpace(in.Name)
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return nil, out, argError("name", "%q: want one identifier or qualified name, e.g. Stitch or ranges.Stitch", in.Name)
	}
	out.Name = name
	encoding := in.Encoding
	if encoding == "" {
		encoding = retrieve.DefaultEncoding
	}
	counter, err := s.opts.Tokens.Get(encoding)
	if err != nil {
		return nil, out, argError("encoding", "%v", err)
	}
	budget := budgetOf(in.Budget, DefaultSymbolTokens)
	if err := budget.Validate(); err != nil {
		return nil, out, paramErr(err)
	}
	roots, err := s.callRoots(ctx, req)
	if err != nil {
		return nil, out, err
	}
	root, err := s.target(roots, in.Root, in.Repo, in.Repos, "")
	if err != nil {
		return nil, out, err
	}
	out.Root = displayRoot(root)
	v, err := s.view(ctx, req, root)
	if err != nil {
		return nil, out, err
	}
	defer v.Done()
	snap := v.Snap
	out.IndexState, out.IndexComplete = snap.StateRoot(), snap.Complete()

	defs, refs := workspace.FindSymbol(snap, name, in.References)
	out.TotalDefinitions, out.TotalReferences = len(defs), len(refs)

	// The listing: one line per definition, then per reference, as many as
	// the budget holds. Every line ends with "\n" and the next starts with
	// a character that is neither space nor '/', so the text's tokens are
	// the sum of its lines' (tokens.Counter's additivity); the whole is
	// counted once more to verify.
	var lines []string
	var defLines, refLines []int // index into lines of each listed entry
	used := 0
	add := func(line string) bool {
		n := counter.Count(line)
		if used+n > budget.MaxTokens {
			return false
		}
		lines = append(lines, line)
		used += n
		return true
	}
	// Every name printed (the asked name, the root, paths, signatures,
	// doc lines, symbols) is escaped onto its line (assemble.InlineText):
	// a file name may hold a line break and a code fence.
	head := fmt.Sprintf("Definitions of %s in %s: %d\n", assemble.InlineText(name), assemble.InlineText(root), len(defs))
	if len(defs) == 0 {
		head = fmt.Sprintf("No definition of %s in %s", assemble.InlineText(name), assemble.InlineText(root))
		if !snap.Complete() {
			head += " (still indexing: try again shortly)"
		}
		head += ".\n"
	}
	full := add(head)
	for _, d := range defs {
		if !full {
			break
		}
		sd := symbolDef(d)
		line := fmt.Sprintf("%s:%d-%d %s %s", sd.Path, sd.StartLine, sd.EndLine, sd.Kind, sd.Signature)
		if sd.Doc != "" {
			line += "  — " + sd.Doc
		}
		if full = add(assemble.InlineText(line) + "\n"); full {
			out.Definitions = append(out.Definitions, sd)
			defLines = append(defLines, len(lines)-1)
		}
	}
	if in.References && full {
		full = add(fmt.Sprintf("References to %s: %d\n", assemble.InlineText(workspace.LastName(name)), len(refs)))
		for _, r := range refs {
			if !full {
				break
			}
			sr := symbolRef(r)
			line := fmt.Sprintf("%s:%d-%d", sr.Path, sr.StartLine, sr.EndLine)
			if sr.Symbol != "" {
				line += " in " + sr.Symbol
			}
			if full = add(assemble.InlineText(line) + "\n"); full {
				out.References = append(out.References, sr)
				refLines = append(refLines, len(lines)-1)
			}
		}
	}
	text := strings.Join(lines, "")
	// Verify; drop listed entries from the end while over (never expected).
	for counter.Count(text) > budget.MaxTokens && len(lines) > 0 {
		lines = lines[:len(lines)-1]
		for len(refLines) > 0 && refLines[len(refLines)-1] >= len(lines) {
			refLines = refLines[:len(refLines)-1]
			out.References = out.References[:len(out.References)-1]
		}
		for len(defLines) > 0 && defLines[len(defLines)-1] >= len(lines) {
			defLines = defLines[:len(defLines)-1]
			out.Definitions = out.Definitions[:len(out.Definitions)-1]
		}
		text = strings.Join(lines, "")
	}
	out.Tokens = counter.Count(text)
	out.Truncated = len(out.Definitions) < len(defs) || len(out.References) < len(refs)
	if text == "" {
		text = "(the budget holds nothing)"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

func symbolDef(c workspace.Unit) SymbolDef {
	sig := oneLine(c.Signature, 240)
	if sig == "" {
		sig = c.Symbol
	}
	return SymbolDef{
		Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Kind: c.Kind, Symbol: c.Symbol,
		QualifiedName: c.QualifiedName, Language: c.Language, Signature: sig, Doc: docLine(c.Doc),
		Handle: assemble.Handle(c.Path, []ranges.Range{{Start: c.StartLine, End: c.EndLine}}),
	}
}

func symbolRef(c workspace.Unit) SymbolRef {
	sym := c.QualifiedName
	if sym == "" {
		sym = c.Symbol
	}
	return SymbolRef{Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: sym,
		Handle: assemble.Handle(c.Path, []ranges.Range{{Start: c.StartLine, End: c.EndLine}})}
}

// oneLine collapses white space and cuts s to at most n bytes (on a rune
// boundary, with "…").
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// docLine is the first line of a unit's doc comment, comment markers
// removed.
func docLine(doc string) string {
	for _, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimLeft(l, "/#*!-;\"'")
		l = strings.TrimSpace(l)
		if l != "" {
			return oneLine(l, 160)
		}
	}
	return ""
}
