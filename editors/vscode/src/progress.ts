// The status bar's view of the server: starting, indexing (from $/progress),
// ready, stopped. No vscode import: extension.ts renders the view.

/** A $/progress value (LSP WorkDoneProgressBegin / Report / End). */
export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
  percentage?: number;
}

export interface StatusView {
  /** Status bar text, with a codicon. */
  text: string;
  tooltip: string;
  /** Whether it is an error (the item gets the error background). */
  error: boolean;
}

interface Task {
  title: string;
  message?: string;
  percentage?: number;
}

export class IndexStatus {
  private state: "starting" | "running" | "stopped" | "failed" = "starting";
  private detail = "";
  private readonly tasks = new Map<string, Task>();
  private lastDone?: string;

  starting(): void {
    this.state = "starting";
    this.tasks.clear();
  }

  running(version?: string): void {
    this.state = "running";
    this.detail = version ? `ctxls ${version}` : "ctxls";
  }

  stopped(): void {
    this.state = "stopped";
    this.tasks.clear();
  }

  failed(message: string): void {
    this.state = "failed";
    this.detail = message;
    this.tasks.clear();
  }

  /** progress applies one $/progress notification of TOKEN. */
  progress(token: string | number, value: ProgressValue): void {
    const key = String(token);
    switch (value.kind) {
      case "begin":
        this.tasks.set(key, { title: value.title ?? "Indexing", message: value.message, percentage: value.percentage });
        break;
      case "report": {
        const t = this.tasks.get(key) ?? { title: "Indexing" };
        if (value.message !== undefined) t.message = value.message;
        if (value.percentage !== undefined) t.percentage = value.percentage;
        this.tasks.set(key, t);
        break;
      }
      case "end": {
        const t = this.tasks.get(key);
        this.tasks.delete(key);
        this.lastDone = [doneTitle(t?.title), value.message].filter((s) => s).join(": ");
        break;
      }
    }
  }

  /** indexing tells whether a $/progress task is running. */
  get indexing(): boolean {
    return this.tasks.size > 0;
  }

  view(): StatusView {
    switch (this.state) {
      case "starting":
        return { text: "$(sync~spin) ctxls", tooltip: "ctxls: starting the server", error: false };
      case "stopped":
        return { text: "$(circle-slash) ctxls", tooltip: "ctxls: the server is stopped (ctxls: Restart Server)", error: false };
      case "failed":
        return { text: "$(error) ctxls", tooltip: this.detail, error: true };
      case "running":
        break;
    }
    const first = this.tasks.values().next();
    if (!first.done) {
      const t = first.value;
      const pct = t.percentage !== undefined ? ` ${Math.round(t.percentage)}%` : "";
      const msg = t.message ? ` ${t.message}` : "";
      return {
        text: `$(sync~spin) ctxls:${pct}${msg}`.trimEnd(),
        tooltip: `${this.detail}: ${t.title}${msg}${pct}`,
        error: false,
      };
    }
    return {
      text: "$(check) ctxls",
      tooltip: `${this.detail}: ready${this.lastDone ? ` (${this.lastDone})` : ""}`,
      error: false,
    };
  }
}

/**
 * doneTitle says a finished task's title in the past: "Indexing shop" is
 * "shop indexed" (the tooltip reads "ready (shop indexed: 12 files, …)",
 * not "ready (Indexing shop: …)"); another title is "TITLE done".
 */
export function doneTitle(title: string | undefined): string | undefined {
  if (!title) return title;
  const m = /^Indexing\b\s*(.*)$/.exec(title);
  if (m) return m[1] ? `${m[1]} indexed` : "indexed";
  return `${title} done`;
}
