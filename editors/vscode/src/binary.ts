// Finding the ctxls binary: the "ctxls.path" setting, else the binary a
// platform-specific package of the extension carries (bin/ctxls, made by
// make dist), else "ctxls" on PATH. No vscode import.
import * as fs from "node:fs";
import * as path from "node:path";

// INSTALL_COMMAND builds ctxls in a checkout of ctxls (ctxls is not
// published to the Go module proxy yet); the platform-specific extension
// packages carry it instead (make dist).
export const INSTALL_COMMAND = "go install ./cmd/ctxls";

export type BinaryLookup =
  | { found: true; path: string }
  | { found: false; message: string };

function isExecutableFile(p: string, platform: NodeJS.Platform): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (platform === "win32") return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * findBinary resolves the server binary. SETTING is the "ctxls.path" value:
 * a bare name is looked up on PATH (with PATHEXT on Windows); an absolute
 * path (or ~/…) is used as it is. A relative path is refused: it would run
 * a file of whatever folder is open (a repository's own ./bin/ctxls).
 * Empty means the binary the extension carries (BUNDLED, when it is an
 * executable file), else "ctxls" on PATH. When nothing executable is found,
 * message says what was looked for and how to install ctxls.
 */
export function findBinary(
  setting: string | undefined,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  bundled?: string,
): BinaryLookup {
  const explicit = setting !== undefined && setting.trim() !== "";
  if (!explicit && bundled && isExecutableFile(bundled, platform)) return { found: true, path: bundled };
  const name = explicit ? setting.trim() : "ctxls";
  const expanded = name.startsWith("~/") && env.HOME ? path.join(env.HOME, name.slice(2)) : name;
  const exts = platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").concat([""]) : [""];
  if (expanded.includes("/") || (platform === "win32" && expanded.includes("\\"))) {
    const absolute = platform === "win32" ? path.win32.isAbsolute(expanded) : path.posix.isAbsolute(expanded);
    if (!absolute) {
      return {
        found: false,
        message: missingMessage(
          `"${expanded}" (the ctxls.path setting) is a relative path, which would run a file of the open folder: give an absolute path, or a name on PATH`,
        ),
      };
    }
    for (const ext of exts) {
      if (isExecutableFile(expanded + ext, platform)) return { found: true, path: expanded + ext };
    }
    return { found: false, message: missingMessage(`"${expanded}" (the ctxls.path setting) is not an executable file`) };
  }
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((d) => d !== "");
  for (const dir of dirs) {
    for (const ext of exts) {
      const p = path.join(dir, expanded + ext);
      if (isExecutableFile(p, platform)) return { found: true, path: p };
    }
  }
  return { found: false, message: missingMessage(`"${expanded}" was not found on PATH`) };
}

function missingMessage(what: string): string {
  return (
    `ctxls: the server binary cannot be started: ${what}. ` +
    `Install this extension's package for your platform (ctxls-linux-x64-….vsix, ctxls-darwin-arm64-….vsix, ctxls-win32-x64-….vsix, …, which carries the server; ` +
    `make dist in a ctxls checkout builds it), or build ctxls in a checkout of ctxls with \`${INSTALL_COMMAND}\` (needs Go, and gcc unless CGO_ENABLED=0) ` +
    `and make sure it is on PATH or set "ctxls.path" to the binary.`
  );
}
