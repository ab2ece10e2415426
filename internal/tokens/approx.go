package tokens

// Approx is the "approx" encoding: ceil(len(text)/4), counting bytes. It is
// a cheap estimate for tests and for callers that do not need exact counts;
// it is not additive in the sense of Counter.
type Approx struct{}

// Name implements Counter.
func (Approx) Name() string { return "approx" }

// Count implements Counter.
func (Approx) Count(text string) int { return (len(text) + 3) / 4 }
