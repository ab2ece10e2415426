#!/usr/bin/env python3
"""ctxls's find_references against gopls's references on a Go repository.

    scripts/refs-vs-gopls.py REPO [--ctxls BIN] [--gopls BIN] [--samples N]
                             [--seed S] [--no-gopls] [--watch] [--json OUT]

Samples declarations of REPO's non-test Go files (its own module: nested
modules, vendor, testdata and hidden directories are skipped): functions,
methods (half of them with a common name: Close, Write, String, Get, …) and
struct fields, a third each, in a seeded order. For each, asks one warm
gopls process (gopls serve over stdio, textDocument/references without the
declaration) and one warm ctxls process (ctxls mcp over stdio, the
find_references tool at the same position, a budget that holds everything),
and compares the sites (path, line, byte column): precision and recall over
all sites (micro) and the share of samples that agree exactly, and the time
of each call (the first call of each server, which loads the workspace, is
reported apart). With --no-gopls only ctxls is timed. ctxls runs with
--no-watch, each call refreshing its index first (a walk of the tree),
unless --watch: then it watches the tree, as ctxls mcp does by default,
and a call reads the index as it is.

The ctxls index lives in a temporary directory removed at the end. Not a
test: the figures depend on the machine.
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

COMMON = {"Close", "Write", "String", "Get", "Read", "Set", "Error", "ServeHTTP", "Len", "Reset", "Add", "Next", "Run", "Name"}

FUNC = re.compile(r"^func ([A-Za-z_]\w*)\s*[\[(]")
METHOD = re.compile(r"^func \(\s*(?:\w+\s+)?\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*([A-Za-z_]\w*)\s*[\[(]")
STRUCT = re.compile(r"^type ([A-Za-z_]\w*)(?:\[[^\]]*\])? struct \{\s*$")
FIELD = re.compile(r"^\t([A-Za-z_]\w*)((?:\s*,\s*[A-Za-z_]\w*)*)\s+[^\s,/]")


def go_files(repo):
    for d, dirs, files in os.walk(repo):
        rel = os.path.relpath(d, repo)
        keep = []
        for x in sorted(dirs):
            if x.startswith((".", "_")) or x in ("testdata", "vendor"):
                continue
            if os.path.exists(os.path.join(d, x, "go.mod")):
                continue
            keep.append(x)
        dirs[:] = keep
        for f in sorted(files):
            if f.endswith(".go") and not f.endswith("_test.go"):
                yield os.path.normpath(os.path.join(rel, f)).replace(os.sep, "/")


def declarations(repo):
    funcs, methods, fields = [], [], []
    for rel in go_files(repo):
        with open(os.path.join(repo, rel), encoding="utf-8", errors="replace") as fh:
            lines = fh.read().split("\n")
        in_struct = False
        for i, line in enumerate(lines):
            if in_struct:
                if line.startswith("}"):
                    in_struct = False
                    continue
                m = FIELD.match(line)
                if m and not line.strip().startswith("//"):
                    fields.append((rel, i + 1, m.start(1) + 1, m.group(1)))
                continue
            if STRUCT.match(line):
                in_struct = True
                continue
            m = METHOD.match(line)
            if m:
                methods.append((rel, i + 1, m.start(2) + 1, m.group(1) + "." + m.group(2)))
                continue
            m = FUNC.match(line)
            if m and m.group(1) not in ("init", "main"):
                funcs.append((rel, i + 1, m.start(1) + 1, m.group(1)))
    return funcs, methods, fields


def sample(repo, n, seed):
    funcs, methods, fields = declarations(repo)
    rnd = random.Random(seed)
    for xs in (funcs, methods, fields):
        rnd.shuffle(xs)
    common = [m for m in methods if m[3].split(".")[1] in COMMON]
    other = [m for m in methods if m[3].split(".")[1] not in COMMON]
    k = n // 3
    picked = [("function", f) for f in funcs[:k]]
    picked += [("method", m) for m in common[: (n - 2 * k) // 2]]
    picked += [("method", m) for m in other[: (n - 2 * k) - min(len(common), (n - 2 * k) // 2)]]
    picked += [("field", f) for f in fields[:k]]
    return picked


class Stdio:
    """A JSON-RPC peer over a child's stdio: LSP framing or newline-delimited."""

    def __init__(self, argv, cwd, framed):
        self.p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.framed = framed
        self.next = 0

    def send(self, msg):
        b = json.dumps(msg).encode()
        if self.framed:
            self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
        else:
            self.p.stdin.write(b + b"\n")
        self.p.stdin.flush()

    def recv(self):
        if not self.framed:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("server closed its output")
            return json.loads(line)
        n = 0
        while True:
            h = self.p.stdout.readline()
            if not h:
                raise EOFError("server closed its output")
            h = h.strip()
            if not h:
                break
            if h.lower().startswith(b"content-length:"):
                n = int(h.split(b":")[1])
        return json.loads(self.p.stdout.read(n))

    def call(self, method, params):
        self.next += 1
        rid = self.next
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = self.recv()
            if m.get("id") == rid and "method" not in m:
                return m
            if "method" in m and "id" in m:  # a request of the server's: answer emptily
                res = None
                if m["method"] == "workspace/configuration":
                    res = [None] * len(m["params"].get("items", []))
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": res})

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=20)
        except Exception:
            self.p.kill()


