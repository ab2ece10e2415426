// extension.ts itself — activate, vscode-languageclient starting the real
// `ctxls serve`, the settings middleware, the status bar, the commands with
// the vscode API — under node, with test/fakeVscode.ts standing in for the
// `vscode` module (make test-vscode-e2e runs it in a real VS Code).
//
// env: CTXLS_BIN, CTXLS_FIXTURE as for server.test.ts.
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { editor, FakeVscode, Uri } from "./fakeVscode";

const repo = path.resolve(__dirname, "..", "..", "..", "..");
const bin = process.env.CTXLS_BIN ?? path.join(repo, "bin", "ctxls");
const fixture = process.env.CTXLS_FIXTURE ?? path.join(repo, "internal", "lsp", "testdata", "workspace");
const QUESTION = "how is the tax computed at checkout";

const vscode = new FakeVscode();
vscode.install();
// After install(): extension.ts and vscode-languageclient get the stand-in.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ext = require("../src/extension") as typeof import("../src/extension");

let tmp = "";
let ws = "";
const context = { subscriptions: [] as { dispose(): unknown }[], extensionPath: path.join(__dirname, "..", "..") };

function cli(...args: string[]): string {
  return execFileSync(bin, ["assemble", "--root", ws, ...args], {
    encoding: "utf8",
    env: { ...process.env, CTXLS_CACHE_DIR: path.join(tmp, "cli-cache") },
  });
}

async function until(what: string, cond: () => boolean, ms = 15000): Promise<void> {
  for (let t = 0; t < ms && !cond(); t += 20) await new Promise((r) => setTimeout(r, 20));
  assert.ok(cond(), `timed out waiting for ${what}; calls: ${JSON.stringify(vscode.calls).slice(-1500)}`);
}

