// The context view: every command's result in one read-only document
// (a virtual document of the "ctxls" scheme, so closing it never asks to
// save), titled by what was asked, shown in the column where the last one
// is — or beside the editor the first time — as a preview tab, which the
// next result replaces instead of adding a column. When the last result is
// no longer visible (a file opened into the context column replaced its
// preview tab), the next one goes back to that column while it exists:
// "beside" the active editor would open a third group.
import * as vscode from "vscode";

export const SCHEME = "ctxls";

/** How many results the provider keeps (open tabs of older ones re-read them). */
const KEEP = 8;

// Each result has a URI of its own, so a shown document never changes:
// the provider needs no onDidChange.
export class ContextView implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private seq = 0;
  /** The column the last result was shown in. */
  private column?: vscode.ViewColumn;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "(this ctxls result is no longer kept: run the command again)";
  }

  /** show puts CONTENT (in LANGUAGE) in the view, titled TITLE. */
  async show(content: string, language: string, title: string): Promise<void> {
    this.seq++;
    const ext = language === "markdown" ? ".md" : language === "xml" ? ".xml" : language === "json" ? ".json" : "";
    // The tab's title is the path's last segment: no slash in it. The
    // query keeps two results with the same title apart.
    const name = title.replace(/[/\\]/g, "∕") + ext;
    const uri = vscode.Uri.from({ scheme: SCHEME, path: "/" + name, query: String(this.seq) });
    this.texts.set(uri.toString(), content);
    while (this.texts.size > KEEP) this.texts.delete(this.texts.keys().next().value as string);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
    const editor = await vscode.window.showTextDocument(doc, {
      viewColumn: this.contextColumn() ?? vscode.ViewColumn.Beside,
      preview: true,
      preserveFocus: false,
    });
    if (editor?.viewColumn !== undefined) this.column = editor.viewColumn;
  }

  /**
   * contextColumn is where a result goes: the column showing a result, else
   * a group holding a result's tab, else the column of the last result
   * while that group is open; undefined the first time (beside the editor).
   */
  private contextColumn(): vscode.ViewColumn | undefined {
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === SCHEME);
    if (shown?.viewColumn !== undefined) return shown.viewColumn;
    const groups = vscode.window.tabGroups?.all ?? [];
    const holding = groups.find((g) => g.tabs.some((t) => (t.input as { uri?: vscode.Uri } | undefined)?.uri?.scheme === SCHEME));
    if (holding) return holding.viewColumn;
    if (this.column !== undefined && groups.some((g) => g.viewColumn === this.column)) return this.column;
    return undefined;
  }

  dispose(): void {
    this.texts.clear();
  }
}
