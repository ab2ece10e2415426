// How the server's stderr reaches the ctxls output channel. No vscode import.
//
// The server logs everything it does to stderr (Go's log format:
// "ctxls: 2026/11/27 01:02:03.456789 text"), and what a user must see —
// warnings about settings, refused folders, an index that cannot be
// written — it also sends as window/logMessage, which the client shows at
// its level. vscode-languageclient would show every stderr line as an
// error, most of them twice. So a logged line goes to the channel at debug
// level, without Go's timestamp (the channel adds its own): visible with
// the channel's level set to Debug, never mistaken for an error. What is
// not a log line — a Go panic and its stack, a runtime fatal error — is an
// error.

export type StderrLine = { level: "debug" | "error"; text: string };

const LOGGED = /^ctxls(?: serve| mcp)?: \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d(?:\.\d+)? (.*)$/;

/** stderrLine says at which level LINE of the server's stderr is shown, and as what. */
export function stderrLine(line: string): StderrLine {
  const m = LOGGED.exec(line);
  if (m) return { level: "debug", text: m[1]! };
  return { level: "error", text: line };
}
