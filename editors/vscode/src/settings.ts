// The extension's settings (section "ctxls") and the settings object the
// server reads through workspace/configuration (docs/protocol.md, Settings).
// No vscode import: the caller passes a getter over its configuration.

/** Reads one setting of section "ctxls" by its key below the section ("budget.maxTokens"). */
export type SettingGetter = (key: string) => unknown;

/** Settings the server reads, by VS Code key below "ctxls". */
export const SERVER_SETTING_KEYS = [
  "budget.maxTokens",
  "budget.perFileMaxTokens",
  "budget.perPartMaxTokens",
  "encoding",
  "format",
  "strategy",
  "include",
  "exclude",
  "gitHistory",
  "embeddings",
  "embeddingsEndpoint.url",
  "embeddingsEndpoint.model",
  "embeddingsEndpoint.dimensions",
  "embeddingsEndpoint.keyEnv",
  "activity",
] as const;

/** Settings only the extension reads. */
export const CLIENT_SETTING_KEYS = ["path", "trace.server", "changesMode"] as const;

/** The JSON object served for workspace/configuration section "ctxls". */
export interface ServerSettings {
  budget?: { maxTokens?: number; perFileMaxTokens?: number; perPartMaxTokens?: number };
  encoding?: string;
  format?: string;
  strategy?: string;
  include?: string[];
  exclude?: string[];
  gitHistory?: boolean;
  embeddings?: string;
  embeddingsEndpoint?: { url?: string; model?: string; dimensions?: number; keyEnv?: string };
  activity?: boolean;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
}

/**
 * serverSettings builds the settings object the server reads from the
 * editor's settings. Unset and mistyped values are left out, so the server
 * keeps its defaults for them; values of the right type are passed as they
 * are and the server reports the ones it rejects (window/logMessage).
 */
export function serverSettings(get: SettingGetter): ServerSettings {
  const out: ServerSettings = {};
  const budget: NonNullable<ServerSettings["budget"]> = {};
  const max = num(get("budget.maxTokens"));
  const perFile = num(get("budget.perFileMaxTokens"));
  const perPart = num(get("budget.perPartMaxTokens"));
  if (max !== undefined) budget.maxTokens = max;
  if (perFile !== undefined) budget.perFileMaxTokens = perFile;
  if (perPart !== undefined) budget.perPartMaxTokens = perPart;
  if (Object.keys(budget).length > 0) out.budget = budget;
  const encoding = str(get("encoding"));
  const format = str(get("format"));
  const strategy = str(get("strategy"));
  if (encoding !== undefined) out.encoding = encoding;
  if (format !== undefined) out.format = format;
  if (strategy !== undefined) out.strategy = strategy;
  const include = strings(get("include"));
  const exclude = strings(get("exclude"));
  if (include !== undefined) out.include = include;
  if (exclude !== undefined) out.exclude = exclude;
  const gitHistory = get("gitHistory");
  if (typeof gitHistory === "boolean") out.gitHistory = gitHistory;
  const embeddings = str(get("embeddings"));
  if (embeddings !== undefined) out.embeddings = embeddings;
  const endpoint: NonNullable<ServerSettings["embeddingsEndpoint"]> = {};
  const url = str(get("embeddingsEndpoint.url"));
  const model = str(get("embeddingsEndpoint.model"));
  const dimensions = num(get("embeddingsEndpoint.dimensions"));
  const keyEnv = str(get("embeddingsEndpoint.keyEnv"));
  if (url !== undefined) endpoint.url = url;
  if (model !== undefined) endpoint.model = model;
  if (dimensions !== undefined && dimensions > 0) endpoint.dimensions = dimensions;
  if (keyEnv !== undefined) endpoint.keyEnv = keyEnv;
  if (Object.keys(endpoint).length > 0) out.embeddingsEndpoint = endpoint;
  const activity = get("activity");
  if (typeof activity === "boolean") out.activity = activity;
  return out;
}

/** The VS Code language id of a rendered result in FORMAT. */
export function languageOfFormat(format: string | undefined): string {
  switch (format) {
    case "xml":
      return "xml";
    case "json":
      return "json";
    default:
      return "markdown";
  }
}

/** One item of a workspace/configuration request. */
export interface ConfigurationItem {
  section?: string;
  scopeUri?: string;
}

/**
 * answerConfiguration answers a workspace/configuration request: for items
 * of section "ctxls", the settings object of READ(scopeUri); null for any
 * other section. Undefined when no item asks for "ctxls" (the client's
 * default handler answers those).
 */
export function answerConfiguration(
  items: ConfigurationItem[],
  read: (scopeUri: string | undefined) => ServerSettings,
): (ServerSettings | null)[] | undefined {
  if (items.every((i) => i.section !== "ctxls")) return undefined;
  return items.map((i) => (i.section === "ctxls" ? read(i.scopeUri) : null));
}
