// The three commands, written against a small Host (what they need of the
// editor) and a Requester (the language client), so that they run under
// node with a stand-in for both. extension.ts implements Host with the
// vscode API and Requester with vscode-languageclient.
import { assembleParams, diffParams, prefill, type EditorState } from "./params";
import {
  ASSEMBLE,
  EXPAND,
  ErrorCodes,
  isRpcError,
  type AssembleParams,
  type AssembleResult,
  type ExpandParams,
  type Omitted,
} from "./protocol";
import { languageOfFormat } from "./settings";

/** An item of the "ctxls: Expand" quick pick. */
export interface PickItem {
  label: string;
  description: string;
  detail: string;
  handle: string;
}

/** What the commands need of the editor. */
export interface Host {
  editorState(): EditorState;
  /** The folder to diff: the active file's workspace folder, else the first one. */
  diffFolder(): string | undefined;
  /** The "format" setting ("markdown" when unset). */
  format(): string | undefined;
  /** The "changesMode" setting: the mode of Assemble Context for Changes ("review" when unset). */
  changesMode(): string | undefined;
  /** Asks for a question; undefined when the user cancels. */
  askQuestion(initial: string): Promise<string | undefined>;
  /** Asks for a handle to expand; undefined when the user cancels. */
  askHandle(): Promise<string | undefined>;
  /** Lets the user pick one of ITEMS; undefined when the user cancels. */
  pick(items: PickItem[]): Promise<PickItem | undefined>;
  /**
   * Shows CONTENT (in LANGUAGE) in the context view: one read-only
   * document, titled TITLE (what was asked), reused by every command.
   */
  openDocument(content: string, language: string, title: string): Promise<void>;
  copy(text: string): Promise<void>;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** Runs TASK with a cancellable progress notification; TASK gets the cancellation token. */
  withProgress<T>(title: string, task: (token: unknown) => Promise<T>): Promise<T>;
}

/** What the commands need of the language client. */
export interface Requester {
  request<R>(method: string, params: unknown, token?: unknown): Promise<R>;
}

/** describeError turns a failed request into the message shown, or undefined for a cancellation. */
export function describeError(e: unknown): string | undefined {
  if (isRpcError(e)) {
    switch (e.code) {
      case ErrorCodes.RequestCancelled:
        return undefined;
      case ErrorCodes.InvalidParams: {
        const field =
          typeof e.data === "object" && e.data !== null ? (e.data as { field?: unknown }).field : undefined;
        const hint =
          typeof field === "string" && /^(budget|encoding|format|strategy|include|exclude)/.test(field)
            ? " (check the ctxls settings)"
            : "";
        return `ctxls: ${e.message}${hint}`;
      }
      case ErrorCodes.ServerNotInitialized:
        return "ctxls: the server is still starting; try again in a moment.";
      default:
        return `ctxls: ${e.message}`;
    }
  }
  if (e instanceof Error) return e.message.startsWith("ctxls:") ? e.message : `ctxls: ${e.message}`;
  return `ctxls: ${String(e)}`;
}

/** summary is the message shown once a result is open and copied. */
export function summary(r: AssembleResult): string {
  const s = r.stats;
  let msg =
    `ctxls: ${s.totalTokens}/${s.maxTokens} tokens, ${s.parts} part${s.parts === 1 ? "" : "s"} ` +
    `from ${s.files} file${s.files === 1 ? "" : "s"}, copied to the clipboard.`;
  if (r.omitted.length > 0) msg += ` ${r.omitted.length} left out (ctxls: Expand).`;
  if (!s.indexComplete) msg += " The index is still being built: the result may be partial.";
  if (s.note) msg += ` ${s.note}`;
  return msg;
}

/** pickItems lists a result's omitted candidates for the quick pick, in the result's order. */
export function pickItems(omitted: Omitted[]): PickItem[] {
  return omitted.map((o) => ({
    label: o.handle,
    description: `${o.tokens} tokens`,
    detail: o.reason,
    handle: o.handle,
  }));
}

