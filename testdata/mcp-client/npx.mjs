// Drives the npm package that make dist builds the way MCP clients start
// most servers: `npx -y @ctxls/cli mcp`, from a directory where the package
// was installed from its tarballs (the launcher and this machine's
// platform package), over stdio with the official MCP TypeScript SDK.
//
// usage: node npx.mjs INSTALL_DIR ROOT CACHE_DIR VERSION [GLOBAL_BIN]
//
// With GLOBAL_BIN (the bin directory of an `npm install -g --prefix P` of
// the tarballs, P/bin), the package is started the way it is used before it
// is published: `ctxls mcp` found on PATH, from INSTALL_DIR, a project
// directory where nothing was installed.
//
// Exit status 0 when every check passes; 1 with the failures listed.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [dir, root, cacheDir, version, globalBin] = process.argv.slice(2);
if (!dir || !root || !cacheDir || !version) {
  console.error("usage: node npx.mjs INSTALL_DIR ROOT CACHE_DIR VERSION");
  process.exit(2);
}
const failures = [];
function check(cond, what) {
  if (!cond) {
    failures.push(what);
    console.error("FAIL: " + what);
  } else {
    console.log("ok   " + what);
  }
}

// How the package is started: npx where it is installed, or the global
// install's ctxls on PATH.
const env = { ...process.env };
if (globalBin) env.PATH = `${globalBin}${path.delimiter}${env.PATH ?? ""}`;
const [command, prefix] = globalBin ? ["ctxls", []] : ["npx", ["-y", "@ctxls/cli"]];
const how = [command, ...prefix].join(" ");
const said = execFileSync(command, [...prefix, "version"], { cwd: dir, env, encoding: "utf8" }).trim();
check(said === `ctxls ${version}`, `${how} version says "${said}", want "ctxls ${version}"`);

const client = new Client({ name: "npx-test", version: "1" });
const transport = new StdioClientTransport({
  command,
  args: [...prefix, "mcp", "--root", root, "--cache-dir", cacheDir],
  cwd: dir,
  env,
  stderr: "pipe",
});
let stderr = "";
transport.stderr?.on("data", (d) => (stderr += d));
try {
  await client.connect(transport);
  check(client.getServerVersion()?.version === version, `the server names version ${client.getServerVersion()?.version}`);
  const { tools } = await client.listTools();
  check(tools.some((t) => t.name === "assemble_context"), "tools/list has assemble_context");
  const res = await client.callTool({
    name: "assemble_context",
    arguments: { query: "how are overlapping line ranges merged", budget: { maxTokens: 1500 }, wait_seconds: 120 },
  });
  const text = (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  check(!res.isError && text.includes("ranges"), "assemble_context answers with the ranges code");
  check(res.structuredContent?.stats?.totalTokens <= 1500, `within the budget: ${res.structuredContent?.stats?.totalTokens}`);
  await client.close();
} catch (e) {
  failures.push(String(e?.stack || e));
  console.error(e, stderr);
}
console.log(`${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
