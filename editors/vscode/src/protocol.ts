// The parts of the ctxls protocol the extension sends and reads
// (docs/protocol.md in the ctxls repository). Plain types: no vscode import.

export const ASSEMBLE = "context/assemble";
export const EXPAND = "context/expand";

/** An LSP position: 0-based line, UTF-16 code units. */
export interface Position {
  line: number;
  character: number;
}

export interface Budget {
  maxTokens?: number;
  perFileMaxTokens?: number;
  perPartMaxTokens?: number;
}

export interface AssembleParams {
  query?: string;
  focus?: { uri: string; position: Position };
  diff?: string;
  /** "related" (the server's default) or "review" (a diff under review). */
  mode?: string;
  budget?: Budget;
  encoding?: string;
  format?: string;
  strategy?: string;
  include?: string[];
  exclude?: string[];
}

export interface ExpandParams {
  handles: string[];
  indexState?: string;
  budget?: Budget;
  format?: string;
  encoding?: string;
}

export interface LineRange {
  start: number;
  end: number;
}

export interface Part {
  id: string;
  uri: string;
  path: string;
  ranges: LineRange[];
  symbol?: string;
  tokens: number;
  sources?: string[];
  truncated?: boolean;
  handles?: string[];
}

export interface Omitted {
  handle: string;
  path: string;
  ranges: LineRange[];
  tokens: number;
  score: number;
  reason: string;
}

export interface Stats {
  totalTokens: number;
  maxTokens: number;
  files: number;
  parts: number;
  encoding?: string;
  indexState: string;
  indexComplete: boolean;
  note?: string;
}

export interface AssembleResult {
  parts: Part[];
  rendered: string;
  stats: Stats;
  omitted: Omitted[];
  fromHeldState?: boolean;
}

/** JSON-RPC error codes the extension tells apart. */
export const ErrorCodes = {
  InvalidParams: -32602,
  RequestCancelled: -32800,
  RequestFailed: -32803,
  ServerNotInitialized: -32002,
} as const;

/** A JSON-RPC error as vscode-jsonrpc's ResponseError carries it. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export function isRpcError(e: unknown): e is RpcError {
  return (
    typeof e === "object" &&
    e !== null &&
    typeof (e as RpcError).code === "number" &&
    typeof (e as RpcError).message === "string"
  );
}
