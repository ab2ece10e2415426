package lsp

import "encoding/json"

// The wire types of the LSP messages this server reads and writes: only the
// fields it uses. They are declared here rather than taken from
// go.lsp.dev/protocol v0.12.0 because that package (LSP 3.15/3.16) cannot
// tell a full-text change from an edit at 0:0 (TextDocumentContentChangeEvent
// has a non-pointer Range), decodes the whole client-capabilities tree with
// strict types (a newer client's shape would fail initialize) and pulls
// go.lsp.dev/jsonrpc2 v0.10.0 and zap into the binary. Unknown fields are
// ignored when decoding.

// Method names.
const (
	methodInitialize                = "initialize"
	methodInitialized               = "initialized"
	methodShutdown                  = "shutdown"
	methodExit                      = "exit"
	methodCancelRequest             = "$/cancelRequest"
	methodProgress                  = "$/progress"
	methodDidOpen                   = "textDocument/didOpen"
	methodDidChange                 = "textDocument/didChange"
	methodDidClose                  = "textDocument/didClose"
	methodDidSave                   = "textDocument/didSave"
	methodDidChangeWorkspaceFolders = "workspace/didChangeWorkspaceFolders"
	methodDidChangeConfiguration    = "workspace/didChangeConfiguration"
	methodDidChangeWatchedFiles     = "workspace/didChangeWatchedFiles"
	methodContextAssemble           = "context/assemble"
	methodContextExpand             = "context/expand"
	methodContextReferences         = "context/references"
	methodContextImpact             = "context/impact"

	// Server to client.
	methodConfiguration          = "workspace/configuration"
	methodRegisterCapability     = "client/registerCapability"
	methodLogMessage             = "window/logMessage"
	methodShowMessage            = "window/showMessage"
	methodWorkDoneProgressCreate = "window/workDoneProgress/create"
)

// Protocol constants.
const (
	textDocumentSyncKindIncremental = 2

	fileChangeTypeCreated = 1
	fileChangeTypeChanged = 2
	fileChangeTypeDeleted = 3

	messageTypeError   = 1
	messageTypeWarning = 2
	messageTypeInfo    = 3
)

// Names this server uses on the wire.
const (
	serverName = "ctxls"
	// configSection is the workspace/configuration section of the settings.
	configSection = "ctxls"
	// watchRegistrationID names the dynamic didChangeWatchedFiles registration.
	watchRegistrationID = "ctxls-watched-files"
	// watcherGlob is what the server asks the client to watch.
	watcherGlob = "**/*"
	// progressTokenPrefix starts the work-done progress tokens of indexing.
	progressTokenPrefix = "ctxls/index/"
	// contextAssembleVersion is the version of context/assemble and
	// context/expand advertised under experimental.contextAssemble.
	contextAssembleVersion = 1
)

// Position is a 0-based line and a character offset in UTF-16 code units.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a 0-based LSP range; End is exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// WorkspaceFolder is a root the client has open.
type WorkspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// InitializeParams are the parts of initialize's params the server reads.
type InitializeParams struct {
	ProcessID             *int               `json:"processId"`
	ClientInfo            *ClientInfo        `json:"clientInfo"`
	RootPath              *string            `json:"rootPath"`
	RootURI               *string            `json:"rootUri"`
	InitializationOptions json.RawMessage    `json:"initializationOptions"`
	Capabilities          ClientCapabilities `json:"capabilities"`
	WorkspaceFolders      []WorkspaceFolder  `json:"workspaceFolders"`
}