/**
 * viewTitle is the context view's title for a request: PREFIX and the
 * question (or handle) on one line, cut to 60 characters.
 */
export function viewTitle(text: string, prefix = "Context"): string {
  const one = text.replace(/\s+/g, " ").trim();
  const cut = one.length > 60 ? one.slice(0, 59).trimEnd() + "…" : one;
  return cut === "" ? prefix : `${prefix}: ${cut}`;
}

export class Commands {
  /** The last context/assemble result: what "ctxls: Expand" offers. */
  last?: AssembleResult;

  constructor(
    private readonly host: Host,
    /** The running client, or undefined when the server is not running. */
    private readonly client: () => Requester | undefined,
    private readonly diff: (dir: string) => Promise<string>,
  ) {}

  /** ctxls: Assemble Context. */
  async assemble(): Promise<AssembleResult | undefined> {
    const client = this.requireClient();
    if (!client) return undefined;
    const state = this.host.editorState();
    const question = await this.host.askQuestion(prefill(state));
    if (question === undefined) return undefined;
    const built = assembleParams(state, question);
    if (!built.ok) {
      this.host.error(built.message);
      return undefined;
    }
    return this.run(client, "ctxls: assembling context…", built.params, viewTitle(question));
  }

  /** ctxls: Assemble Context for Changes. */
  async assembleDiff(): Promise<AssembleResult | undefined> {
    const client = this.requireClient();
    if (!client) return undefined;
    const dir = this.host.diffFolder();
    if (!dir) {
      this.host.error("ctxls: open a folder first: the diff is taken in a workspace folder.");
      return undefined;
    }
    let text: string;
    try {
      text = await this.diff(dir);
    } catch (e) {
      this.host.error(describeError(e) ?? "ctxls: git diff failed");
      return undefined;
    }
    const built = diffParams(text, this.host.changesMode());
    if (!built.ok) {
      this.host.info(built.message);
      return undefined;
    }
    return this.run(client, "ctxls: assembling context for the changes…", built.params, "Context for the changes");
  }

  /**
   * ctxls: Expand. HANDLE comes from a caller (a keybinding's argument);
   * otherwise the user picks one of the last result's omitted candidates,
   * or types one when there is no last result.
   */
  async expand(handle?: string): Promise<AssembleResult | undefined> {
    const client = this.requireClient();
    if (!client) return undefined;
    let h = handle;
    if (h === undefined) {
      const omitted = this.last?.omitted ?? [];
      if (omitted.length > 0) {
        h = (await this.host.pick(pickItems(omitted)))?.handle;
      } else {
        h = await this.host.askHandle();
      }
    }
    if (h === undefined || h.trim() === "") return undefined;
    const params: ExpandParams = { handles: [h.trim()] };
    if (this.last) params.indexState = this.last.stats.indexState;
    return this.run(client, `ctxls: expanding ${h.trim()}…`, params, viewTitle(h.trim(), "Expanded"), EXPAND);
  }

  private requireClient(): Requester | undefined {
    const c = this.client();
    if (!c) this.host.error("ctxls: the server is not running (see the ctxls output; ctxls: Restart Server).");
    return c;
  }

  private async run(
    client: Requester,
    title: string,
    params: AssembleParams | ExpandParams,
    viewName: string,
    method: string = ASSEMBLE,
  ): Promise<AssembleResult | undefined> {
    let result: AssembleResult;
    try {
      result = await this.host.withProgress(title, (token) => client.request<AssembleResult>(method, params, token));
    } catch (e) {
      const msg = describeError(e);
      if (msg) this.host.error(msg);
      return undefined;
    }
    if (method === ASSEMBLE) this.last = result;
    if (result.parts.length === 0) {
      this.host.warn(
        `ctxls: nothing in the workspace matched${result.stats.note ? ` (${result.stats.note})` : ""}.`,
      );
      return result;
    }
    await this.host.openDocument(result.rendered, languageOfFormat(this.host.format()), viewName);
    await this.host.copy(result.rendered);
    this.host.info(summary(result));
    return result;
  }
}
