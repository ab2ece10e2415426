// A small stand-in for the `vscode` module, enough for extension.ts and
// vscode-languageclient to run under node: the members they call are
// implemented and recorded; anything else is an inert proxy (a callable,
// constructible object whose members are proxies too), which is what
// vscode-languageclient's feature classes touch when a capability is absent.
// install() makes require("vscode") return it.
/* eslint-disable @typescript-eslint/no-explicit-any */
import Module = require("node:module");
import { fileURLToPath, pathToFileURL } from "node:url";

function inert(name: string): any {
  return new Proxy(function () {}, {
    get: (_t, k) => (k === "then" || typeof k === "symbol" ? undefined : inert(`${name}.${String(k)}`)),
    construct: () => inert(`new ${name}`),
    apply: () => inert(`${name}()`),
  });
}

/** withFallback returns OBJ, with inert proxies for the members it lacks. */
function withFallback<T extends object>(name: string, obj: T): T {
  return new Proxy(obj, { get: (t, k) => (k in t ? (t as any)[k] : inert(`${name}.${String(k)}`)) });
}

export class Uri {
  readonly scheme: string;
  readonly fsPath: string;
  readonly path: string;
  private constructor(private readonly text: string) {
    const u = new URL(text);
    this.scheme = u.protocol.replace(/:$/, "");
    this.path = u.pathname;
    this.fsPath = this.scheme === "file" ? fileURLToPath(text) : u.pathname;
  }
  static parse(s: string): Uri {
    return new Uri(s);
  }
  static file(p: string): Uri {
    return new Uri(pathToFileURL(p).href);
  }
  static from(c: { scheme: string; path: string; query?: string }): Uri {
    const u = new URL(`${c.scheme}:/x`);
    u.pathname = c.path;
    if (c.query) u.search = c.query;
    return new Uri(u.href);
  }
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return this.text;
  }
}

export interface Pos {
  line: number;
  character: number;
}

/** A text editor as extension.ts reads it. */
export function editor(uri: Uri, text: string, start: Pos, end: Pos = start): any {
  const lines = text.split("\n");
  const offset = (p: Pos) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return {
    document: { uri, getText: (r: { start: Pos; end: Pos }) => text.slice(offset(r.start), offset(r.end)) },
    selection: { start, end, active: end },
  };
}

export type Call = [kind: string, ...args: any[]];

/** A document opened from a content provider (the context view). */
export interface VirtualDoc {
  uri: Uri;
  content: string;
  language: string;
  languageId: string;
}

/** The stand-in's state: what tests set and what they read. */
export class FakeVscode {
  calls: Call[] = [];
  settings: Record<string, unknown> = {};
  folders: { uri: Uri; name: string; index: number }[] = [];
  activeTextEditor: any = undefined;
  commands = new Map<string, (...args: any[]) => any>();
  statusItems: { text: string; tooltip: string; command?: string }[] = [];
  /** Answers of the input box and the quick pick (undefined: the user pressed Escape). */
  inputBox: (options: any) => string | undefined = () => undefined;
  quickPick: (items: any[]) => any = () => undefined;
  clipboard = "";
  /** The content providers registered, by scheme. */
  providers = new Map<string, { provideTextDocumentContent(u: Uri): string }>();
  /** The editors shown (showTextDocument), as window.visibleTextEditors. */
  visible: { document: VirtualDoc; viewColumn: number }[] = [];
  readonly module: any;

