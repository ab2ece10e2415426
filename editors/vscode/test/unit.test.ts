// The extension's logic without a server: params from editor states,
// settings, the binary lookup, the status bar model, error messages.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { findBinary, INSTALL_COMMAND } from "../src/binary";
import { Commands, describeError, summary, viewTitle, type Host, type PickItem } from "../src/commands";
import { stderrLine } from "../src/log";
import { assembleParams, diffParams, focusOf, prefill, PREFILL_LIMIT, type EditorState } from "../src/params";
import { IndexStatus } from "../src/progress";
import type { AssembleResult } from "../src/protocol";
import {
  answerConfiguration,
  CLIENT_SETTING_KEYS,
  languageOfFormat,
  SERVER_SETTING_KEYS,
  serverSettings,
} from "../src/settings";

const uri = "file:///ws/pricing/tax.go";
const at = (line: number, character: number) => ({ line, character });

test("a cursor in a workspace file is the focus; the question is optional", () => {
  const state: EditorState = {
    document: { uri, scheme: "file", inWorkspace: true },
    selection: { start: at(20, 5), end: at(20, 5), active: at(20, 5), text: "" },
  };
  assert.equal(prefill(state), "");
  assert.deepEqual(assembleParams(state, "  "), { ok: true, params: { focus: { uri, position: at(20, 5) } } });
  assert.deepEqual(assembleParams(state, " how is tax computed "), {
    ok: true,
    params: { query: "how is tax computed", focus: { uri, position: at(20, 5) } },
  });
});

test("a selection pre-fills the question (one line, capped) and its start is the focus", () => {
  const state: EditorState = {
    document: { uri, scheme: "file", inWorkspace: true },
    // selected bottom-up: the cursor (active) is at the start
    selection: { start: at(19, 0), end: at(22, 1), active: at(22, 1), text: "func Tax(region string,\n\tcents int64) int64 {\n}" },
  };
  assert.equal(prefill(state), "func Tax(region string, cents int64) int64 { }");
  assert.deepEqual(focusOf(state), { uri, position: at(19, 0) });
  const long: EditorState = { ...state, selection: { ...state.selection!, text: "x".repeat(PREFILL_LIMIT + 50) } };
  assert.equal(prefill(long).length, PREFILL_LIMIT);
});

test("no focus outside the workspace or for unsaved documents; then a question is required", () => {
  const sel = { start: at(1, 0), end: at(1, 0), active: at(1, 0), text: "" };
  for (const document of [
    { uri: "untitled:Untitled-1", scheme: "untitled", inWorkspace: false },
    { uri: "file:///elsewhere/x.go", scheme: "file", inWorkspace: false },
  ]) {
    const state: EditorState = { document, selection: sel };
    assert.equal(focusOf(state), undefined);
    const r = assembleParams(state, "");
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : "", /type a question/);
    assert.deepEqual(assembleParams(state, "q"), { ok: true, params: { query: "q" } });
  }
  assert.equal(assembleParams({}, "").ok, false);
});

test("an empty diff is not sent", () => {
  assert.equal(diffParams(" \n").ok, false);
  // Context for the changes asks in the review mode unless the setting says related.
  assert.deepEqual(diffParams("diff --git a/x b/x\n"), { ok: true, params: { diff: "diff --git a/x b/x\n", mode: "review" } });
  assert.deepEqual(diffParams("diff --git a/x b/x\n", "related"), { ok: true, params: { diff: "diff --git a/x b/x\n", mode: "related" } });
  assert.deepEqual(diffParams("diff --git a/x b/x\n", "audit"), { ok: true, params: { diff: "diff --git a/x b/x\n", mode: "review" } });
});

