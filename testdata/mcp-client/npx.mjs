// Drives the npm package that make dist builds the way MCP clients start
// most servers: `npx -y @ctxls/cli mcp`, from a directory where the package
// was installed from its tarballs (the launcher and this machine's
// platform package), over stdio with the official MCP TypeScript SDK.
//
// usage: node npx.mjs INSTALL_DIR ROOT CACHE_DIR VERSION
//
// Exit status 0 when every check passes; 1 with the failures listed.
import { execFileSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [dir, root, cacheDir, version] = process.argv.slice(2);
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

const said = execFileSync("npx", ["-y", "@ctxls/cli", "version"], { cwd: dir, encoding: "utf8" }).trim();
check(said === `ctxls ${version}`, `npx -y @ctxls/cli version says "${said}", want "ctxls ${version}"`);

const client = new Client({ name: "npx-test", version: "1" });
const transport = new StdioClientTransport({
  command: "npx",
  args: ["-y", "@ctxls/cli", "mcp", "--root", root, "--cache-dir", cacheDir],
  cwd: dir,
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
