package access

import (
	"fmt"
	"sync"
	"time"
)

// RefusalLog writes the log lines of refused clients, at most one per
// Every: refusing a forged token costs the server little, and a client
// sending them as fast as it can must not fill the log. The lines held
// back are counted, and the next line written says how many there were.
type RefusalLog struct {
	logf  func(format string, args ...any)
	every time.Duration

	mu      sync.Mutex
	last    time.Time // when the last line was written
	dropped int       // lines held back since
}

// DefaultRefusalEvery is how often a RefusalLog writes a line at most.
const DefaultRefusalEvery = time.Second

// NewRefusalLog returns a RefusalLog writing to logf at most one line per
// every (0: DefaultRefusalEvery).
func NewRefusalLog(logf func(format string, args ...any), every time.Duration) *RefusalLog {
	if every <= 0 {
		every = DefaultRefusalEvery
	}
	return &RefusalLog{logf: logf, every: every}
}

// Logf writes the line unless one was written within the last Every (it
// is then counted).
func (l *RefusalLog) Logf(format string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.dropped++
		l.mu.Unlock()
		return
	}
	dropped := l.dropped
	l.last, l.dropped = now, 0
	l.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	if dropped > 0 {
		msg += fmt.Sprintf(" (and %d more refusals since the last such line)", dropped)
	}
	l.logf("%s", msg)
}
