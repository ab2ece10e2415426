// Command losses tells where a run's gold lines went and how far ranking
// alone could take it: for each case of a task and budget, every gold line
// is shown, or lost in one of five places —
//
//   - trimmed: in a candidate the context shows, but not on a shown line;
//   - unit over budget: its file is shown, the unit holding it was left out;
//   - no unit: its file is shown, no candidate holds the line;
//   - file over budget: its file is not shown, a candidate holds the line;
//   - no file: neither its file nor the line is among the candidates —
//
// and three ceilings bound what a better order of the same candidates
// could reach:
//
//   - file recall: the share of gold files among the candidates;
//   - line recall with the right files: the content budget split evenly
//     among the gold files, each filled in the run's own order of its
//     units;
//   - line recall with the right files and units: the same, each file's
//     gold units first (densest first).
//
// A unit's cost in the ceilings is its lines times the case's tokens per
// shown line (headers included); a unit is shown whole or not at all. Means
// are per case, like the metrics.
//
//	go run ./eval/cmd/run -repos-dir DIR -task query -systems ctxls -ablations=false -explain -parts -out F
//	go run ./eval/cmd/losses -results F [-cases eval/cases.json] [-task query] [-budgets 2000,8000]
package main
