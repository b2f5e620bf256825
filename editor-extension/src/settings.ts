// Pure: how the extension reads its settings, finds the server and builds the server's
// initializationOptions and the compile task's command line. No `vscode` import, so that the
// unit tests run under plain Node.
import * as path from 'path';
import * as os from 'os';

/** The settings of the `isamap` section that the extension uses. */
export interface IsamapSettings {
  serverPath: string;
  target: string;
  includeDirs: string[];
  debounceMs: number;
  mappingBudgetMs?: number;
  scheduleCandidates?: number;
  mappingDiagnostics?: boolean;
  /** The tuning database, as written (the server resolves a relative one against the first
   * workspace folder, as tuneArgs's caller does with expandPath). */
  tuningDb: string;
}

/** Reads one key of the `isamap` section (vscode's WorkspaceConfiguration.get, or a fake). */
export type SettingGetter = (key: string) => unknown;

export const DEFAULT_TARGET = 'host';
export const DEFAULT_DEBOUNCE_MS = 150;
export const DEFAULT_TUNING_DB = 'isamap-tuning.json';

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : fallback;
}

function int(v: unknown, fallback: number, lo: number, hi: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi ? v : fallback;
}

export function readSettings(get: SettingGetter): IsamapSettings {
  const s: IsamapSettings = {
    serverPath: str(get('server.path'), ''),
    target: str(get('target'), DEFAULT_TARGET),
    includeDirs: Array.isArray(get('includeDirs'))
      ? (get('includeDirs') as unknown[]).filter((d): d is string => typeof d === 'string' && d !== '')
      : [],
    debounceMs: int(get('debounceMs'), DEFAULT_DEBOUNCE_MS, 0, 10000),
    tuningDb: str(get('tuningDb'), DEFAULT_TUNING_DB),
  };
  const budget = get('mappingBudgetMs');
  if (typeof budget === 'number' && budget > 0) s.mappingBudgetMs = budget;
  const candidates = get('scheduleCandidates');
  if (typeof candidates === 'number' && Number.isInteger(candidates) && candidates > 0 && candidates <= 1000000)
    s.scheduleCandidates = candidates;
  const mapDiags = get('mappingDiagnostics');
  if (typeof mapDiags === 'boolean') s.mappingDiagnostics = mapDiags;
  return s;
}

/**
 * The server's settings as `initializationOptions` (the same keys the server reads from the
 * `isamap` section of workspace/didChangeConfiguration; see lsp/Settings.cpp).
 */
export function initializationOptions(s: IsamapSettings): Record<string, unknown> {
  const o: Record<string, unknown> = {
    target: s.target,
    includeDirs: s.includeDirs,
    debounceMs: s.debounceMs,
    tuningDb: s.tuningDb,
  };
  if (s.mappingBudgetMs !== undefined) o.mappingBudgetMs = s.mappingBudgetMs;
  if (s.scheduleCandidates !== undefined) o.scheduleCandidates = s.scheduleCandidates;
  if (s.mappingDiagnostics !== undefined) o.mappingDiagnostics = s.mappingDiagnostics;
  return o;
}

export type ServerSource = 'setting' | 'bundled' | 'path';

export interface ResolvedServer {
  command: string;
  source: ServerSource;
}

export interface ResolveContext {
  extensionPath: string;
  /** The first workspace folder, against which a relative setting is resolved. */
  workspaceFolder?: string;
  exists: (file: string) => boolean;
  platform?: NodeJS.Platform;
  home?: string;
}

/** The binary bundled in the extension, relative to its root. */
export function bundledServerPath(extensionPath: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionPath, 'server', platform === 'win32' ? 'isamap.exe' : 'isamap');
}

/** Expands `~` and `${workspaceFolder}` and makes a relative path absolute (if a folder is open). */
export function expandPath(p: string, ctx: Pick<ResolveContext, 'workspaceFolder' | 'home'>): string {
  let out = p;
  const home = ctx.home ?? os.homedir();
  if (out === '~' || out.startsWith('~/')) out = home + out.slice(1);
  if (ctx.workspaceFolder) out = out.split('${workspaceFolder}').join(ctx.workspaceFolder);
  // A bare command name ("isamap") is looked up on PATH; only paths are resolved.
  const isPath = out.includes('/') || out.includes('\\');
  if (isPath && !path.isAbsolute(out) && ctx.workspaceFolder) out = path.join(ctx.workspaceFolder, out);
  return out;
}

/** The server binary: the `isamap.server.path` setting, else the bundled binary, else PATH. */
export function resolveServerPath(setting: string | undefined, ctx: ResolveContext): ResolvedServer {
  if (setting && setting.trim() !== '') return { command: expandPath(setting.trim(), ctx), source: 'setting' };
  const bundled = bundledServerPath(ctx.extensionPath, ctx.platform);
  if (ctx.exists(bundled)) return { command: bundled, source: 'bundled' };
  return { command: ctx.platform === 'win32' ? 'isamap.exe' : 'isamap', source: 'path' };
}

/** The server's arguments; vscode-languageclient appends `--stdio` for TransportKind.stdio. */
export const SERVER_ARGS: readonly string[] = ['lsp'];

export type EmitKind = 'obj' | 'asm' | 'llvm' | 'shared' | 'header';

/** `isamap compile FILE --target T --emit=obj [-I DIR ...]`. */
export function compileArgs(file: string, target: string, includeDirs: string[] = [], emit: EmitKind = 'obj'): string[] {
  const args = ['compile', file, '--target', target, `--emit=${emit}`];
  for (const d of includeDirs) args.push('-I', d);
  return args;
}

/**
 * The tuning database's path as the server resolves it (lsp/TuningRecords.cpp): `~` and
 * `${workspaceFolder}` expanded, a relative path taken from the first workspace folder;
 * undefined when it is relative and no folder is open.
 */
export function resolveTuningDb(setting: string, ctx: Pick<ResolveContext, 'workspaceFolder' | 'home'>): string | undefined {
  let p = expandPath(setting, ctx);
  if (path.isAbsolute(p)) return p;
  if (!ctx.workspaceFolder) return undefined;
  p = path.join(ctx.workspaceFolder, p);
  return p;
}

/** `isamap tune FILE --instance I --target T --db DB [-I DIR ...]`. */
export function tuneArgs(file: string, instance: string, target: string, db: string, includeDirs: string[] = []): string[] {
  const args = ['tune', file, '--instance', instance, '--target', target, '--db', db, '--retune'];
  for (const d of includeDirs) args.push('-I', d);
  return args;
}

/**
 * isamap's clang-style diagnostics, `file:line:col: error[E0101]: message` (core/diag/
 * Diagnostic.cpp). The same expression is the `isamap` problem matcher in package.json.
 */
export const PROBLEM_REGEXP = '^(.+?):(\\d+):(\\d+):\\s+(error|warning|info)(?:\\[([A-Z]\\d+)\\])?:\\s+(.*)$';

export interface ParsedProblem {
  file: string;
  line: number;
  column: number;
  severity: string;
  code?: string;
  message: string;
}

export function parseProblemLine(line: string): ParsedProblem | undefined {
  const m = new RegExp(PROBLEM_REGEXP).exec(line);
  if (!m) return undefined;
  return {
    file: m[1],
    line: Number(m[2]),
    column: Number(m[3]),
    severity: m[4],
    code: m[5],
    message: m[6],
  };
}
