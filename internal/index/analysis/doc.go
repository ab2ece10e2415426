// Package analysis is the code-aware text analysis shared by the index and
// by query analysis: it splits source text into identifiers and numbers, and
// each identifier into its camelCase, snake_case and digit-run parts, keeping
// the whole identifier too, all lowercased.
//
//	parseHTTPRequest   → parsehttprequest parse http request
//	parse_http_request → parse_http_request parse http request
//	ParseHTTP2Request  → parsehttp2request parse http2 request
//
// Digits stay with the letters before them (http2, utf8, int64): those are
// names in their own right, and a query for "http2" should not match every
// "http". Terms of one byte are dropped (loop variables, single digits): they
// carry no retrieval signal and make up a large share of all tokens.
//
// Visit gives the terms of a text in order with their offsets, Counter their
// frequencies (what the index stores), Terms and Split the distinct terms of
// a query.
//
// The package does no I/O and holds no mutable state.
package analysis
