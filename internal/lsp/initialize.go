package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/ctxls/ctxls/internal/assemble"
)

// initialize handles "initialize": it records the client's capabilities
// and settings (initializationOptions), opens the workspace folders
// (workspaceFolders, else rootUri, else rootPath) and advertises what the
// server does. Null or absent params are an initialize without folders.
// Under an access policy (Options.Access) the token is checked first (a
// failure ends the connection) and every folder named must be allowed.
func (s *session) initialize(ctx *requestCtx, params json.RawMessage) (any, error) {
	var p InitializeParams
	if !isNull(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			e := paramError("params", "malformed initialize params: %v", err)
			if s.opts.Access != nil {
				return nil, &refusal{e} // the token cannot be read
			}
			return nil, e
		}
	}
	if s.opts.Access != nil {
		if err := s.admit(&p); err != nil {
			return nil, err
		}
	}
	folders, problems := initialFolders(p)
	if s.opts.Repos != nil {
		// A server of a store: the folders name repositories, wherever
		// the client keeps its copies.
		folders, problems = p.WorkspaceFolders, nil
	}
	for _, msg := range problems {
		s.logf("initialize: %s", msg)
		s.logMessage(messageTypeWarning, "ctxls: "+msg)
	}

	s.mu.Lock()
	s.caps = p.Capabilities
	s.initOptions = settingsPayload(p.InitializationOptions)
	settings, bad := defaultSettings().apply(s.initOptions, s.tokens)
	settings, restricted := s.restrictSettings(settings)
	bad = append(bad, restricted...)
	s.settings = settings
	s.state = stateInitialized
	for _, wf := range folders {
		s.addFolderLocked(wf)
	}
	s.mu.Unlock()
	for _, msg := range bad {
		s.logMessage(messageTypeWarning, "ctxls: initializationOptions: "+msg)
	}
	if p.ClientInfo != nil {
		s.logf("client: %s %s", p.ClientInfo.Name, p.ClientInfo.Version)
	}
	if p.ProcessID != nil && *p.ProcessID > 0 && *p.ProcessID != os.Getpid() {
		go s.watchParent(*p.ProcessID)
	}
	return s.initializeResult(), nil
}

// initialFolders reads the workspace folders of initialize: the
// workspaceFolders list, else rootUri, else rootPath (a plain path, maybe
// with a trailing slash). Folders that are not local directories are
// reported and left out.
func initialFolders(p InitializeParams) ([]WorkspaceFolder, []string) {
	var problems []string
	var out []WorkspaceFolder
	seen := map[string]bool{}
	add := func(wf WorkspaceFolder, root string, err error) {
		if err == nil {
			var st os.FileInfo
			if st, err = os.Stat(root); err == nil && !st.IsDir() {
				err = fmt.Errorf("%s is not a directory", root)
			}
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("workspace folder %q left out: %v", wf.URI, err))
			return
		}
		if !seen[root] {
			seen[root] = true
			out = append(out, wf)
		}
	}
	switch {
	case len(p.WorkspaceFolders) > 0:
		for _, wf := range p.WorkspaceFolders {
			root, err := uriToPath(wf.URI)
			add(wf, root, err)
		}
	case p.RootURI != nil && *p.RootURI != "":
		root, err := uriToPath(*p.RootURI)
		add(WorkspaceFolder{URI: *p.RootURI}, root, err)
	case p.RootPath != nil && *p.RootPath != "":
		root, err := rootPathOf(*p.RootPath)
		add(WorkspaceFolder{URI: pathToURI(root)}, root, err)
	}
	return out, problems
}

// initializeResult is what the server advertises.
func (s *session) initializeResult() InitializeResult {
	return InitializeResult{
		Capabilities: ServerCapabilities{
			TextDocumentSync: TextDocumentSyncOptions{OpenClose: true, Change: textDocumentSyncKindIncremental},
			Workspace: WorkspaceCapabilities{WorkspaceFolders: WorkspaceFoldersServerCapabilities{
				Supported: true, ChangeNotifications: true,
			}},
			Experimental: map[string]any{
				"contextAssemble": ContextAssembleCapability{
					Version:    contextAssembleVersion,
					Formats:    assemble.Formats(),
					Encodings:  s.tokens.Known(),
					Strategies: assemble.Strategies(),
					Expand:     true,
					References: true,
				},
			},
		},
		ServerInfo: ServerInfo{Name: serverName, Version: s.opts.Version},
	}
}

// watchParent ends the session when the client process (initialize's
// processId) is gone, as the protocol asks: an editor that crashed sends
// no exit.
func (s *session) watchParent(pid int) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		if err := processGone(pid); err != nil {
			s.logf("client process %d is gone (%v): ending the session", pid, err)
			if c := s.conn.Load(); c != nil {
				c.Close()
			}
			return
		}
	}
}
