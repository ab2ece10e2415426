// The working tree's diff, as `ctxls: Assemble Context for Changes` sends it.
// No vscode import.
import { execFile } from "node:child_process";

/** Git's empty tree: the base of a repository without a commit yet. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, maxBuffer: 64 << 20, encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) {
        const why = stderr.trim() || err.message;
        reject(new Error(`git ${args.join(" ")}: ${why}`));
      } else {
        resolve(stdout);
      }
    });
  });
}

/**
 * workingTreeDiff is `git diff --relative HEAD` in DIR: staged and unstaged
 * changes of tracked files, paths relative to DIR (a workspace folder may be
 * a subdirectory of its repository). Before the first commit it diffs
 * against the empty tree. Untracked files are not in it.
 */
export async function workingTreeDiff(dir: string): Promise<string> {
  let base = "HEAD";
  try {
    await git(dir, ["rev-parse", "--verify", "--quiet", "HEAD"]);
  } catch {
    // Not a repository at all: say so. A repository without commits: empty tree.
    await git(dir, ["rev-parse", "--git-dir"]).catch(() => {
      throw new Error(`ctxls: ${dir} is not in a git repository, so there is no diff to send.`);
    });
    base = EMPTY_TREE;
  }
  return git(dir, ["-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff", "--relative", base]);
}
