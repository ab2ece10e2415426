// Request params from an editor's state. No vscode import: extension.ts
// reads the state out of the active editor, tests build it by hand.
import type { AssembleParams, Position } from "./protocol";

/** What the commands need to know about the active editor. */
export interface EditorState {
  /** The active document, if any. */
  document?: {
    uri: string;
    /** "file" for files on disk; the server only takes file: URIs as a focus. */
    scheme: string;
    /** Whether the file is inside one of the workspace folders the server indexes. */
    inWorkspace: boolean;
  };
  /** The primary selection (an empty one is the cursor). */
  selection?: {
    start: Position;
    end: Position;
    /** Where the cursor is: start or end of the selection. */
    active: Position;
    /** The selected text ("" for a cursor). */
    text: string;
  };
}

/** The longest question the input box is pre-filled with. */
export const PREFILL_LIMIT = 500;

/**
 * prefill is the input box's initial question: the selected text with runs
 * of white space (new lines included) made one space, at most PREFILL_LIMIT
 * characters.
 */
export function prefill(state: EditorState): string {
  const text = state.selection?.text ?? "";
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > PREFILL_LIMIT ? flat.slice(0, PREFILL_LIMIT) : flat;
}

/** The focus of a request: the cursor, or the start of a selection. */
export function focusOf(state: EditorState): AssembleParams["focus"] | undefined {
  const doc = state.document;
  const sel = state.selection;
  if (!doc || !sel || doc.scheme !== "file" || !doc.inWorkspace) return undefined;
  const empty = sel.start.line === sel.end.line && sel.start.character === sel.end.character;
  const at = empty ? sel.active : sel.start;
  return { uri: doc.uri, position: { line: at.line, character: at.character } };
}

export type Built<T> = { ok: true; params: T } | { ok: false; message: string };

/**
 * assembleParams builds context/assemble params from a question and the
 * editor's state. Budget, encoding, format and the rest are not sent: the
 * server takes them from the settings it pulls (workspace/configuration).
 */
export function assembleParams(state: EditorState, question: string): Built<AssembleParams> {
  const params: AssembleParams = {};
  const q = question.trim();
  if (q !== "") params.query = q;
  const focus = focusOf(state);
  if (focus) params.focus = focus;
  if (!params.query && !params.focus) {
    return {
      ok: false,
      message: "ctxls: type a question, or put the cursor in a file of the workspace to use it as the focus.",
    };
  }
  return { ok: true, params };
}

/** The modes a request for the changes may ask in (the "changesMode" setting). */
export const CHANGES_MODES = ["review", "related"] as const;

/**
 * changesMode is the mode "context for the changes" asks in: the setting's
 * value when it names a mode, else "review" — the changed code whole, its
 * callers and the definitions it uses ("related" is what else may change
 * with it, the changed code a signpost).
 */
export function changesMode(setting: unknown): string {
  return typeof setting === "string" && (CHANGES_MODES as readonly string[]).includes(setting) ? setting : "review";
}

/** diffParams builds context/assemble params for a working-tree diff, asked in MODE (changesMode). */
export function diffParams(diff: string, mode?: unknown): Built<AssembleParams> {
  if (diff.trim() === "") {
    return { ok: false, message: "ctxls: the working tree has no changes (git diff HEAD is empty)." };
  }
  return { ok: true, params: { diff, mode: changesMode(mode) } };
}
