package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// clientCallTimeout bounds how long the server waits for the client to
// answer one of its requests.
const clientCallTimeout = 30 * time.Second

// callClient sends a request to the client and waits for its answer. It
// must not run on the read goroutine (the answer arrives there).
func (s *session) callClient(method string, params, result any) error {
	c := s.conn.Load()
	if c == nil {
		return jsonrpc2.ErrClosed
	}
	ctx, cancel := context.WithTimeout(s.ctx, clientCallTimeout)
	defer cancel()
	if err := c.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// notifyClient sends a notification to the client.
func (s *session) notifyClient(method string, params any) {
	c := s.conn.Load()
	if c == nil {
		return
	}
	if err := c.Notify(context.Background(), method, params); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		s.logf("notify %s: %v", method, err)
	}
}

// logMessage sends window/logMessage.
func (s *session) logMessage(typ int, msg string) {
	s.notifyClient(methodLogMessage, LogMessageParams{Type: typ, Message: msg})
}

// showMessage sends window/showMessage (the editor shows it to the user).
func (s *session) showMessage(typ int, msg string) {
	s.notifyClient(methodShowMessage, ShowMessageParams{Type: typ, Message: msg})
}

// fetchConfiguration asks the client for the "ctxls" settings section and
// applies it.
func (s *session) fetchConfiguration() {
	var items []json.RawMessage
	err := s.callClient(methodConfiguration, ConfigurationParams{Items: []ConfigurationItem{{Section: configSection}}}, &items)
	if err != nil {
		if s.ctx.Err() == nil {
			s.logf("%v", err)
		}
		return
	}
	var raw json.RawMessage
	if len(items) > 0 {
		raw = items[0]
	}
	s.setConfig(raw)
}

// setConfig replaces the client's settings layer with raw and recomputes
// the settings in effect; invalid values are reported to the client and
// skipped.
func (s *session) setConfig(raw json.RawMessage) {
	s.mu.Lock()
	settings, problems := defaultSettings().apply(s.initOptions, s.tokens)
	settings, more := settings.apply(settingsPayload(raw), s.tokens)
	settings, restricted := s.restrictSettings(settings)
	more = append(more, restricted...)
	s.settings = settings
	s.mu.Unlock()
	for _, msg := range append(problems, more...) {
		s.logf("%s", msg)
		s.logMessage(messageTypeWarning, "ctxls: "+msg)
	}
}

// registerWatchers asks the client to send workspace/didChangeWatchedFiles
// for every file (it is only called when the client allows dynamic
// registration).
func (s *session) registerWatchers() {
	params := RegistrationParams{Registrations: []Registration{{
		ID:     watchRegistrationID,
		Method: methodDidChangeWatchedFiles,
		RegisterOptions: DidChangeWatchedFilesRegistrationOptions{
			Watchers: []FileSystemWatcher{{GlobPattern: watcherGlob}},
		},
	}}}
	if err := s.callClient(methodRegisterCapability, params, nil); err != nil && s.ctx.Err() == nil {
		s.logf("%v", err)
	}
}

// reportIndexing reports a folder's first index build as work-done
// progress ($/progress) when the client supports it: begin, a report every
// progressInterval with files done and a percentage, end.
func (s *session) reportIndexing(f *folder) {
	s.mu.Lock()
	supported := s.caps.Window.WorkDoneProgress
	s.nextTok++
	token := fmt.Sprintf("%s%d", progressTokenPrefix, s.nextTok)
	s.mu.Unlock()
	select {
	case <-f.built:
		return // nothing to report
	case <-f.ctx.Done():
		return
	default:
	}
	if !supported {
		s.logMessage(messageTypeInfo, fmt.Sprintf("ctxls: indexing %s…", f.name))
		return
	}
	if err := s.callClient(methodWorkDoneProgressCreate, WorkDoneProgressCreateParams{Token: token}, nil); err != nil {
		if s.ctx.Err() == nil {
			s.logf("%v", err)
		}
		return
	}
	zero := 0
	s.notifyClient(methodProgress, ProgressParams{Token: token, Value: WorkDoneProgressBegin{
		Kind: "begin", Title: "Indexing " + f.name, Percentage: &zero,
	}})
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	last := ""
	for {
		select {
		case <-f.built:
			msg := "done"
			if f.buildErr != nil {
				msg = "failed: " + f.buildErr.Error()
			} else if r := f.rt.Load(); r != nil && r.Index() != nil {
				st := r.Index().Stats()
				msg = fmt.Sprintf("%d files, %d chunks", st.Files, st.Chunks)
			}
			s.notifyClient(methodProgress, ProgressParams{Token: token, Value: WorkDoneProgressEnd{Kind: "end", Message: msg}})
			return
		case <-f.ctx.Done():
			s.notifyClient(methodProgress, ProgressParams{Token: token, Value: WorkDoneProgressEnd{Kind: "end", Message: "stopped"}})
			return
		case <-t.C:
		}
		p := f.progress()
		if p == nil || p.FilesTotal == 0 {
			continue
		}
		pct := min(99, 100*p.FilesDone/p.FilesTotal)
		msg := fmt.Sprintf("%d/%d files", p.FilesDone, p.FilesTotal)
		if msg == last {
			continue
		}
		last = msg
		s.notifyClient(methodProgress, ProgressParams{Token: token, Value: WorkDoneProgressReport{
			Kind: "report", Message: msg, Percentage: &pct,
		}})
	}
}

// progressInterval is how often indexing progress is reported.
const progressInterval = 200 * time.Millisecond
