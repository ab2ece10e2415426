package pgstore

import (
	"errors"
	"net/url"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// A connection string holds the store's password in one of these places,
// each of which Redact masks:
//
//   - a URL's userinfo: postgres://user:PASSWORD@host/db;
//   - a URL's query: postgres://user@host/db?password=PASSWORD (also
//     sslpassword, the client key's passphrase; the key may be
//     percent-encoded, pass%77ord);
//   - a keyword/value string: host=h password=PASSWORD, password='PASS
//     WORD' (quoted, with \' and \\ escapes), password = PASSWORD.
//
// The parse mirrors the one pgx and libpq do; where a string is malformed
// and the boundaries are ambiguous, more is masked rather than less.

// mask replaces every secret in a message.
const mask = "xxxxx"

// secretSpan is the byte range [start, end) of a secret in a connection string.
type secretSpan struct{ start, end int }

// secretKey reports whether a setting's key names a secret.
func secretKey(k string) bool {
	k = strings.ToLower(strings.TrimSpace(k))
	return k == "password" || k == "sslpassword"
}

// isURL reports whether dsn is in URL form, and the length of its
// scheme's prefix.
func isURL(dsn string) (int, bool) {
	for _, p := range []string{"postgresql://", "postgres://"} {
		if len(dsn) >= len(p) && strings.EqualFold(dsn[:len(p)], p) {
			return len(p), true
		}
	}
	return 0, false
}

// secretSpans returns the ranges of dsn that hold a secret, sorted and
// merged.
func secretSpans(dsn string) []secretSpan {
	var spans []secretSpan
	if n, ok := isURL(dsn); ok {
		spans = urlSpans(dsn, n)
	} else {
		spans = keywordSpans(dsn)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var out []secretSpan
	for _, s := range spans {
		if s.end <= s.start {
			continue
		}
		if k := len(out) - 1; k >= 0 && s.start <= out[k].end {
			out[k].end = max(out[k].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// urlSpans finds the secrets of a URL whose scheme ends at offset n.
func urlSpans(dsn string, n int) []secretSpan {
	var spans []secretSpan
	p := dsn[n:]
	rest := n // offset of what follows the userinfo
	// The userinfo ends at the first '@' before any '/' (libpq's and pgx's
	// lookahead): its password is what follows the first ':'.
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		if c := strings.IndexByte(p[:i], ':'); c >= 0 {
			spans = append(spans, secretSpan{n + c + 1, n + i})
		}
		rest = n + i + 1
	}
	// An '@' after that: a password with an unencoded '/', '?' or '@' moved
	// the userinfo's end (postgres://user:pass/word@host), or an '@' is
	// data (in a query value). Which one cannot be told: everything from
	// the userinfo's password (else the first ':') up to the last '@' is
	// masked.
	if at := strings.LastIndexByte(dsn[rest:], '@'); at >= 0 {
		from := rest
		if len(spans) > 0 {
			from = spans[0].start
		} else if c := strings.IndexByte(dsn[rest:rest+at], ':'); c >= 0 {
			from = rest + c + 1
		}
		spans = append(spans, secretSpan{from, rest + at})
	}
	// The query: '&'-separated key=value pairs, keys percent-decoded.
	if q := strings.IndexByte(dsn[rest:], '?'); q >= 0 {
		off := rest + q + 1
		for _, pair := range strings.Split(dsn[off:], "&") {
			if k, _, ok := strings.Cut(pair, "="); ok {
				key, err := url.PathUnescape(k)
				if err != nil {
					key = k
				}
				if secretKey(key) {
					spans = append(spans, secretSpan{off + len(k) + 1, off + len(pair)})
				}
			}
			off += len(pair) + 1
		}
	}
	return spans
}

// isSpace is libpq's white space in a keyword/value string.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// pair is a keyword/value string's setting: its key, and the byte range
// of its value as written (quotes included).
type pair struct {
	key        string
	start, end int
}

// keywordPairs parses a keyword/value string as libpq does. bad is where
// the string stops parsing (a keyword without '=', a keyword with a space
// in it, an unterminated quote), or -1.
func keywordPairs(s string) (pairs []pair, bad int) {
	i := 0
	skip := func() {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
	}
	for skip(); i < len(s); skip() {
		pairStart := i
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return pairs, pairStart
		}
		key := strings.TrimRight(s[i:i+eq], " \t\n\r\v\f")
		if key == "" || strings.ContainsAny(key, " \t\n\r\v\f") {
			return pairs, pairStart
		}
		i += eq + 1
		skip()
		start := i
		if i < len(s) && s[i] == '\'' {
			i++
			for i < len(s) && s[i] != '\'' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(s) {
				return pairs, pairStart
			}
			i++ // the closing quote
		} else {
			for i < len(s) && !isSpace(s[i]) {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i = min(i, len(s))
		}
		pairs = append(pairs, pair{key, start, i})
	}
	return pairs, -1
}

// keywordSpans finds the secrets of a keyword/value string. From where
// the string stops parsing to its end everything is masked.
func keywordSpans(s string) []secretSpan {
	var spans []secretSpan
	pairs, bad := keywordPairs(s)
	for _, p := range pairs {
		if secretKey(p.key) {
			spans = append(spans, secretSpan{p.start, p.end})
		}
	}
	if bad >= 0 {
		spans = append(spans, secretSpan{bad, len(s)})
	}
	return spans
}

// Redact returns the connection string dsn with every password in it
// replaced by xxxxx, for messages: the URL's userinfo password, the
// password and sslpassword settings of a URL's query or of a keyword/value
// string.
func Redact(dsn string) string {
	spans := secretSpans(dsn)
	if len(spans) == 0 {
		return dsn
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(dsn[last:s.start])
		b.WriteString(mask)
		last = s.end
	}
	b.WriteString(dsn[last:])
	return b.String()
}

// HasPassword reports whether the connection string dsn itself holds a
// password (or a client key's passphrase). A keyword/value string that
// stops parsing holds one when the rest names one.
func HasPassword(dsn string) bool {
	dsn = strings.TrimSpace(dsn)
	if _, ok := isURL(dsn); ok {
		return len(secretSpans(dsn)) > 0
	}
	pairs, bad := keywordPairs(dsn)
	for _, p := range pairs {
		if secretKey(p.key) && p.end > p.start {
			return true
		}
	}
	return bad >= 0 && strings.Contains(strings.ToLower(dsn[bad:]), "password")
}

// secrets returns the secrets of dsn as they may appear in a message: as
// written, and decoded (percent-decoded, quotes and escapes removed).
func secrets(dsn string) []string {
	var out []string
	for _, s := range secretSpans(dsn) {
		raw := dsn[s.start:s.end]
		out = append(out, raw)
		if d, err := url.PathUnescape(raw); err == nil && d != raw {
			out = append(out, d)
		}
		if u := unquote(raw); u != raw {
			out = append(out, u)
		}
	}
	// The longest first: a secret that holds another is replaced whole.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// unquote undoes a keyword/value string's quoting and escapes.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		v = v[1 : len(v)-1]
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// scrub returns msg with the connection string dsn redacted in it, and
// every secret of dsn, however it was written into msg, replaced.
func scrub(msg, dsn string) string {
	if dsn != "" {
		msg = strings.ReplaceAll(msg, dsn, Redact(dsn))
	}
	for _, s := range secrets(dsn) {
		if s != "" && s != mask {
			msg = strings.ReplaceAll(msg, s, mask)
		}
	}
	return msg
}

// scrubbed is an error whose message has its connection string's secrets
// removed (scrub); errors.Is and errors.As see the error it wraps.
type scrubbed struct {
	err error
	dsn string
	msg string // the message to scrub instead of err's, if not ""
}

func (e *scrubbed) Error() string {
	m := e.msg
	if m == "" {
		m = e.err.Error()
	}
	return scrub(m, e.dsn)
}

func (e *scrubbed) Unwrap() error { return e.err }

// parseError is the error of a connection string dsn that pgx cannot
// parse. pgx quotes the string in its message with the passwords it
// recognises masked; where a password is malformed, a part of it may
// remain (password=pass\ word leaves " word"). The quoted string is
// replaced by Redact's.
func parseError(err error, dsn string) error {
	e := &scrubbed{err: err, dsn: dsn}
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		const prefix = "cannot parse `"
		e.msg = "cannot parse " + Redact(pe.ConnString)
		if m := pe.Error(); strings.HasPrefix(m, prefix) {
			if i := strings.LastIndex(m, "`: "); i >= len(prefix) {
				e.msg += ": " + m[i+len("`: "):]
			}
		}
	}
	return &URLError{Err: e}
}
