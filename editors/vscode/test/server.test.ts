// The commands against the real `ctxls serve` on the fixture workspace.
// (make test-vscode-e2e runs the extension in a real VS Code; here, under
// node alone,) the language client is stood in for by
// vscode-jsonrpc (VS Code's protocol layer, what vscode-languageclient is
// built on), answering workspace/configuration and $/progress with the
// extension's own code (answerConfiguration, IndexStatus), and the editor by
// a Host that records documents, the clipboard and messages.
//
// env: CTXLS_BIN      the binary (default ../../bin/ctxls from editors/vscode)
//      CTXLS_FIXTURE  the workspace to copy (default internal/lsp/testdata/workspace)
import * as assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgress,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node";

import { Commands, type Host, type PickItem } from "../src/commands";
import { workingTreeDiff } from "../src/git";
import type { EditorState } from "../src/params";
import { IndexStatus, type ProgressValue } from "../src/progress";
import { answerConfiguration, serverSettings, type ConfigurationItem } from "../src/settings";

const repo = path.resolve(__dirname, "..", "..", "..", "..");
const bin = process.env.CTXLS_BIN ?? path.join(repo, "bin", "ctxls");
const fixture = process.env.CTXLS_FIXTURE ?? path.join(repo, "internal", "lsp", "testdata", "workspace");
const QUESTION = "how is the tax computed at checkout";

let tmp = "";
let ws = "";
let cache = "";
let server: ChildProcess | undefined;
let conn: ProtocolConnection;
let stderr = "";
const status = new IndexStatus();
/** The editor's "ctxls.*" settings, as VS Code's configuration would hold them. */
const settings: Record<string, unknown> = { "budget.maxTokens": 300, path: "ignored by the server" };
const configurationRequests: ConfigurationItem[][] = [];

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: ws, encoding: "utf8" });
}

/** cli runs `ctxls assemble` on the same workspace: the reference output. */
function cli(...args: string[]): string {
  // A cache of its own: the server holds the lock of its index.
  return execFileSync(bin, ["assemble", "--root", ws, ...args], {
    encoding: "utf8",
    env: { ...process.env, CTXLS_CACHE_DIR: path.join(tmp, "cli-cache") },
  });
}

before(async () => {
  assert.ok(fs.existsSync(bin), `no ctxls binary at ${bin}: run make build (or set CTXLS_BIN)`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ctxls-vscode-"));
  ws = path.join(tmp, "shop");
  cache = path.join(tmp, "cache");
  fs.cpSync(fixture, ws, { recursive: true });
  git("init", "-q");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "fixture");

  server = spawn(bin, ["serve"], { cwd: ws, env: { ...process.env, CTXLS_CACHE_DIR: cache }, stdio: ["pipe", "pipe", "pipe"] });
  server.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  conn = createProtocolConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  conn.onRequest("workspace/configuration", (params: { items: ConfigurationItem[] }) => {
    configurationRequests.push(params.items);
    return answerConfiguration(params.items, () => serverSettings((k) => settings[k])) ?? params.items.map(() => null);
  });
  conn.onRequest("client/registerCapability", () => null);
  conn.onRequest("window/workDoneProgress/create", (p: { token: string | number }) => {
    conn.onProgress(WorkDoneProgress.type, p.token, (v) => status.progress(p.token, v as ProgressValue));
    return null;
  });
  conn.onNotification("window/logMessage", () => undefined);
  conn.listen();
  const wsUri = pathToFileURL(ws).href;
  const init = (await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: wsUri,
    workspaceFolders: [{ uri: wsUri, name: "shop" }],
    capabilities: { window: { workDoneProgress: true }, workspace: { configuration: true, workspaceFolders: true } },
    initializationOptions: serverSettings((k) => settings[k]),
  })) as { serverInfo?: { version?: string }; capabilities: { experimental?: { contextAssemble?: { version: number } } } };
  assert.equal(init.capabilities.experimental?.contextAssemble?.version, 1);
  await conn.sendNotification("initialized", {});
  status.running(init.serverInfo?.version);
});