test("settings: the server's shape, budget nested, unset and mistyped values left out", () => {
  const values: Record<string, unknown> = {
    "budget.maxTokens": 3000,
    "budget.perFileMaxTokens": 0,
    "budget.perPartMaxTokens": "many",
    encoding: "o200k_base",
    format: "",
    strategy: "score",
    include: ["**/*.go", 7],
    exclude: [],
    gitHistory: false,
    embeddings: "off",
    "embeddingsEndpoint.url": "http://127.0.0.1:11434/v1",
    "embeddingsEndpoint.model": "nomic-embed-text",
    "embeddingsEndpoint.dimensions": 0,
    "embeddingsEndpoint.keyEnv": "",
    activity: false,
    path: "/opt/ctxls",
  };
  assert.deepEqual(serverSettings((k) => values[k]), {
    budget: { maxTokens: 3000, perFileMaxTokens: 0 },
    encoding: "o200k_base",
    strategy: "score",
    include: ["**/*.go"],
    exclude: [],
    gitHistory: false,
    embeddings: "off",
    embeddingsEndpoint: { url: "http://127.0.0.1:11434/v1", model: "nomic-embed-text" },
    activity: false,
  });
  assert.deepEqual(serverSettings((k) => (k === "gitHistory" ? "no" : undefined)), {});
  assert.deepEqual(serverSettings(() => undefined), {});
  const answer = answerConfiguration([{ section: "ctxls" }, { section: "go" }], () => ({ format: "xml" }));
  assert.deepEqual(answer, [{ format: "xml" }, null]);
  assert.equal(answerConfiguration([{ section: "go" }], () => ({})), undefined);
  assert.equal(languageOfFormat(undefined), "markdown");
  assert.equal(languageOfFormat("xml"), "xml");
  assert.equal(languageOfFormat("json"), "json");
});

test("package.json declares every setting and command the extension uses", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const props = Object.keys(pkg.contributes.configuration.properties).sort();
  const used = [...SERVER_SETTING_KEYS, ...CLIENT_SETTING_KEYS].map((k) => `ctxls.${k}`).sort();
  assert.deepEqual(props, used);
  const commands = pkg.contributes.commands.map((c: { command: string; title: string; category: string }) => `${c.category}: ${c.title}`);
  for (const title of ["ctxls: Assemble Context", "ctxls: Assemble Context for Changes", "ctxls: Expand"]) {
    assert.ok(commands.includes(title), title);
  }
  const src = fs.readFileSync(path.join(__dirname, "..", "src", "extension.js"), "utf8");
  for (const c of pkg.contributes.commands) assert.ok(src.includes(`"${c.command}"`), `${c.command} is registered`);
  assert.equal(pkg.engines.vscode, "^1.91.0");
});

test("a workspace's settings cannot choose the program run, the embeddings service or the key sent to it", () => {
  // Settings of scope "machine" are read from the user's settings only: a
  // repository's .vscode/settings.json cannot set them, trusted or not.
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const props = pkg.contributes.configuration.properties;
  for (const key of ["ctxls.path", "ctxls.embeddingsEndpoint.url", "ctxls.embeddingsEndpoint.keyEnv"]) {
    assert.equal(props[key].scope, "machine", `${key}: scope ${props[key].scope}`);
  }
});

