#!/usr/bin/env python3
"""Does a nonlinear file model rank the gold files higher than the linear one?

An offline check of the file model (retrieve/filerank.go): the per-file
features that ctxls records with --explain (an eval run's -explain results)
are read back, and a logistic regression and gradient-boosted trees are
fitted leaving one repository out at a time. The measure is the first gold
file's reciprocal rank among a case's ranked files, as in the tuning log of
docs/quality.md; "pipeline" is the order the run itself showed.

Needs scikit-learn (Debian: apt-get install python3-sklearn; run it with the
Python that has it, e.g. /usr/bin/python3). About 3 minutes on two cores.

  go run ./eval/cmd/run -task query -budgets 2000 -explain -ablations=false \
      -systems ctxls -out /tmp/q.jsonl
  go run ./eval/cmd/run -task query -budgets 2000 -explain -ablations=false \
      -systems ctxls -cases eval/heldout.json -out /tmp/h.jsonl
  /usr/bin/python3 scripts/filerank-nonlinear.py /tmp/q.jsonl eval/cases.json \
      /tmp/h.jsonl eval/heldout.json 2000
"""

import collections
import json
import sys
import warnings

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression


def load(results, cases_file, budget):
    """Rows of (case, repo, gold, shown place, features) per ranked file."""
    cases = {c["id"]: c for c in json.load(open(cases_file))["cases"]}
    names, rows = None, []
    for line in open(results):
        r = json.loads(line)
        if r["system"] != "ctxls" or r["budget"] != budget or not r.get("explain"):
            continue
        gold = {g["path"] for g in cases[r["case"]]["gold"]}
        files = {}
        for e in r["explain"]:
            if e.get("fileFeatures") and e["path"] not in files:
                files[e["path"]] = e["fileFeatures"]
        for path in sorted(files):
            ff = files[path]
            if names is None:
                names = sorted(ff)
            shown = r["files"].index(path) if path in r["files"] else -1
            rows.append((r["case"], r["repo"], int(path in gold), shown, [ff.get(k, 0.0) for k in names]))
    if not rows:
        sys.exit(f"{results}: no ctxls results with file features at budget {budget} (run with -explain)")
    X = np.array([row[4] for row in rows])
    y = np.array([row[2] for row in rows])
    shown = np.array([row[3] for row in rows])
    rank = X[:, names.index("rank")]
    # The run's own order: the shown files first, in order, then the rest by the model's rank.
    pipeline = np.where(shown >= 0, 1000.0 - shown, -rank)
    return [row[0] for row in rows], np.array([row[1] for row in rows]), X, y, pipeline


def first_gold_rr(scores, y, case):
    by = collections.defaultdict(list)
    for s, t, c in zip(scores, y, case):
        by[c].append((-s, t))
    total = 0.0
    for items in by.values():
        items.sort(key=lambda x: x[0])
        total += next((1.0 / (i + 1) for i, (_, t) in enumerate(items) if t), 0.0)
    return total / len(by)


MODELS = {
    "logistic regression": lambda: LogisticRegression(C=1.0, max_iter=2000),
    "boosted trees (depth 3, 100)": lambda: GradientBoostingClassifier(
        max_depth=3, n_estimators=100, learning_rate=0.05, subsample=0.8, random_state=0),
}


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    warnings.filterwarnings("ignore")
    budget = int(sys.argv[5])
    case, repo, X, y, pipeline = load(sys.argv[1], sys.argv[2], budget)
    hcase, _, hX, hy, hpipeline = load(sys.argv[3], sys.argv[4], budget)
    print(f"eval: {len(set(case))} cases, {len(y)} ranked files; held-out: {len(set(hcase))} cases")
    print(f"pipeline order: eval {first_gold_rr(pipeline, y, case):.3f}, held-out {first_gold_rr(hpipeline, hy, hcase):.3f}")
    for name, make in MODELS.items():
        loo = np.zeros(len(y))
        for r in sorted(set(repo)):
            m = make()
            m.fit(X[repo != r], y[repo != r])
            loo[repo == r] = m.predict_proba(X[repo == r])[:, 1]
        m = make()
        m.fit(X, y)
        held = m.predict_proba(hX)[:, 1]
        print(f"{name}: eval, one repository left out {first_gold_rr(loo, y, case):.3f}; "
              f"held-out, fitted on the eval {first_gold_rr(held, hy, hcase):.3f}")


if __name__ == "__main__":
    main()
