// Command run is the quality evaluation of ctxls: it runs ctxls, its
// ablations and the BM25 baseline over the cases of eval/cases.json and
// prints the summary tables (see docs/quality.md).
//
//	go run ./eval/cmd/run -repos-dir DIR [-repo logrus,click] [-limit 5] [-budgets 2000] [-ablations=false]
//	                      [-weights lexical=1,symbol=2] [-opts rrfk=30,lexicalk=200] [-out FILE] [-doc FILE]
//
// Repositories are git directories found under -repos-dir (or
// $EVAL_REPOS_DIR) as owner+name/repo, owner+name.git, owner/name.git, …,
// or named one by one with -repos owner/name=DIR,….
package main
