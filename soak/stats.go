package soak

import (
	"math"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Latency summarizes a set of round-trip times, in milliseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50Ms"`
	P95 float64 `json:"p95Ms"`
	Max float64 `json:"maxMs"`
}

// summarize computes a Latency (nearest-rank percentiles).
func summarize(ms []float64) Latency {
	if len(ms) == 0 {
		return Latency{}
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	rank := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return round2(s[max(i, 0)])
	}
	return Latency{N: len(s), P50: rank(0.50), P95: rank(0.95), Max: round2(s[len(s)-1])}
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// MethodCount counts the requests of one method.
type MethodCount struct {
	Requests int `json:"requests"`
	// Errors are answers that break a promise: any JSON-RPC error, but
	// RequestCancelled to a cancelled request; a timeout; the connection
	// ending.
	Errors int `json:"errors"`
	// Cancelled: requests cancelled right after they were sent;
	// CancelledAnswered of them got RequestCancelled (the others a
	// result, which is allowed).
	Cancelled         int `json:"cancelled,omitempty"`
	CancelledAnswered int `json:"cancelledAnswered,omitempty"`
	// ErrorCodes counts Errors by JSON-RPC code ("timeout", "closed"
	// otherwise).
	ErrorCodes map[string]int `json:"errorCodes,omitempty"`
}

// recorder collects the counts and latencies of one phase.
type recorder struct {
	mu      sync.Mutex
	methods map[string]*MethodCount
	notes   map[string]int // notifications sent, by method
	lat     map[string][]float64
}

func newRecorder() *recorder {
	return &recorder{methods: map[string]*MethodCount{}, notes: map[string]int{}, lat: map[string][]float64{}}
}

func (r *recorder) method(m string) *MethodCount {
	c := r.methods[m]
	if c == nil {
		c = &MethodCount{}
		r.methods[m] = c
	}
	return c
}

// request records one request: its answer's error (nil for a result),
// whether it was cancelled, and its round trip under the latency key
// (none when "").
func (r *recorder) request(method string, err error, cancelled bool, key string, d time.Duration) (broken bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.method(method)
	c.Requests++
	if cancelled {
		c.Cancelled++
	}
	if err != nil {
		code := "other"
		if e, ok := err.(*rpcError); ok {
			code = strconv.Itoa(e.Code)
			if cancelled && e.Code == codeRequestCancelled {
				c.CancelledAnswered++
				return false
			}
		} else if err == errConnClosed {
			code = "closed"
		} else {
			code = "timeout"
		}
		c.Errors++
		if c.ErrorCodes == nil {
			c.ErrorCodes = map[string]int{}
		}
		c.ErrorCodes[code]++
		return true
	}
	if key != "" {
		r.lat[key] = append(r.lat[key], float64(d.Microseconds())/1000)
	}
	return false
}

// notified records a notification sent.
func (r *recorder) notified(method string) {
	r.mu.Lock()
	r.notes[method]++
	r.mu.Unlock()
}

// latency summarizes the round trips recorded under key.
func (r *recorder) latency(key string) Latency {
	r.mu.Lock()
	defer r.mu.Unlock()
	return summarize(r.lat[key])
}

// latencyOf summarizes the round trips of several keys together.
func (r *recorder) latencyOf(keys ...string) Latency {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []float64
	for _, k := range keys {
		all = append(all, r.lat[k]...)
	}
	return summarize(all)
}

// snapshot copies the counts.
func (r *recorder) snapshot() (map[string]MethodCount, map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]MethodCount, len(r.methods))
	for k, v := range r.methods {
		m[k] = *v
	}
	n := make(map[string]int, len(r.notes))
	for k, v := range r.notes {
		n[k] = v
	}
	return m, n
}

// others summarizes every latency key but context/assemble's.
func (r *recorder) others() map[string]Latency {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]Latency{}
	for k, v := range r.lat {
		if k != latAssembleComplete && k != latAssembleIndexing {
			out[k] = summarize(v)
		}
	}
	return out
}

// latencyAdd adds a round trip under key.
func (r *recorder) latencyAdd(key string, d time.Duration) {
	r.mu.Lock()
	r.lat[key] = append(r.lat[key], float64(d.Microseconds())/1000)
	r.mu.Unlock()
}
