// Package baseline holds the retrievers ctxls is measured against, each
// written for this eval from the published algorithm; their results
// become assembler candidates, so every peer goes through the same packer
// and renderer as ctxls and only the retrieval differs.
//
//   - Index: plain BM25 (k1 1.2, b 0.75) over fixed line windows of every
//     indexed file, with identifier splitting (each identifier gives itself
//     and its camelCase and snake_case parts, lower-cased). Deliberately
//     plain: no stop words, no stemming, no field boosts, no path matching.
//   - Zoekt: a zoekt-like search. Files are ranked by BM25F over the path,
//     the names the file defines (zoekt's ctags symbols) and the text,
//     path and symbol matches counting 5 times and tests, vendored and
//     generated files a fifth; each of the best files gives the windows
//     around its densest hits.
//   - RepoMap: an aider-like repository map. PageRank over the graph of
//     files (a file referring to a name points to the files defining it),
//     personalised by the chat files and the files the message names or
//     whose path components it mentions; the best definitions' one-line
//     signatures.
package baseline
