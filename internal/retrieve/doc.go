// Package retrieve answers "which code should the model read" for a request
// (a question, a cursor, a diff) over one index snapshot: it analyzes the
// query, runs the candidate channels, fuses their rankings deterministically
// (weighted reciprocal rank fusion, ties by path then line), ranks down what
// a code question rarely needs first — by a file's role (roles.go: tests,
// vendored or generated code, tooling), prose, and text constants
// (literals.go) — and hands the candidates to package assemble.
//
// The request's path through the package, a file per stage:
//
//   - engine.go: the Engine's entry points: Plan checks a request once,
//     AssemblePlan runs a plan (Assemble is both); plan.go: the Plan, the
//     only thing AssemblePlan runs — its request, parsed diff, weights and
//     the assembler's checked request — and the one focus check, on the
//     snapshot the request reads (Plan.focusIn). Expand requests go the
//     same way (PlanExpand, ExpandPlan; explain.go).
//   - channels.go: the channel table — every channel (lexical.go,
//     symbol.go, path.go, focus.go, diffchannel.go, graph.go, overview.go,
//     semantic.go, activity.go, history.go, neighbor.go), in the order it
//     runs. Each channel's file holds its code, its options struct
//     (embedded in Options, options.go) and its per-request state
//     (embedded in run, run.go).
//   - defaults.json (read by defaults.go): the defaults as data — each
//     channel's weight and knobs, the engine's and the steps' knobs —
//     beside the file model's fitted weights (filemodel.json).
//   - fusion.go: runs the channels and fuses their rankings.
//   - priors.go: the steps after fusion that rank kinds of files down or
//     up; filerank.go: the file model's order of the best files.
//   - candidates.go, review.go, focusrank.go, hitlines.go: shape the best
//     chunks into the assembler's candidates (reserves, skeletons, maps,
//     a change's reach — under review, and in the related mode from
//     Options.RelatedReachFrom —, the lines a trimmed or cut part keeps).
//   - resolver.go: the Resolver an engine may be given (WithResolver;
//     package refs implements it for Go): a review's callers and the
//     definitions its changed lines use, and the cursor's definition of a
//     name defined in many places, by types where they tell, by name
//     elsewhere. This package does not import refs (refs imports it).
//
// It reads an *index.Snapshot and never writes the index; it knows nothing
// of LSP or of the command line.
package retrieve
