// Drives `ctxls mcp` with the official MCP TypeScript SDK, over stdio and
// over Streamable HTTP: lists the tools, calls each, validates every
// structured result against the tool's own output schema (ajv, draft
// 2020-12), and sends bad input. Then the MCP Inspector's CLI lists the
// tools with --strict: its schema portability lint must find nothing.
//
// usage: node test.mjs CTXLS_BINARY ROOT CACHE_DIR
//
// Exit status 0 when every check passes; 1 with the failures listed.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv2020 from "ajv/dist/2020.js";

const [bin, root, cacheDir] = process.argv.slice(2);
if (!bin || !root || !cacheDir) {
  console.error("usage: node test.mjs CTXLS_BINARY ROOT CACHE_DIR");
  process.exit(2);
}

const failures = [];
let checks = 0;
function check(cond, what) {
  checks++;
  if (!cond) {
    failures.push(what);
    console.error("FAIL: " + what);
  }
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validators = new Map();

function textOf(res) {
  return (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

// checkResult validates a successful result's structured content against
// the tool's output schema.
function checkResult(face, tool, res) {
  check(!res.isError, `${face} ${tool}: isError: ${textOf(res)}`);
  check(res.structuredContent && typeof res.structuredContent === "object", `${face} ${tool}: no structured content`);
  const v = validators.get(tool);
  if (v && res.structuredContent) {
    const ok = v(res.structuredContent);
    check(ok, `${face} ${tool}: structured content does not match the output schema: ${ajv.errorsText(v.errors)}`);
  }
}

async function exercise(face, client) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(
    JSON.stringify(names) === JSON.stringify(["assemble_context", "expand_context", "find_references", "find_symbol", "impact", "index_status"]),
    `${face}: tools ${names}`,
  );
  for (const t of tools) {
    check(t.annotations?.readOnlyHint === true, `${face} ${t.name}: readOnlyHint`);
    check(t.inputSchema?.type === "object", `${face} ${t.name}: input schema`);
    check(t.outputSchema?.type === "object", `${face} ${t.name}: output schema`);
    if (!validators.has(t.name) && t.outputSchema) {
      validators.set(t.name, ajv.compile(t.outputSchema));
    }
  }

  // Wait for the first build (a loaded machine may take longer than the
  // server's own wait): the checks below want the whole index.
  for (const until = Date.now() + 180000; ; ) {
    const r = await client.callTool({ name: "index_status", arguments: {} });
    if (r.structuredContent?.roots?.[0]?.complete === true || Date.now() > until) break;
    await new Promise((ok) => setTimeout(ok, 200));
  }

  // assemble_context: a question, within a budget.
  const budget = 1500;
  let res = await client.callTool({
    name: "assemble_context",
    arguments: { query: "how are overlapping line ranges merged and stitched", budget: { maxTokens: budget } },
  });
  checkResult(face, "assemble_context", res);
  const out = res.structuredContent || {};
  check(out.stats?.totalTokens <= budget, `${face} assemble_context: ${out.stats?.totalTokens} tokens over ${budget}`);
  check((out.parts || []).length > 0, `${face} assemble_context: no parts`);
  check(res.content?.[0]?.type === "text" && res.content[0].text.length > 0, `${face} assemble_context: no text`);
  check((out.parts || []).some((p) => p.path.startsWith("internal/ranges/")), `${face} assemble_context: internal/ranges/ not in the parts`);

  // expand_context: the first omitted handle, from the same state.
  const omitted = (out.omitted || []).find((o) => o.tokens > 0);
  check(omitted !== undefined, `${face} assemble_context: nothing omitted at ${budget} tokens`);
  if (omitted) {
    res = await client.callTool({
      name: "expand_context",
      arguments: { handles: [omitted.handle], index_state: out.stats.indexState },
    });
    checkResult(face, "expand_context", res);
    check(res.structuredContent?.fromHeldState === true, `${face} expand_context: not from the held state`);
    check(textOf(res).includes(omitted.path), `${face} expand_context: ${omitted.path} not in the text`);
  }
  res = await client.callTool({ name: "expand_context", arguments: { path: "internal/ranges/ranges.go", lines: "1-5" } });
  checkResult(face, "expand_context", res);

  // find_symbol with references.
  res = await client.callTool({ name: "find_symbol", arguments: { name: "Stitch", references: true } });
  checkResult(face, "find_symbol", res);
  const defs = res.structuredContent?.definitions || [];
  check(defs.some((d) => d.path === "internal/ranges/ranges.go" && d.symbol === "Stitch"), `${face} find_symbol: Stitch not found`);
  check((res.structuredContent?.references || []).length > 0, `${face} find_symbol: no references`);

  // find_references: the sites as a list, resolved by Go's types.
  res = await client.callTool({ name: "find_references", arguments: { symbol: "ranges.Normalize", budget: { maxTokens: 1000 } } });
  checkResult(face, "find_references", res);
  const refsOut = res.structuredContent || {};
  check((refsOut.references || []).length > 0 && refsOut.exact === true && refsOut.tokens <= 1000,
    `${face} find_references: ${JSON.stringify(refsOut).slice(0, 300)}`);
  res = await client.callTool({ name: "find_references", arguments: { symbol: "NoSuchSymbolAnywhereHere" } });
  check(res.isError === true && textOf(res).includes("symbol"), `${face} find_references unknown symbol: ${textOf(res)}`);
  // impact: a bad depth is named.
  res = await client.callTool({ name: "impact", arguments: { diff_rev: "HEAD", depth: 99 } });
  check(res.isError === true && textOf(res).includes("depth"), `${face} impact bad depth: ${textOf(res)}`);

  // index_status.
  res = await client.callTool({ name: "index_status", arguments: {} });
  checkResult(face, "index_status", res);
  const st = res.structuredContent?.roots?.[0] || {};
  check(st.complete === true && st.files > 10 && st.state === "ready", `${face} index_status: ${JSON.stringify(st)}`);

  // Bad input: tool errors a model can act on, naming the argument.
  const bad = [
    [{}, "query"],
    [{ query: "x", format: "html" }, "format"],
    [{ query: 7 }, "query"],
    [{ focus: "../../etc/passwd:1" }, "outside the root"],
    [{ focus: "internal/ranges/ranges.go:100000" }, "past the end"],
    [{ query: "x", budget: { maxTokens: -1 } }, "maxTokens"],
    [{ diff_rev: "--output=/tmp/pwned" }, "diff_rev"],
  ];
  for (const [args, want] of bad) {
    res = await client.callTool({ name: "assemble_context", arguments: args });
    check(res.isError === true && textOf(res).includes(want), `${face} bad input ${JSON.stringify(args)}: ${textOf(res)}`);
  }
  res = await client.callTool({ name: "expand_context", arguments: { handles: ["../../etc/passwd#L1-3"] } });
  check(res.isError === true && textOf(res).includes("outside the root"), `${face} expand outside the root: ${textOf(res)}`);
  // An unknown tool is a protocol error.
  let threw = false;
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (e) {
    threw = true;
  }
  check(threw, `${face}: an unknown tool did not fail`);
}

async function overStdio() {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--root", root, "--cache-dir", cacheDir],
    stderr: "pipe",
  });
  const client = new Client({ name: "ctxls-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    await exercise("stdio", client);
  } finally {
    await client.close();
  }
}

// startHTTP starts `ctxls mcp --http 127.0.0.1:0` and returns the process
// and the URL it listens on (read from its log).
function startHTTP(extra = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ["mcp", "--http", "127.0.0.1:0", "--root", root, "--cache-dir", cacheDir, ...extra], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let log = "";
    const timer = setTimeout(() => reject(new Error("no listening line:\n" + log)), 20000);
    proc.stderr.on("data", (b) => {
      log += b.toString();
      const m = log.match(/listening on (http:\/\/\S+)/);
      const t = log.match(/token file: (\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], tokenFile: t ? t[1] : "" });
      }
    });
    proc.on("exit", (code) => reject(new Error(`ctxls mcp --http exited with ${code}:\n${log}`)));
  });
}