// ClientInfo names the client.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ClientCapabilities are the client capabilities the server acts on.
type ClientCapabilities struct {
	Workspace struct {
		Configuration         bool `json:"configuration"`
		WorkspaceFolders      bool `json:"workspaceFolders"`
		DidChangeWatchedFiles struct {
			DynamicRegistration bool `json:"dynamicRegistration"`
		} `json:"didChangeWatchedFiles"`
	} `json:"workspace"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
	} `json:"window"`
}

// InitializeResult is initialize's answer.
type InitializeResult struct {
	Capabilities ServerCapabilities `json:"capabilities"`
	ServerInfo   ServerInfo         `json:"serverInfo"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ServerCapabilities are what the server advertises.
type ServerCapabilities struct {
	TextDocumentSync TextDocumentSyncOptions `json:"textDocumentSync"`
	Workspace        WorkspaceCapabilities   `json:"workspace"`
	Experimental     map[string]any          `json:"experimental"`
}

// TextDocumentSyncOptions says how documents are synchronized.
type TextDocumentSyncOptions struct {
	OpenClose bool `json:"openClose"`
	Change    int  `json:"change"`
}

// WorkspaceCapabilities is the workspace part of ServerCapabilities.
type WorkspaceCapabilities struct {
	WorkspaceFolders WorkspaceFoldersServerCapabilities `json:"workspaceFolders"`
}

// WorkspaceFoldersServerCapabilities advertises multi-root support.
type WorkspaceFoldersServerCapabilities struct {
	Supported           bool `json:"supported"`
	ChangeNotifications bool `json:"changeNotifications"`
}

// ContextAssembleCapability is advertised under
// capabilities.experimental.contextAssemble.
type ContextAssembleCapability struct {
	Version    int      `json:"version"`
	Formats    []string `json:"formats"`
	Encodings  []string `json:"encodings"`
	Strategies []string `json:"strategies"`
	// Expand says that context/expand is served too.
	Expand bool `json:"expand"`
	// References says that context/references and context/impact are
	// served too.
	References bool `json:"references"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// TextDocumentItem is an opened document.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

// DidOpenTextDocumentParams are didOpen's params.
type DidOpenTextDocumentParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// VersionedTextDocumentIdentifier names a document at a version.
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

// TextDocumentContentChangeEvent is one change: a replacement of Range, or
// of the whole text when Range is absent.
type TextDocumentContentChangeEvent struct {
	Range *Range `json:"range"`
	Text  string `json:"text"`
}

// DidChangeTextDocumentParams are didChange's params.
type DidChangeTextDocumentParams struct {
	TextDocument   VersionedTextDocumentIdentifier  `json:"textDocument"`
	ContentChanges []TextDocumentContentChangeEvent `json:"contentChanges"`
}

// DidCloseTextDocumentParams are didClose's params.
type DidCloseTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// DidChangeWorkspaceFoldersParams are didChangeWorkspaceFolders' params.
type DidChangeWorkspaceFoldersParams struct {
	Event struct {
		Added   []WorkspaceFolder `json:"added"`
		Removed []WorkspaceFolder `json:"removed"`
	} `json:"event"`
}

// DidChangeConfigurationParams are didChangeConfiguration's params.
type DidChangeConfigurationParams struct {
	Settings json.RawMessage `json:"settings"`
}

// FileEvent is one watched-file change.
type FileEvent struct {
	URI  string `json:"uri"`
	Type int    `json:"type"`
}

// DidChangeWatchedFilesParams are didChangeWatchedFiles' params.
type DidChangeWatchedFilesParams struct {
	Changes []FileEvent `json:"changes"`
}

// ConfigurationParams are workspace/configuration's params.
type ConfigurationParams struct {
	Items []ConfigurationItem `json:"items"`
}

// ConfigurationItem asks for one settings section.
type ConfigurationItem struct {
	ScopeURI string `json:"scopeUri,omitempty"`
	Section  string `json:"section,omitempty"`
}

// RegistrationParams are client/registerCapability's params.
type RegistrationParams struct {
	Registrations []Registration `json:"registrations"`
}

// Registration is one dynamic registration.
type Registration struct {
	ID              string `json:"id"`
	Method          string `json:"method"`
	RegisterOptions any    `json:"registerOptions,omitempty"`
}

// DidChangeWatchedFilesRegistrationOptions lists the watchers.
type DidChangeWatchedFilesRegistrationOptions struct {
	Watchers []FileSystemWatcher `json:"watchers"`
}

// FileSystemWatcher is one glob the client watches.
type FileSystemWatcher struct {
	GlobPattern string `json:"globPattern"`
}

// LogMessageParams are window/logMessage's params.
type LogMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// ShowMessageParams are window/showMessage's params.
type ShowMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// WorkDoneProgressCreateParams are window/workDoneProgress/create's params.
type WorkDoneProgressCreateParams struct {
	Token string `json:"token"`
}

// ProgressParams are $/progress params.
type ProgressParams struct {
	Token string `json:"token"`
	Value any    `json:"value"`
}

// WorkDoneProgressBegin starts a progress.
type WorkDoneProgressBegin struct {
	Kind        string `json:"kind"` // "begin"
	Title       string `json:"title"`
	Cancellable bool   `json:"cancellable"`
	Message     string `json:"message,omitempty"`
	Percentage  *int   `json:"percentage,omitempty"`
}

// WorkDoneProgressReport reports on a progress.
type WorkDoneProgressReport struct {
	Kind       string `json:"kind"` // "report"
	Message    string `json:"message,omitempty"`
	Percentage *int   `json:"percentage,omitempty"`
}

// WorkDoneProgressEnd ends a progress.
type WorkDoneProgressEnd struct {
	Kind    string `json:"kind"` // "end"
	Message string `json:"message,omitempty"`
}

// CancelParams are $/cancelRequest's params; ID is a number or a string.
type CancelParams struct {
	ID json.RawMessage `json:"id"`
}
