package cli

import (
	"fmt"
	"io"
	"sync"

	"github.com/schollz/progressbar/v3"

	ws "github.com/ctxls/ctxls/internal/workspace"
)

// progressBar shows indexing progress on a terminal (files, MB/s, ETA).
// A nil *progressBar does nothing.
type progressBar struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w} }

func (p *progressBar) update(pr ws.Progress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		if pr.BytesTotal <= 0 {
			return
		}
		p.bar = progressbar.NewOptions64(pr.BytesTotal,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription("indexing"),
			progressbar.OptionShowBytes(true),

			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100_000_000),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.Describe(fmt.Sprintf("indexing %d/%d files", pr.FilesDone, pr.FilesTotal))
	_ = p.bar.Set64(pr.BytesDone)
}

func (p *progressBar) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
