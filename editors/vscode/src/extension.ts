// The VS Code side: starts `ctxls serve` with vscode-languageclient, serves
// the settings, shows indexing progress in the status bar, and implements
// the commands' Host with the vscode API. The logic lives in modules that do
// not import vscode (commands, params, settings, progress, binary, git).
import * as path from "node:path";
import * as readline from "node:readline";
import * as vscode from "vscode";
import {
  LanguageClient,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";

import { findBinary, INSTALL_COMMAND } from "./binary";
import { Commands, type Host, type PickItem, type Requester } from "./commands";
import { workingTreeDiff } from "./git";
import type { EditorState } from "./params";
import { IndexStatus, type ProgressValue } from "./progress";
import { answerConfiguration, serverSettings } from "./settings";
import { stderrLine } from "./log";
import { ContextView, SCHEME } from "./view";

const SECTION = "ctxls";

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;
const status = new IndexStatus();
let statusItem: vscode.StatusBarItem | undefined;
const view = new ContextView();

function settingsNow(resource?: vscode.Uri) {
  const cfg = vscode.workspace.getConfiguration(SECTION, resource);
  return serverSettings((key) => cfg.get(key));
}

function render(): void {
  if (!statusItem) return;
  const v = status.view();
  statusItem.text = v.text;
  statusItem.tooltip = v.tooltip;
  statusItem.backgroundColor = v.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  statusItem.show();
}

function editorState(): EditorState {
  const ed = vscode.window.activeTextEditor;
  if (!ed) return {};
  const doc = ed.document;
  const sel = ed.selection;
  return {
    document: {
      uri: doc.uri.toString(),
      scheme: doc.uri.scheme,
      inWorkspace: vscode.workspace.getWorkspaceFolder(doc.uri) !== undefined,
    },
    selection: {
      start: { line: sel.start.line, character: sel.start.character },
      end: { line: sel.end.line, character: sel.end.character },
      active: { line: sel.active.line, character: sel.active.character },
      text: doc.getText(sel),
    },
  };
}

const host: Host = {
  editorState,
  diffFolder() {
    const ed = vscode.window.activeTextEditor;
    const folder = (ed && vscode.workspace.getWorkspaceFolder(ed.document.uri)) ?? vscode.workspace.workspaceFolders?.[0];
    return folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined;
  },
  format() {
    return vscode.workspace.getConfiguration(SECTION).get<string>("format");
  },
  changesMode() {
    return vscode.workspace.getConfiguration(SECTION).get<string>("changesMode");
  },
  askQuestion(initial) {
    return Promise.resolve(
      vscode.window.showInputBox({
        title: "ctxls: Assemble Context",
        prompt: "What should the context answer? (empty: the cursor or selection alone)",
        value: initial,
        ignoreFocusOut: true,
      }),
    );
  },
  askHandle() {
    return Promise.resolve(
      vscode.window.showInputBox({
        title: "ctxls: Expand",
        prompt: "Handle of a part or omitted candidate (e.g. index/walk.go#L5-60)",
        ignoreFocusOut: true,
      }),
    );
  },
  pick(items: PickItem[]) {
    return Promise.resolve(
      vscode.window.showQuickPick(items, {
        title: "ctxls: Expand: what the last context left out",
        matchOnDescription: true,
        matchOnDetail: true,
      }),
    );
  },
  openDocument(content, language, title) {
    return view.show(content, language, title);
  },
  copy(text) {
    return Promise.resolve(vscode.env.clipboard.writeText(text));
  },
  info: (m) => void vscode.window.showInformationMessage(m),
  warn: (m) => void vscode.window.showWarningMessage(m),
  error: (m) => void vscode.window.showErrorMessage(m),
  withProgress(title, task) {
    return Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        (_progress, token) => task(token),
      ),
    );
  },
};

function requester(): Requester | undefined {
  const c = client;
  if (!c || c.state !== State.Running) return undefined;
  return {
    request: <R>(method: string, params: unknown, token?: unknown) =>
      c.sendRequest<R>(method, params, token as vscode.CancellationToken | undefined),
  };
}