test("the binary: from PATH, from the setting, and a message with the install command when missing", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxls-bin-"));
  const bin = path.join(dir, "ctxls");
  fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
  fs.writeFileSync(path.join(dir, "notexec"), "", { mode: 0o644 });
  try {
    assert.deepEqual(findBinary(undefined, { PATH: `/nonexistent${path.delimiter}${dir}` }, "linux"), { found: true, path: bin });
    assert.deepEqual(findBinary("", { PATH: dir }, "linux"), { found: true, path: bin });
    assert.deepEqual(findBinary(bin, { PATH: "" }, "linux"), { found: true, path: bin });
    // A relative path would run a file of the open folder: refused.
    for (const rel of ["./ctxls", "bin/ctxls", "../ctxls"]) {
      const r = findBinary(rel, { PATH: dir }, "linux");
      assert.equal(r.found, false, rel);
      assert.match(r.found ? "" : r.message, /relative path/);
    }
    assert.equal(findBinary("bin\\ctxls.exe", { PATH: "" }, "win32").found, false);
    const missing = findBinary(undefined, { PATH: "/nonexistent" }, "linux");
    assert.equal(missing.found, false);
    const msg = missing.found ? "" : missing.message;
    assert.ok(msg.includes(INSTALL_COMMAND), msg);
    assert.match(msg, /"ctxls" was not found on PATH/);
    assert.match(msg, /gcc/);
    const notExec = findBinary(path.join(dir, "notexec"), { PATH: dir }, "linux");
    assert.equal(notExec.found, false);
    assert.match(notExec.found ? "" : notExec.message, /ctxls\.path/);
    // The binary a platform-specific package carries comes before PATH,
    // the setting before both; a bundled file that is not executable is
    // passed over.
    const carried = path.join(dir, "carried");
    fs.writeFileSync(carried, "#!/bin/sh\n", { mode: 0o755 });
    assert.deepEqual(findBinary("", { PATH: dir }, "linux", carried), { found: true, path: carried });
    assert.deepEqual(findBinary(undefined, { PATH: "" }, "linux", carried), { found: true, path: carried });
    assert.deepEqual(findBinary(bin, { PATH: "" }, "linux", carried), { found: true, path: bin });
    assert.deepEqual(findBinary("", { PATH: dir }, "linux", path.join(dir, "notexec")), { found: true, path: bin });
    assert.deepEqual(findBinary("", { PATH: dir }, "linux", path.join(dir, "absent")), { found: true, path: bin });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("status bar: starting, indexing from $/progress, ready, failed", () => {
  const s = new IndexStatus();
  assert.match(s.view().text, /sync~spin/);
  s.running("v1.2.3");
  assert.equal(s.view().text, "$(check) ctxls");
  s.progress("ctxls/index/1", { kind: "begin", title: "Indexing shop", percentage: 0 });
  s.progress("ctxls/index/1", { kind: "report", message: "120/400 files", percentage: 30 });
  assert.equal(s.indexing, true);
  assert.equal(s.view().text, "$(sync~spin) ctxls: 30% 120/400 files");
  assert.match(s.view().tooltip, /ctxls v1\.2\.3: Indexing shop 120\/400 files 30%/);
  s.progress("ctxls/index/1", { kind: "end", message: "400 files, 2000 chunks" });
  assert.equal(s.indexing, false);
  assert.equal(s.view().text, "$(check) ctxls");
  assert.match(s.view().tooltip, /: ready \(shop indexed: 400 files, 2000 chunks\)$/);
  s.failed("ctxls: the server binary cannot be started");
  assert.deepEqual(s.view(), { text: "$(error) ctxls", tooltip: "ctxls: the server binary cannot be started", error: true });
});

test("errors become messages a person can act on; a cancellation shows nothing", () => {
  assert.equal(
    describeError({ code: -32602, message: "budget.maxTokens: must be a positive number of tokens, got 0", data: { field: "budget.maxTokens" } }),
    "ctxls: budget.maxTokens: must be a positive number of tokens, got 0 (check the ctxls settings)",
  );
  assert.equal(describeError({ code: -32602, message: "focus.uri: outside every workspace folder", data: { field: "focus.uri" } }),
    "ctxls: focus.uri: outside every workspace folder");
  assert.equal(describeError({ code: -32800, message: "cancelled" }), undefined);
  assert.match(describeError({ code: -32002, message: "not initialized" }) ?? "", /still starting/);
  assert.equal(describeError(new Error("git diff: boom")), "ctxls: git diff: boom");
});

function result(over: Partial<AssembleResult> = {}): AssembleResult {
  return {
    parts: [{ id: "p1", uri, path: "pricing/tax.go", ranges: [{ start: 1, end: 3 }], tokens: 10 }],
    rendered: "### [1] pricing/tax.go:1-3\n",
    stats: { totalTokens: 10, maxTokens: 100, files: 1, parts: 1, indexState: "s1", indexComplete: true },
    omitted: [{ handle: "cart/cart.go#L1-9", path: "cart/cart.go", ranges: [{ start: 1, end: 9 }], tokens: 50, score: 0.2, reason: "over budget" }],
    ...over,
  };
}

test("summary says the size, what was left out and whether the index was complete", () => {
  assert.equal(summary(result()), "ctxls: 10/100 tokens, 1 part from 1 file, copied to the clipboard. 1 left out (ctxls: Expand).");
  const partial = result({ omitted: [], stats: { ...result().stats, indexComplete: false, note: "focus not indexed yet" } });
  assert.match(summary(partial), /still being built.*focus not indexed yet/);
});

/** A Host that records what the commands did. */
class RecordingHost implements Host {
  docs: { content: string; language: string; title: string }[] = [];
  clipboard = "";
  messages: { level: string; text: string }[] = [];
  asked: string[] = [];
  picked: PickItem[][] = [];
  constructor(public state: EditorState = {}, public answer: string | undefined = "q") {}
  editorState() { return this.state; }
  diffFolder() { return "/ws"; }
  format() { return undefined; }
  changesMode() { return undefined; }
  async askQuestion(initial: string) { this.asked.push(initial); return this.answer; }
  async askHandle() { return this.answer; }
  async pick(items: PickItem[]) { this.picked.push(items); return items[0]; }
  async openDocument(content: string, language: string, title: string) { this.docs.push({ content, language, title }); }
  async copy(text: string) { this.clipboard = text; }
  info(text: string) { this.messages.push({ level: "info", text }); }
  warn(text: string) { this.messages.push({ level: "warn", text }); }
  error(text: string) { this.messages.push({ level: "error", text }); }
  withProgress<T>(_title: string, task: (token: unknown) => Promise<T>) { return task(undefined); }
}

test("commands: a cancelled question sends nothing; no server is an error; an RPC error is shown", async () => {
  const sent: unknown[] = [];
  const client = { request: async <R>(m: string, p: unknown) => { sent.push([m, p]); return result() as R; } };
  const cancelled = new RecordingHost();
  cancelled.answer = undefined; // Escape in the input box
  assert.equal(await new Commands(cancelled, () => client, async () => "").assemble(), undefined);
  assert.deepEqual(sent, []);
  assert.deepEqual(cancelled.docs, []);

  const noServer = new RecordingHost();
  await new Commands(noServer, () => undefined, async () => "").assemble();
  assert.match(noServer.messages[0]?.text ?? "", /server is not running/);

  const failing = { request: async () => { throw { code: -32803, message: "no workspace folder is open" }; } };
  const h = new RecordingHost();
  await new Commands(h, () => failing, async () => "").assemble();
  assert.deepEqual(h.messages, [{ level: "error", text: "ctxls: no workspace folder is open" }]);
  assert.deepEqual(h.docs, []);
  assert.equal(h.clipboard, "");
});

test("commands: expand offers the last result's omitted list and sends its index state", async () => {
  const sent: [string, unknown][] = [];
  const client = { request: async <R>(m: string, p: unknown) => { sent.push([m, p]); return result() as R; } };
  const h = new RecordingHost();
  const cmds = new Commands(h, () => client, async () => "");
  await cmds.assemble();
  await cmds.expand();
  assert.equal(h.picked.length, 1);
  assert.deepEqual(h.picked[0]?.map((i) => i.handle), ["cart/cart.go#L1-9"]);
  assert.deepEqual(sent[1], ["context/expand", { handles: ["cart/cart.go#L1-9"], indexState: "s1" }]);
  assert.equal(h.docs.length, 2);
  assert.equal(h.docs[1]!.title, "Expanded: cart/cart.go#L1-9");
  assert.equal(h.clipboard, result().rendered);
});

test("the server's stderr: log lines at debug without Go's timestamp, anything else (a panic) an error", () => {
  assert.deepEqual(stderrLine("ctxls: 2026/11/27 01:02:03.456789 index: full build of /w: no index"), {
    level: "debug",
    text: "index: full build of /w: no index",
  });
  assert.deepEqual(stderrLine("ctxls serve: 2026/11/27 01:02:03 listening"), { level: "debug", text: "listening" });
  assert.deepEqual(stderrLine("panic: runtime error: index out of range"), {
    level: "error",
    text: "panic: runtime error: index out of range",
  });
  assert.equal(stderrLine("goroutine 1 [running]:").level, "error");
});

test("the context view's title: what was asked, on one line, cut to 60 characters", () => {
  assert.equal(viewTitle("how are\n  ranges merged?"), "Context: how are ranges merged?");
  assert.equal(viewTitle(""), "Context");
  const long = viewTitle("x".repeat(100));
  assert.equal(long, "Context: " + "x".repeat(59) + "…");
  assert.equal(viewTitle("a#L1-2", "Expanded"), "Expanded: a#L1-2");
});
