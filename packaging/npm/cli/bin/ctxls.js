#!/usr/bin/env node
// ctxls's npm launcher: runs the ctxls binary that npm installed for this
// machine (the optional dependency @ctxls/cli-<os>-<cpu>, as esbuild and
// biome ship theirs), or the one $CTXLS_BINARY names, with this process's
// arguments, standard streams and exit status: `npx -y @ctxls/cli mcp`
// is an MCP server over stdio.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

function binary() {
  if (process.env.CTXLS_BINARY) return process.env.CTXLS_BINARY;
  const pkg = `@ctxls/cli-${process.platform}-${process.arch}`;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    process.stderr.write(
      `ctxls: no ctxls binary for ${process.platform}-${process.arch}: the package ${pkg} is not installed ` +
        `(npm leaves optional dependencies out for other platforms, or with --omit=optional). ` +
        `Set CTXLS_BINARY to a ctxls binary, or build one from source (README: "Install").\n`,
    );
    process.exit(1);
  }
  const bin = path.join(dir, "bin", process.platform === "win32" ? "ctxls.exe" : "ctxls");
  try {
    fs.accessSync(bin, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(bin, 0o755); // a tarball unpacked without its modes
    } catch {
      // spawn reports it
    }
  }
  return bin;
}

const bin = binary();
// CTXLS_PARENT_PID: ctxls stops once this process is gone, however it
// went. The signals below are forwarded; SIGKILL cannot be caught, and
// SIGQUIT ends node at once, so without it a launcher killed that way
// would leave ctxls running, its stdin still open to the client.
const child = spawn(bin, process.argv.slice(2), {
  stdio: "inherit",
  env: { ...process.env, CTXLS_PARENT_PID: String(process.pid) },
});
const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const sig of signals) process.on(sig, () => child.kill(sig));
child.on("error", (e) => {
  process.stderr.write(`ctxls: cannot start ${bin}: ${e.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    for (const sig of signals) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
