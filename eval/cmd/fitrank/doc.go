// Command fitrank fits the file model's weights (retrieve/filerank.go) on
// an eval run's explanations: for each case of the task (-task query or
// diff), the files that carry file features, the gold files among them
// the targets of a softmax over the case's files (listwise,
// L2-regularised, fitted by Adam from the channels' own order). It prints
// the weights as the "question" or "diff" object of retrieve/filemodel.json
// (one per line, by feature name) and the first gold
// file's reciprocal rank among the ranked files before and after, on the
// fitted cases and on -test's.
//
//	go run ./eval/cmd/run -repos-dir DIR -task query -budgets 2000 -systems ctxls -ablations=false -explain -out F
//	go run ./eval/cmd/fitrank -results F [-cases eval/cases.json] [-test G -test-cases eval/heldout.json] [-fix literal]
//
// The diff weights are fitted on two runs of the diff task, with history
// and without (-weights history=0), read together: -task diff -results F1,F2.
//
// The features are recorded before the model moves anything, so a run
// with the model on serves as well as one with it off.
package main