def utf16_to_byte(text_line, ch):
    b = text_line.encode("utf-16-le")[: 2 * ch].decode("utf-16-le", errors="ignore")
    return len(b.encode("utf-8"))


def gopls_session(gopls, repo):
    s = Stdio([gopls, "serve"], repo, True)
    uri = "file://" + os.path.abspath(repo)
    s.call("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": {},
                          "workspaceFolders": [{"uri": uri, "name": "repo"}]})
    s.notify("initialized", {})
    return s


def gopls_refs(s, repo, rel, line, col, cache):
    uri = "file://" + os.path.join(os.path.abspath(repo), rel)
    r = s.call("textDocument/references", {"textDocument": {"uri": uri}, "position": {"line": line - 1, "character": col - 1},
                                           "context": {"includeDeclaration": False}})
    if "error" in r:
        return None
    out = set()
    root = os.path.abspath(repo) + "/"
    for loc in r.get("result") or []:
        p = loc["uri"][len("file://"):]
        if not p.startswith(root):
            continue
        p = p[len(root):]
        ln = loc["range"]["start"]["line"]
        if p not in cache:
            with open(os.path.join(repo, p), encoding="utf-8", errors="replace") as fh:
                cache[p] = fh.read().split("\n")
        text = cache[p][ln] if ln < len(cache[p]) else ""
        out.add((p, ln + 1, utf16_to_byte(text, loc["range"]["start"]["character"]) + 1))
    return out


def ctxls_session(ctxls, repo, cache_dir, watch):
    args = [ctxls, "mcp", "--root", os.path.abspath(repo), "--cache-dir", cache_dir, "--embeddings", "off", "--git-history=false"]
    if not watch:
        args.append("--no-watch")
    s = Stdio(args, repo, False)
    s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "refs-vs-gopls", "version": "1"}})
    s.notify("notifications/initialized", {})
    return s


def ctxls_refs(s, rel, line, col):
    r = s.call("tools/call", {"name": "find_references", "arguments": {"path": rel, "line": line, "column": col,
                                                                        "budget": {"maxTokens": 10000000}}})
    res = r.get("result") or {}
    if res.get("isError") or "structuredContent" not in res:
        return None, False
    sc = res["structuredContent"]
    return {(x["path"], x["line"], x.get("column", 0)) for x in sc["references"]}, sc.get("exact", False)