  constructor() {
    const noEvent = () => ({ dispose() {} });
    const record = (kind: string) => (...args: any[]) => {
      this.calls.push([kind, ...args]);
    };
    const channel = withFallback("channel", {
      name: "ctxls",
      logLevel: 2,
      appendLine: record("output"),
      append: record("output"),
      info: record("log:info"),
      warn: record("log:warn"),
      error: record("log:error"),
      debug: record("log:debug"),
      trace() {},
      show() {},
      hide() {},
      clear() {},
      dispose() {},
      onDidChangeLogLevel: noEvent,
    });
    const fake = this;
    const workspace = withFallback("workspace", {
      get workspaceFolders() {
        return fake.folders;
      },
      textDocuments: [],
      getConfiguration: (section?: string) => ({
        get: (key: string, dflt?: unknown) => (section === "ctxls" ? fake.settings[key] : undefined) ?? dflt,
        has: () => false,
        inspect: () => undefined,
        update: async () => {},
      }),
      getWorkspaceFolder: (u: Uri) =>
        fake.folders.find((f) => u.scheme === "file" && (u.fsPath + "/").startsWith(f.uri.fsPath + "/")),
      onDidChangeConfiguration: noEvent,
      onDidOpenTextDocument: noEvent,
      onDidCloseTextDocument: noEvent,
      onDidChangeTextDocument: noEvent,
      onDidSaveTextDocument: noEvent,
      onWillSaveTextDocument: noEvent,
      onDidChangeWorkspaceFolders: noEvent,
      registerTextDocumentContentProvider: (scheme: string, p: { provideTextDocumentContent(u: Uri): string }) => {
        this.providers.set(scheme, p);
        return { dispose: () => this.providers.delete(scheme) };
      },
      openTextDocument: async (u: Uri) => {
        const p = this.providers.get(u.scheme);
        if (!p) throw new Error(`no content provider for ${u.toString()}`);
        const content = p.provideTextDocumentContent(u);
        const doc: VirtualDoc = { uri: u, content, language: "plaintext", languageId: "plaintext" };
        this.calls.push(["openTextDocument", doc]);
        return doc;
      },
    });
    const languages = withFallback("languages", {
      setTextDocumentLanguage: async (doc: VirtualDoc, language: string) => {
        doc.language = doc.languageId = language;
        return doc;
      },
    });
    const window = withFallback("window", {
      get activeTextEditor() {
        return fake.activeTextEditor;
      },
      get visibleTextEditors() {
        return fake.visible;
      },
      // The editor groups: one per column shown, holding its visible tab.
      tabGroups: {
        get all() {
          return fake.visible.map((e) => ({ viewColumn: e.viewColumn, tabs: [{ input: { uri: e.document.uri } }] }));
        },
      },
      onDidChangeActiveTextEditor: noEvent,
      onDidChangeVisibleTextEditors: noEvent,
      createOutputChannel: () => channel,
      createStatusBarItem: () => {
        const item = { text: "", tooltip: "", show() {}, hide() {}, dispose() {} };
        this.statusItems.push(item);
        return item;
      },
      showTextDocument: async (doc: VirtualDoc, options: { viewColumn: number }) => {
        this.calls.push(["showTextDocument", doc, options]);
        // A preview tab in that column: it replaces the one shown there.
        const column = options.viewColumn === -2 ? 2 : options.viewColumn;
        this.visible = this.visible.filter((e) => e.viewColumn !== column);
        this.visible.push({ document: doc, viewColumn: column });
        return { document: doc, viewColumn: column };
      },
      showErrorMessage: async (m: string, ...items: string[]) => {
        this.calls.push(["error", m, ...items]);
        return undefined;
      },
      showWarningMessage: async (m: string) => {
        this.calls.push(["warn", m]);
      },
      showInformationMessage: async (m: string) => {
        this.calls.push(["info", m]);
      },
      showInputBox: async (options: any) => {
        this.calls.push(["showInputBox", options]);
        return this.inputBox(options);
      },
      showQuickPick: async (items: any[]) => {
        this.calls.push(["showQuickPick", items]);
        return this.quickPick(items);
      },
      withProgress: (_o: unknown, task: (p: unknown, t: unknown) => unknown) =>
        task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: noEvent }),
    });
    const commands = withFallback("commands", {
      registerCommand: (id: string, fn: (...args: any[]) => any) => {
        this.commands.set(id, fn);
        return { dispose: () => this.commands.delete(id) };
      },
      executeCommand: async (id: string, ...args: any[]) => this.commands.get(id)?.(...args),
    });
    const env = withFallback("env", {
      appName: "stand-in",
      clipboard: {
        writeText: async (t: string) => {
          this.clipboard = t;
        },
      },
    });
    this.module = withFallback("vscode", {
      version: "1.91.0",
      Uri,
      workspace,
      languages,
      window,
      commands,
      env,
      ViewColumn: { Active: -1, Beside: -2, One: 1 },
      ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
      StatusBarAlignment: { Left: 1, Right: 2 },
      ThemeColor: class {
        constructor(readonly id: string) {}
      },
    });
  }

  /** install makes require("vscode") return this stand-in. */
  install(): void {
    const m = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown };
    const load = m._load;
    const fake = this.module;
    m._load = function (this: unknown, req: string, ...rest: unknown[]) {
      return req === "vscode" ? fake : load.call(this, req, ...rest);
    };
  }

  /** logged returns what was logged to the output channel at LEVEL. */
  logged(level: "error" | "warn" | "info" | "debug"): string[] {
    return this.calls.filter((c) => c[0] === "log:" + level).map((c) => String(c[1]));
  }

  messages(kind: "error" | "warn" | "info"): string[] {
    return this.calls.filter((c) => c[0] === kind).map((c) => String(c[1]));
  }

  documents(): VirtualDoc[] {
    return this.calls.filter((c) => c[0] === "openTextDocument").map((c) => c[1]);
  }
}
