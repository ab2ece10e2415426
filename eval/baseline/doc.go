// Package baseline is the retriever ctxls is measured against: BM25
// (k1 1.2, b 0.75) over fixed line windows of every indexed file, with
// identifier splitting (each identifier gives itself and its camelCase and
// snake_case parts, lower-cased). Its best windows become assembler
// candidates, so the baseline goes through the same packer and renderer as
// ctxls and only the retrieval differs.
//
// It is deliberately plain: no stop words, no stemming, no field boosts, no
// path matching.
package baseline