before(async () => {
  assert.ok(fs.existsSync(bin), `no ctxls binary at ${bin}: run make build (or set CTXLS_BIN)`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ctxls-ext-"));
  ws = path.join(tmp, "shop");
  fs.cpSync(fixture, ws, { recursive: true });
  process.env.CTXLS_CACHE_DIR = path.join(tmp, "cache"); // the server inherits it
  vscode.folders = [{ uri: Uri.file(ws), name: "shop", index: 0 }];
  vscode.settings = { path: bin, "budget.maxTokens": 300 };
  await ext.activate(context as never);
});

after(async () => {
  await ext.deactivate();
  for (const d of context.subscriptions) d.dispose();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test("activate registers every command of package.json and starts the server", async () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  assert.deepEqual(
    [...vscode.commands.keys()].sort(),
    pkg.contributes.commands.map((c: { command: string }) => c.command).sort(),
  );
  assert.deepEqual(vscode.messages("error"), []);
  const item = vscode.statusItems[0]!;
  assert.equal(item.command, "ctxls.showOutput");
  // The first index build is reported through $/progress, then the item says ready.
  await until("the status bar to say ready", () => item.text === "$(check) ctxls" && /ready \(/.test(item.tooltip));
  assert.match(item.tooltip, /^ctxls \S+: ready \(\S.* indexed: \d+ files, \d+ chunks\)$/);
  // The server's log reaches the channel at debug level, without Go's
  // timestamp; nothing of a healthy start is logged as an error.
  await until("the server's log", () => vscode.logged("debug").length > 0);
  assert.deepEqual(vscode.logged("error"), []);
  for (const l of vscode.logged("debug")) assert.doesNotMatch(l, /^ctxls: \d{4}\//, l);
});

test("ctxls: Assemble Context: the context of the question under the budget setting, beside the editor and on the clipboard", async () => {
  vscode.inputBox = () => QUESTION;
  await vscode.commands.get("ctxls.assemble")!();
  const docs = vscode.documents();
  assert.equal(docs.length, 1, JSON.stringify(vscode.calls.slice(-5)));
  // budget.maxTokens 300 reached the server through the configuration middleware.
  assert.equal(docs[0]!.content, cli("--query", QUESTION, "--budget", "300"));
  assert.equal(docs[0]!.language, "markdown");
  assert.equal(vscode.clipboard, docs[0]!.content);
  const shown = vscode.calls.find((c) => c[0] === "showTextDocument");
  // The context view: a read-only virtual document (never asks to save),
  // titled by the question, a preview tab beside the editor.
  assert.deepEqual(shown?.[2], { viewColumn: -2, preview: true, preserveFocus: false });
  assert.equal(docs[0]!.uri.scheme, "ctxls");
  assert.equal(decodeURIComponent(docs[0]!.uri.path), `/Context: ${QUESTION}.md`);
  assert.match(vscode.messages("info").at(-1)!, /^ctxls: \d+\/300 tokens/);
});

test("the active editor's selection pre-fills the question and is the focus", async () => {
  const file = path.join(ws, "cart", "cart.go");
  const text = fs.readFileSync(file, "utf8");
  vscode.activeTextEditor = editor(Uri.file(file), text, { line: 44, character: 0 }, { line: 44, character: 22 });
  let offered: string | undefined;
  vscode.inputBox = (o: { value?: string }) => {
    offered = o.value;
    return "";
  };
  vscode.calls = [];
  await vscode.commands.get("ctxls.assemble")!();
  assert.equal(offered, "func (c *Cart) Total()");
  const docs = vscode.documents();
  assert.equal(docs.length, 1, JSON.stringify(vscode.calls.slice(-5)));
  assert.equal(docs[0]!.content, cli("--focus", "cart/cart.go:45:1", "--budget", "300"));
  vscode.activeTextEditor = undefined;
});

test("ctxls: Expand offers the last context's omitted handles", async () => {
  let offered: { handle: string }[] = [];
  vscode.quickPick = (items: { handle: string }[]) => {
    offered = items;
    return items[0];
  };
  vscode.calls = [];
  await vscode.commands.get("ctxls.expand")!();
  assert.ok(offered.length > 0);
  const docs = vscode.documents();
  assert.equal(docs.length, 1);
  // The same view: shown in the column of the last result, replacing its
  // preview tab — three commands, one context column.
  const shown = vscode.calls.filter((c) => c[0] === "showTextDocument");
  assert.deepEqual(shown.map((c) => c[2]), [{ viewColumn: 2, preview: true, preserveFocus: false }]);
  assert.equal(vscode.visible.length, 1);
  assert.equal(decodeURIComponent(docs[0]!.uri.path), `/Expanded: ${offered[0]!.handle}.md`.replace(/\//g, (m, i) => (i === 0 ? m : "∕")));
  // The user opens a file into the context column: its preview tab
  // replaces the result's. The next result goes back to that column, not
  // beside the file (which would open a third group).
  const file = Uri.file(path.join(ws, "cart", "cart.go"));
  vscode.visible = vscode.visible.map((e) =>
    e.viewColumn === 2 ? { document: { uri: file, content: "", language: "go", languageId: "go" }, viewColumn: 2 } : e,
  );
  vscode.calls = [];
  await vscode.commands.get("ctxls.expand")!();
  const again = vscode.calls.filter((c) => c[0] === "showTextDocument");
  assert.deepEqual(again.map((c) => c[2]), [{ viewColumn: 2, preview: true, preserveFocus: false }]);
  const [p, lines] = offered[0]!.handle.split("#L");
  const [a, b] = lines!.split("-").map(Number);
  const want = fs.readFileSync(path.join(ws, p!), "utf8").split("\n").slice(a! - 1, b);
  for (const l of want) if (l.trim() !== "") assert.ok(docs[0]!.content.includes(l), l);
});

test("a missing binary: an error with the install command, the status bar says why", async () => {
  vscode.settings = { path: path.join(tmp, "no-such-ctxls") };
  vscode.calls = [];
  await vscode.commands.get("ctxls.restart")!();
  const [msg] = vscode.messages("error");
  assert.ok(msg?.includes("in a checkout of ctxls with `go install ./cmd/ctxls`"), msg);
  assert.match(msg!, /no-such-ctxls/);
  const err = vscode.calls.find((c) => c[0] === "error")!;
  assert.deepEqual(err.slice(2), ["Copy install command", "Open settings"]);
  assert.equal(vscode.statusItems[0]!.text, "$(error) ctxls");
  vscode.calls = [];
  vscode.inputBox = () => QUESTION;
  await vscode.commands.get("ctxls.assemble")!();
  assert.match(vscode.messages("error")[0] ?? "", /server is not running/);
  assert.deepEqual(vscode.documents(), []);
});