/** readLines calls EACH with every line of INPUT. */
function readLines(input: NodeJS.ReadableStream, each: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", each);
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  status.starting();
  render();
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri;
  const bundled = path.join(context.extensionPath, "bin", process.platform === "win32" ? "ctxls.exe" : "ctxls");
  // ctxls.path is a machine setting: a workspace's .vscode/settings.json
  // cannot choose the program this extension runs.
  const bin = findBinary(cfg.get<string>("path"), process.env, process.platform, bundled);
  if (!bin.found) {
    status.failed(bin.message);
    render();
    output?.appendLine(bin.message);
    const copy = "Copy install command";
    const settings = "Open settings";
    void vscode.window.showErrorMessage(bin.message, copy, settings).then((choice) => {
      if (choice === copy) void vscode.env.clipboard.writeText(INSTALL_COMMAND);
      if (choice === settings) void vscode.commands.executeCommand("workbench.action.openSettings", "ctxls.path");
    });
    return;
  }
  output?.appendLine(`starting ${bin.path} serve`);
  const serverOptions: ServerOptions = {
    command: bin.path,
    args: ["serve"],
    options: ws?.scheme === "file" ? { cwd: ws.fsPath } : {},
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }],
    outputChannel: output,
    // The server's stderr at the right level (log.ts); its messages for
    // the user come as window/logMessage.
    stdioOptions: {
      stdout: (input, channel) => readLines(input, (l) => channel.info(l)),
      stderr: (input, channel) =>
        readLines(input, (l) => {
          const { level, text } = stderrLine(l);
          if (level === "error") channel.error(text);
          else channel.debug(text);
        }),
    },
    initializationOptions: settingsNow(),
    synchronize: { configurationSection: SECTION },
    middleware: {
      workspace: {
        // The server pulls section "ctxls": answer with the settings object it
        // reads (budget nested, extension-only settings left out).
        configuration: (params, token, next) =>
          answerConfiguration(params.items, (scope) => settingsNow(scope ? vscode.Uri.parse(scope) : undefined)) ??
          next(params, token),
      },
      handleWorkDoneProgress: (token, params, next) => {
        status.progress(token, params as ProgressValue);
        render();
        next(token, params);
      },
    },
  };
  const c = new LanguageClient("ctxls", "ctxls", serverOptions, clientOptions);
  client = c;
  context.subscriptions.push(
    c.onDidChangeState((e) => {
      if (e.newState === State.Stopped) status.stopped();
      render();
    }),
  );
  try {
    await c.start();
    status.running(c.initializeResult?.serverInfo?.version);
    const caps = c.initializeResult?.capabilities.experimental as { contextAssemble?: { version?: number } } | undefined;
    if (caps?.contextAssemble?.version !== 1) {
      output?.appendLine(
        `warning: the server does not advertise contextAssemble version 1 (${JSON.stringify(caps?.contextAssemble)}): is ${bin.path} ctxls?`,
      );
    }
  } catch (e) {
    const msg = `ctxls: the server failed to start: ${e instanceof Error ? e.message : String(e)} (see the ctxls output)`;
    status.failed(msg);
    void vscode.window.showErrorMessage(msg);
  }
  render();
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c && c.needsStop()) await c.stop();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("ctxls", { log: true });
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 10);
  statusItem.command = "ctxls.showOutput";
  context.subscriptions.push(output, statusItem, view, vscode.workspace.registerTextDocumentContentProvider(SCHEME, view));

  const commands = new Commands(host, requester, workingTreeDiff);
  context.subscriptions.push(
    vscode.commands.registerCommand("ctxls.assemble", () => commands.assemble()),
    vscode.commands.registerCommand("ctxls.assembleDiff", () => commands.assembleDiff()),
    vscode.commands.registerCommand("ctxls.expand", (handle?: unknown) =>
      commands.expand(typeof handle === "string" ? handle : undefined),
    ),
    vscode.commands.registerCommand("ctxls.restart", async () => {
      await stop();
      await start(context);
    }),
    vscode.commands.registerCommand("ctxls.showOutput", () => output?.show(true)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration(`${SECTION}.path`)) {
        await stop();
        await start(context);
      }
    }),
  );
  output.appendLine(`ctxls extension (node ${process.version}, ${path.basename(process.execPath)})`);
  await start(context);
}

export function deactivate(): Promise<void> {
  return stop();
}