// rawPost sends one initialize POST with the given headers and returns the
// status code.
function rawPost(url, headers) {
  const u = new URL(url);
  const body = JSON.stringify({
    jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers } },
      (res) => { res.resume(); resolve(res.statusCode); },
    );
    req.on("error", reject);
    req.end(body);
  });
}

// oauthClientWithoutToken connects without the token as Claude Code and
// the MCP Inspector do: with an OAuth provider. The server does no OAuth,
// so the client must fail with the server's line naming the token — not
// fetch OAuth metadata, register itself or ask the provider anything.
async function oauthClientWithoutToken(url) {
  const asked = [];
  const redirect = "http://localhost:33418/callback";
  const provider = {
    get redirectUrl() { return redirect; },
    get clientMetadata() { return { client_name: "ctxls-test", redirect_uris: [redirect] }; },
    clientInformation() { asked.push("clientInformation"); return undefined; },
    saveClientInformation() { asked.push("saveClientInformation"); },
    tokens() { return undefined; },
    saveTokens() { asked.push("saveTokens"); },
    redirectToAuthorization() { asked.push("redirectToAuthorization"); },
    saveCodeVerifier() { asked.push("saveCodeVerifier"); },
    codeVerifier() { asked.push("codeVerifier"); return "verifier"; },
  };
  const requests = [];
  const logged = (u, init) => {
    requests.push(`${init?.method || "GET"} ${new URL(u).pathname}`);
    return fetch(u, init);
  };
  let err;
  try {
    const c = new Client({ name: "ctxls-test", version: "1.0.0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: logged }));
    await c.close();
  } catch (e) {
    err = e;
  }
  check(err !== undefined, "http: an OAuth client connected without a token");
  check(err?.code === 403 && /no token/.test(err?.message) && /Authorization: Bearer TOKEN/.test(err?.message),
    `http: an OAuth client without a token failed with ${err}, want the 403 naming the token`);
  const oauth = requests.filter((r) => r.includes("/.well-known/") || r.endsWith("/register") || r.endsWith("/token"));
  check(oauth.length === 0, `http: an OAuth client without a token tried OAuth: ${oauth.join(", ")}`);
  check(asked.length === 0, `http: an OAuth client without a token asked its provider: ${asked.join(", ")}`);
}

async function overHTTP() {
  const { proc, url, tokenFile } = await startHTTP();
  try {
    check(tokenFile !== "", "http: no token file printed");
    const token = readFileSync(tokenFile, "utf8").trim();
    const auth = { Authorization: "Bearer " + token };
    // The network face lets no one in without the token, and no page of
    // another origin (DNS rebinding) even with it.
    // 403, not 401: a 401 makes MCP clients start OAuth, which this
    // server does not do (see access.Guard).
    check((await rawPost(url, {})) === 403, "http: a request without a token was not refused with 403");
    check((await rawPost(url, { Authorization: "Bearer wrong" })) === 403, "http: a wrong token was not refused with 403");
    check((await rawPost(url, { ...auth, Origin: "https://evil.example" })) === 403, "http: a foreign Origin was not refused with 403");
    check((await rawPost(url, { ...auth, Host: "evil.example.com" })) === 403, "http: a foreign Host was not refused with 403");
    check((await rawPost(url, { ...auth, Origin: "http://localhost:3000" })) === 200, "http: a loopback Origin with the token was refused");
    let refused = false;
    try {
      const c = new Client({ name: "ctxls-test", version: "1.0.0" });
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      await c.close();
    } catch (e) {
      refused = true;
    }
    check(refused, "http: the SDK client connected without a token");
    await oauthClientWithoutToken(url);

    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } });
    const client = new Client({ name: "ctxls-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      await exercise("http", client);
    } finally {
      await client.close();
    }
  } finally {
    proc.kill("SIGTERM");
  }
}

