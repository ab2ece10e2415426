// Command mine adds one repository's cases to eval/cases.json: it walks the
// repository's history, keeps the commits that make good cases and records
// a deterministic sample of them (replacing that repository's earlier
// cases). With -all it mines again every repository of the cases file at
// its recorded head, which reproduces the file.
//
//	go run ./eval/cmd/mine -repo GITDIR -name owner/name [-query 16] [-diff 7]
//	go run ./eval/cmd/mine -all -repos-dir DIR
package main
