package assemble

import "maps"

// Checked is a Request whose parameters Check accepted, with its format
// and strategy filled in. Only Check makes one (its zero value is refused
// by AssembleChecked), so a caller that checked a request once — the
// retrieval engine's plan — hands it on without it being checked again.
type Checked struct {
	req Request
	ok  bool
}

// Check checks a request's budget, format and strategy (in that order)
// and returns it checked. Errors are *ParamError naming the field.
func (r Request) Check() (Checked, error) {
	if err := r.Budget.Validate(); err != nil {
		return Checked{}, err
	}
	var err error
	if r.Format, err = ParseFormat(string(r.Format)); err != nil {
		return Checked{}, err
	}
	if r.Strategy, err = ParseStrategy(string(r.Strategy)); err != nil {
		return Checked{}, err
	}
	return Checked{req: r, ok: true}, nil
}

// Request returns the checked request (a copy).
func (c Checked) Request() Request {
	r := c.req
	r.Budget.Reserves = maps.Clone(r.Budget.Reserves)
	return r
}

// WithPolicy returns c with policy p (a policy is not checked: Assemble
// reads any).
func (c Checked) WithPolicy(p Policy) Checked {
	c.req.Policy = p
	return c
}

// WithPerFileCap returns c with a per-file cap of n tokens (at least 1)
// when it has none.
func (c Checked) WithPerFileCap(n int) Checked {
	if c.req.Budget.PerFileMaxTokens == 0 {
		c.req.Budget.PerFileMaxTokens = max(1, n)
	}
	return c
}

// WithReserve returns c with n tokens (kept between 0 and the budget)
// reserved for the candidates of reserve name.
func (c Checked) WithReserve(name string, n int) Checked {
	c.req.Budget.Reserves = maps.Clone(c.req.Budget.Reserves)
	if c.req.Budget.Reserves == nil {
		c.req.Budget.Reserves = map[string]int{}
	}
	c.req.Budget.Reserves[name] = min(max(n, 0), c.req.Budget.MaxTokens)
	return c
}

// WithMaxTokens returns c with a budget of n tokens (kept between 1 and
// the checked budget: a budget is only ever narrowed), its reserves kept
// within it.
func (c Checked) WithMaxTokens(n int) Checked {
	b := &c.req.Budget
	b.MaxTokens = min(max(n, 1), b.MaxTokens)
	if len(b.Reserves) > 0 {
		b.Reserves = maps.Clone(b.Reserves)
		for k, v := range b.Reserves {
			b.Reserves[k] = min(v, b.MaxTokens)
		}
	}
	return c
}
