// Package semantic is ctxls's dense retrieval channel: vectors for chunks
// and queries learned from the workspace itself, at index time, with no
// model to download and nothing sent off the machine.
//
// # The workspace embedder
//
// Every chunk becomes a bag of terms: the code analyzer's terms
// (index/analysis: identifiers whole and by camelCase / snake_case part,
// lowercased) of its path, its doc comment and its text, minus English
// function words and the keywords of common languages. Terms found in at
// least Options.MinDF chunks make the vocabulary (the Options.MaxVocab
// most frequent, ties by term). A chunk's row weighs each term by
// (1 + ln tf)·idf and is scaled to unit length; a deterministic sample of
// at most Options.MaxTrain rows (every k-th chunk in path order) makes the
// training matrix X, whose top Options.Dim right singular vectors are
// computed by a randomized SVD (Halko, Martinsson and Tropp: a Gaussian
// test matrix from a fixed seed, Options.PowerIters power iterations,
// gonum for the dense steps). A term's vector is its row of those
// singular vectors, scaled by the singular values to the power
// Options.SigmaExp: latent semantic indexing. Terms that occur in the same
// chunks — a comment's "initialization" and the code's init, a question's
// words and the identifiers that implement them — get near vectors.
//
// A chunk's vector is the weighted sum of its terms' vectors, unit
// length, quantized to int8 with one float scale; a query's vector is the
// idf-weighted sum of its terms'. Search is exact: the dot product of the
// query with every chunk of the snapshot, top k above a similarity floor,
// ties broken by path and chunk ordinal. The dot products are integer
// sums, computed by an AVX2 routine where the machine has one
// (dot_amd64.s) and by a Go loop elsewhere: the same numbers either way.
//
// # State
//
// A Store holds the model and each file's vectors, keyed by the file's
// content hash: Sync brings a store to a snapshot by embedding only the
// files whose content changed, with the model it has; files unknown to a
// store are not searched. The model is trained again when the workspace
// has drifted from what it was trained on: when the share of the indexed
// term occurrences the model does not know has grown by
// Options.RetrainDrift since training, or the share of files not as they
// were at training has passed Options.RetrainFiles. The store is kept
// beside the index (CacheFile, laid out in vecfile.go: a checksum, a
// version, the vectors read in place), so a
// restart loads it instead of training again. A store and a snapshot
// determine the answer: same files and same store, same vectors, same
// ranking.
//
// Every caller reuses the model the cache holds: a one-shot run (the CLI,
// Load) syncs the cached store to its snapshot, the servers keep it
// current in the background (Tracker). The vectors are then a function of
// the indexed content and the model, whose identity (Store.ModelID, a
// hash of the model) the answers carry beside the content's state root,
// so that the same state gives the same answer; Load with retrain (ctxls
// index --retrain) trains a new model whatever the drift.
//
// Compose makes one store of several, each with its own model and files
// (the repositories of a union): a query is embedded by each part's model,
// each part's files searched with it, and the hits merged by the same
// total order; its identity hashes the parts' in order.
//
// # An embeddings service
//
// Opt-in, an Endpoint (any OpenAI-compatible POST …/embeddings) computes
// the vectors instead (BuildEndpoint, LoadEndpoint): each chunk's text is
// sent once per tracking hash, in batches, with retries; the question is
// embedded by the same service at each request; a failure is told once
// and the channel gives nothing meanwhile.
//
// The package does no retrieval fusion; retrieve's semantic channel does.
package semantic