def cpu_ms(proc):
    """The CPU time (user + system) a child has used so far, in ms (Linux)."""
    try:
        with open("/proc/%d/stat" % proc.pid) as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--ctxls", default="bin/ctxls")
    ap.add_argument("--gopls", default=shutil.which("gopls") or "gopls")
    ap.add_argument("--samples", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-gopls", action="store_true")
    ap.add_argument("--watch", action="store_true", help="run ctxls mcp watching the tree, as it runs by default (without: --no-watch, so that every call first refreshes the index, walking the tree)")
    ap.add_argument("--passes", type=int, default=2, help="ask every sample this many times; the times are the last pass's (warm)")
    ap.add_argument("--json", help="write every sample's comparison here")
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)
    ctxls = os.path.abspath(a.ctxls)
    picked = sample(repo, a.samples, a.seed)
    tmp = tempfile.mkdtemp(prefix="refs-vs-gopls-")
    try:
        t0 = time.time()
        subprocess.run([ctxls, "index", "--root", repo, "--cache-dir", tmp, "--embeddings", "off", "--git-history=false"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        index_s = time.time() - t0
        cs = ctxls_session(ctxls, repo, tmp, a.watch)
        gs = None if a.no_gopls else gopls_session(a.gopls, repo)
        rows, cache = [], {}
        ctimes, gtimes, cfirst, gfirst = [], [], None, None
        cpass1, gpass1 = [], []
        for _ in range(a.passes - 1):
            for kind, (rel, line, col, name) in picked:
                t = time.perf_counter()
                ctxls_refs(cs, rel, line, col)
                cpass1.append((time.perf_counter() - t) * 1000)
                if gs:
                    t = time.perf_counter()
                    gopls_refs(gs, repo, rel, line, col, cache)
                    gpass1.append((time.perf_counter() - t) * 1000)
        ccpu, gcpu = [], []
        for kind, (rel, line, col, name) in picked:
            t, u = time.perf_counter(), cpu_ms(cs.p)
            c, exact = ctxls_refs(cs, rel, line, col)
            dt = (time.perf_counter() - t) * 1000
            ccpu.append(cpu_ms(cs.p) - u)
            if cfirst is None and not cpass1:
                cfirst = dt
            else:
                ctimes.append(dt)
            g = None
            if gs:
                t, u = time.perf_counter(), cpu_ms(gs.p)
                g = gopls_refs(gs, repo, rel, line, col, cache)
                dt = (time.perf_counter() - t) * 1000
                gcpu.append(cpu_ms(gs.p) - u)
                if gfirst is None and not gpass1:
                    gfirst = dt
                else:
                    gtimes.append(dt)
            rows.append({"kind": kind, "name": name, "at": "%s:%d:%d" % (rel, line, col), "ctxls": sorted(c) if c is not None else None,
                         "exact": exact, "gopls": sorted(g) if g is not None else None})
        cs.close()
        if gs:
            gs.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("repository: %s (%d samples: %s)" % (os.path.basename(repo), len(rows),
                                               ", ".join("%d %ss" % (sum(1 for r in rows if r["kind"] == k), k) for k in ("function", "method", "field"))))
    print("ctxls index: %.1f s" % index_s)
    if cpass1:
        n = len(picked)
        print("ctxls first pass: first call %.0f ms, then p50 %.1f ms, p95 %.1f ms, max %.1f ms" %
              (cpass1[0], pct(cpass1[1:n], .5), pct(cpass1[1:n], .95), max(cpass1[1:n] or [0])))
    print("ctxls%s: p50 %.1f ms, p95 %.1f ms, max %.1f ms%s; the server's CPU per call p50 %.0f ms, p95 %.0f ms" % (
        " warm (last pass)" if cpass1 else "", pct(ctimes, .5), pct(ctimes, .95), max(ctimes or [0]),
        "" if cpass1 else " (first call %.0f ms)" % (cfirst or 0), pct(ccpu, .5), pct(ccpu, .95)))
    if not a.no_gopls:
        if gpass1:
            n = len(picked)
            print("gopls first pass: first call %.0f ms, then p50 %.1f ms, p95 %.1f ms" % (gpass1[0], pct(gpass1[1:n], .5), pct(gpass1[1:n], .95)))
        print("gopls%s: p50 %.1f ms, p95 %.1f ms, max %.1f ms; the server's CPU per call p50 %.0f ms, p95 %.0f ms" % (
            " warm (last pass)" if gpass1 else "", pct(gtimes, .5), pct(gtimes, .95), max(gtimes or [0]), pct(gcpu, .5), pct(gcpu, .95)))
        tp = fp = fn = agree = n = 0
        by_kind = {}
        for r in rows:
            if r["gopls"] is None:
                continue
            g = {tuple(x) for x in r["gopls"]}
            c = {tuple(x) for x in (r["ctxls"] or [])}
            n += 1
            tp += len(g & c)
            fp += len(c - g)
            fn += len(g - c)
            same = g == c
            agree += same
            k = by_kind.setdefault(r["kind"], [0, 0])
            k[0] += same
            k[1] += 1
            if not same:
                print("  differs: %s %s %s: missing %s extra %s" % (r["kind"], r["name"], r["at"], sorted(g - c)[:4], sorted(c - g)[:4]))
        p = tp / (tp + fp) if tp + fp else 1.0
        rc = tp / (tp + fn) if tp + fn else 1.0
        print("sites: %d by gopls, %d by ctxls, %d shared: precision %.3f, recall %.3f" % (tp + fn, tp + fp, tp, p, rc))
        print("samples agreeing exactly: %d of %d (%s)" % (agree, n, ", ".join("%s %d/%d" % (k, v[0], v[1]) for k, v in sorted(by_kind.items()))))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