// inspectorStrict runs the MCP Inspector's CLI on the server over stdio:
// tools/list with --strict reports every tool schema portability problem
// (a type list such as ["null","array"], …) on stderr and exits 6 on an
// error-severity one; warnings count as failures here too.
async function inspectorStrict() {
  const inspector = fileURLToPath(new URL("node_modules/.bin/mcp-inspector", import.meta.url));
  const args = ["--cli", bin, "mcp", "--root", root, "--cache-dir", cacheDir, "--method", "tools/list", "--strict"];
  const { code, stdout, stderr } = await new Promise((resolve, reject) => {
    const proc = spawn(inspector, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.stderr.on("data", (d) => (err += d));
    proc.on("error", reject);
    proc.on("close", (c) => resolve({ code: c, stdout: out, stderr: err }));
  });
  check(code === 0, `inspector --strict: exit ${code}: ${stderr}`);
  const findings = stderr.split("\n").filter((l) => /^(Warning|Error): tool /.test(l));
  check(findings.length === 0, `inspector --strict: ${findings.length} schema findings:\n${stderr}`);
  let listed = [];
  try {
    listed = JSON.parse(stdout).tools.map((t) => t.name).sort();
  } catch (e) {
    check(false, `inspector --strict: no tool list: ${e}`);
  }
  check(listed.length === 6, `inspector --strict: tools ${listed}`);
}

try {
  await overStdio();
  await overHTTP();
  await inspectorStrict();
} catch (e) {
  failures.push(String(e?.stack || e));
  console.error(e);
}
console.log(`${checks} checks, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