after(async () => {
  if (conn) {
    await conn.sendRequest("shutdown").catch(() => undefined);
    await conn.sendNotification("exit").catch(() => undefined);
  }
  if (server && server.exitCode === null) {
    await new Promise((resolve) => {
      const t = setTimeout(() => server?.kill(), 5000);
      server!.on("exit", () => { clearTimeout(t); resolve(undefined); });
    });
  }
  conn?.dispose();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

class EditorStandIn implements Host {
  docs: { content: string; language: string; title: string }[] = [];
  clipboard = "";
  messages: { level: string; text: string }[] = [];
  asked: string[] = [];
  offered: PickItem[][] = [];
  choose: (items: PickItem[]) => PickItem | undefined = (items) => items[0];
  constructor(public state: EditorState, public answer: string | undefined) {}
  editorState() { return this.state; }
  diffFolder() { return ws; }
  format() { return settings.format as string | undefined; }
  changesMode() { return settings.changesMode as string | undefined; }
  async askQuestion(initial: string) { this.asked.push(initial); return this.answer; }
  async askHandle() { return this.answer; }
  async pick(items: PickItem[]) { this.offered.push(items); return this.choose(items); }
  async openDocument(content: string, language: string, title: string) { this.docs.push({ content, language, title }); }
  async copy(text: string) { this.clipboard = text; }
  info(text: string) { this.messages.push({ level: "info", text }); }
  warn(text: string) { this.messages.push({ level: "warn", text }); }
  error(text: string) { this.messages.push({ level: "error", text }); }
  withProgress<T>(_t: string, task: (token: unknown) => Promise<T>) { return task(undefined); }
}

const client = () => ({ request: <R>(m: string, p: unknown) => conn.sendRequest(m, p) as Promise<R> });

function onlyDoc(h: EditorStandIn): string {
  assert.deepEqual(h.messages.filter((m) => m.level !== "info"), [], `messages: ${JSON.stringify(h.messages)}; server stderr: ${stderr.slice(-2000)}`);
  assert.equal(h.docs.length, 1);
  assert.equal(h.docs[0]!.language, "markdown");
  assert.equal(h.clipboard, h.docs[0]!.content);
  return h.docs[0]!.content;
}

test("Assemble Context: a question, no focus: the document is the server's context under the budget from the settings", async () => {
  const h = new EditorStandIn({ document: { uri: "untitled:Untitled-1", scheme: "untitled", inWorkspace: false } }, QUESTION);
  const cmds = new Commands(h, client, workingTreeDiff);
  const r = await cmds.assemble();
  const doc = onlyDoc(h);
  assert.ok(r);
  // The budget came from the settings, through workspace/configuration or initializationOptions.
  assert.equal(r.stats.maxTokens, 300);
  assert.ok(r.stats.totalTokens <= 300 && r.stats.totalTokens > 0, `totalTokens ${r.stats.totalTokens}`);
  assert.ok(r.stats.indexComplete);
  assert.ok(doc.includes("func Tax(region string, cents int64) int64 {"), doc);
  assert.ok(!doc.includes('return fmt.Sprintf("%d.%02d"'), "Format's body does not fit in 300 tokens");
  // Byte for byte what `ctxls assemble` renders for the same question and budget.
  assert.equal(doc, cli("--query", QUESTION, "--budget", "300"));
  assert.match(h.messages.at(-1)!.text, /^ctxls: \d+\/300 tokens, \d+ parts? from \d+ files?, copied to the clipboard\. \d+ left out/);
  assert.equal(cmds.last, r);
  // The server pulled section "ctxls" after initialized.
  assert.ok(configurationRequests.some((items) => items.some((i) => i.section === "ctxls")));
});

test("the status bar followed the first index build through $/progress", async () => {
  for (let i = 0; i < 500 && status.indexing; i++) await new Promise((r) => setTimeout(r, 20));
  const v = status.view();
  assert.equal(v.text, "$(check) ctxls");
  assert.match(v.tooltip, /: ready \(\S.* indexed: \d+ files, \d+ chunks\)$/);
});

test("Assemble Context: the selection pre-fills the question and is the focus", async () => {
  const cartUri = pathToFileURL(path.join(ws, "cart", "cart.go")).href;
  const lines = fs.readFileSync(path.join(ws, "cart", "cart.go"), "utf8").split("\n");
  const line = lines.findIndex((l) => l.startsWith("func (c *Cart) Total()"));
  assert.ok(line > 0);
  const state: EditorState = {
    document: { uri: cartUri, scheme: "file", inWorkspace: true },
    selection: { start: { line, character: 0 }, end: { line, character: 22 }, active: { line, character: 22 }, text: lines[line]!.slice(0, 22) },
  };
  const h = new EditorStandIn(state, "");
  const r = await new Commands(h, client, workingTreeDiff).assemble();
  assert.deepEqual(h.asked, ["func (c *Cart) Total()"]);
  const doc = onlyDoc(h);
  assert.ok(r);
  assert.ok(
    r.parts.some((p) => p.path === "cart/cart.go" && p.ranges.some((g) => g.start <= line + 1 && line + 1 <= g.end)),
    JSON.stringify(r.parts),
  );
  assert.ok(doc.includes(lines[line]!));
});

test("settings changed in the editor reach the server (didChangeConfiguration, then it pulls)", async () => {
  settings["budget.maxTokens"] = 120;
  const pulls = configurationRequests.length;
  await conn.sendNotification("workspace/didChangeConfiguration", { settings: { ctxls: {} } });
  for (let i = 0; i < 100 && configurationRequests.length === pulls; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(configurationRequests.length > pulls, "the server pulled the settings again");
  const h = new EditorStandIn({}, QUESTION);
  const r = await new Commands(h, client, workingTreeDiff).assemble();
  const doc = onlyDoc(h);
  assert.equal(r?.stats.maxTokens, 120);
  assert.ok(r!.stats.totalTokens <= 120);
  assert.equal(doc, cli("--query", QUESTION, "--budget", "120"));
  settings["budget.maxTokens"] = 300;
  await conn.sendNotification("workspace/didChangeConfiguration", { settings: { ctxls: {} } });
});

test("Expand: picks from the last result's omitted list; the document holds those lines", async () => {
  const h = new EditorStandIn({}, QUESTION);
  const cmds = new Commands(h, client, workingTreeDiff);
  const first = await cmds.assemble();
  assert.ok(first && first.omitted.length > 0);
  const target = first.omitted.find((o) => o.path === "cart/cart.go") ?? first.omitted[0]!;
  h.choose = (items) => items.find((i) => i.handle === target.handle);
  h.docs = [];
  const r = await cmds.expand();
  assert.deepEqual(h.offered[0]!.map((i) => i.handle), first.omitted.map((o) => o.handle));
  assert.equal(h.docs.length, 1);
  assert.equal(h.clipboard, h.docs[0]!.content);
  assert.equal(r?.fromHeldState, true);
  // Expand reads content only: its state is the content's part of the
  // result's (which adds the semantic model's identity after a ".").
  assert.equal(r?.stats.indexState, first.stats.indexState.split(".")[0]);
  const file = fs.readFileSync(path.join(ws, target.path), "utf8").split("\n");
  const g = target.ranges[0]!;
  for (const l of file.slice(g.start - 1, g.end)) {
    if (l.trim() !== "") assert.ok(h.docs[0]!.content.includes(l), `expanded text holds ${JSON.stringify(l)}`);
  }
  // Expand does not replace the result it expands from.
  assert.equal(cmds.last, first);
});

test("Expand: a handle the server does not know is an error message, and nothing is opened", async () => {
  const h = new EditorStandIn({}, "nowhere/missing.go#L1-2");
  await new Commands(h, client, workingTreeDiff).expand();
  assert.deepEqual(h.docs, []);
  assert.equal(h.messages.length, 1);
  assert.equal(h.messages[0]!.level, "error");
  assert.match(h.messages[0]!.text, /^ctxls: /);
});

test("Assemble Context for Changes: the working tree's diff is sent and its code comes back", async () => {
  const h = new EditorStandIn({}, undefined);
  const cmds = new Commands(h, client, workingTreeDiff);
  assert.equal(await cmds.assembleDiff(), undefined);
  assert.deepEqual(h.messages, [{ level: "info", text: "ctxls: the working tree has no changes (git diff HEAD is empty)." }]);

  // Change what JoinLines joins with: the context is its caller, Cart.Receipt.
  const file = path.join(ws, "textutil", "text.go");
  const before = fs.readFileSync(file, "utf8");
  assert.ok(before.includes('strings.Join(lines, "\\n")'));
  fs.writeFileSync(file, before.replace('strings.Join(lines, "\\n")', 'strings.Join(lines, "\\r\\n")'));
  // What VS Code's file watcher (registered by the server) reports.
  const changed = () => conn.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: pathToFileURL(file).href, type: 2 }] });
  await changed();
  try {
    const diff = await workingTreeDiff(ws);
    assert.match(diff, /^\+\s+return strings\.Join\(lines, "\\r\\n"\)/m);
    h.messages = [];
    const r = await cmds.assembleDiff();
    const doc = onlyDoc(h);
    assert.ok(
      r && r.parts.some((p) => p.path === "cart/cart.go" && p.sources?.includes("diff")),
      JSON.stringify(r?.parts.map((p) => [p.path, p.sources])),
    );
    assert.ok(doc.includes("textutil.JoinLines("), doc);
    assert.ok(r.stats.totalTokens <= 300);
    // Asked in the review mode by default; the setting chooses the related mode.
    assert.equal(doc, cli("--diff", "HEAD", "--budget", "300", "--mode", "review"));
    settings.changesMode = "related";
    try {
      h.messages = [];
      h.docs = [];
      await cmds.assembleDiff();
      assert.equal(onlyDoc(h), cli("--diff", "HEAD", "--budget", "300", "--mode", "related"));
    } finally {
      delete settings.changesMode;
    }
  } finally {
    fs.writeFileSync(file, before);
    await changed();
  }
});
