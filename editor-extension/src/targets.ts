// Pure: the status bar's target picker. Its list comes from the server's isamap/targets (every
// name the target setting could resolve for the active document: host, the document's and its
// imports' targets, NAME.isam in the -I directories, the workspace folders and the shipped
// hwdesc/), grouped by where each comes from; when the server cannot answer (not running, an
// older server, an error), from the shipped list, and the placeholder says so.

export interface TargetInfo {
  name: string;
  description: string;
}

/** The targets isamap ships (`--target NAME` finds hwdesc/NAME.isam by itself), and `host`. */
export const SHIPPED_TARGETS: readonly TargetInfo[] = [
  { name: 'host', description: 'this machine (the shipped description closest to the CPU)' },
  { name: 'x86_avx512', description: 'AMD Zen 4, AVX-512' },
  { name: 'x86_avx2', description: 'x86-64 with AVX2 and FMA' },
  { name: 'arm_neon', description: 'AArch64 with NEON' },
  { name: 'riscv_rvv', description: 'RISC-V with the vector extension' },
  { name: 'systolic16', description: 'a 16x16 systolic array accelerator' },
  { name: 'generic', description: 'memory only, no vector instructions' },
  { name: 'soc', description: 'a system: host CPU and systolic16 device' },
];

/** Where a target comes from, in the order the picker groups them (the resolution order). */
export const TARGET_ORIGINS = ['host', 'document', 'include', 'workspace', 'shipped'] as const;
export type TargetOrigin = (typeof TARGET_ORIGINS)[number];

/** One entry of the isamap/targets answer. */
export interface ListedTarget {
  name: string;
  kind: 'target' | 'system';
  /** Absent for host. */
  path?: string;
  description: string;
  origin: TargetOrigin;
}

export const TARGETS_METHOD = 'isamap/targets';

/** The separator over each group (short: VS Code shows it beside the group's first row). */
export const ORIGIN_TITLES: Record<TargetOrigin, string> = {
  host: 'this machine',
  document: 'this file and its imports',
  include: 'include directories',
  workspace: 'workspace',
  shipped: 'shipped with isamap',
};

/** The parameters of isamap/targets: the active .isam document, if there is one. */
export function targetsParams(documentUri: string | undefined): { textDocument?: { uri: string } } {
  return documentUri ? { textDocument: { uri: documentUri } } : {};
}

function isOrigin(v: unknown): v is TargetOrigin {
  return typeof v === 'string' && (TARGET_ORIGINS as readonly string[]).includes(v);
}

/**
 * The targets of an isamap/targets answer; entries without a valid name are dropped, an unknown
 * origin or kind read as the most general one. Undefined when the answer is not a list (the
 * picker then falls back to the shipped targets).
 */
export function parseTargets(answer: unknown): ListedTarget[] | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const list = (answer as Record<string, unknown>).targets;
  if (!Array.isArray(list)) return undefined;
  const out: ListedTarget[] = [];
  for (const raw of list) {
    if (typeof raw !== 'object' || raw === null) continue;
    const t = raw as Record<string, unknown>;
    if (typeof t.name !== 'string' || !isTargetName(t.name)) continue;
    const entry: ListedTarget = {
      name: t.name,
      kind: t.kind === 'system' ? 'system' : 'target',
      description: typeof t.description === 'string' ? t.description : '',
      origin: isOrigin(t.origin) ? t.origin : t.name === 'host' ? 'host' : 'shipped',
    };
    if (typeof t.path === 'string' && t.path) entry.path = t.path;
    out.push(entry);
  }
  return out;
}

/** The shipped list in the server's form: what the picker offers without the server. */
export function shippedTargets(): ListedTarget[] {
  return SHIPPED_TARGETS.map((t) => ({
    name: t.name,
    kind: t.name === 'soc' ? 'system' : 'target',
    description: t.description,
    origin: t.name === 'host' ? 'host' : 'shipped',
  }));
}

export interface TargetPickItem {
  label: string;
  description?: string;
  detail?: string;
  target?: string;
  /** The current target (shown checked; the picker starts on it). */
  picked?: boolean;
  /** The item that asks for a name not in the list. */
  other?: boolean;
  /** A separator row's title. */
  separator?: string;
}

function describe(t: ListedTarget): string {
  if (t.kind !== 'system') return t.description;
  return t.description.startsWith('a system') ? t.description : ['system', t.description].filter(Boolean).join(': ');
}

/**
 * The picker's rows: the targets grouped by origin (each name once, where the setting resolves
 * it: the first origin in TARGET_ORIGINS), the current one checked, a file's path as the detail
 * for what is not shipped, and "Other…" last. A current target the list lacks comes first.
 */
export function targetPickItems(current: string, listed: readonly ListedTarget[] = shippedTargets()): TargetPickItem[] {
  const seen = new Set<string>();
  const groups = new Map<TargetOrigin, ListedTarget[]>();
  const rank = (o: TargetOrigin) => TARGET_ORIGINS.indexOf(o);
  for (const t of [...listed].sort((a, b) => rank(a.origin) - rank(b.origin))) {
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    const g = groups.get(t.origin) ?? [];
    g.push(t);
    groups.set(t.origin, g);
  }
  const items: TargetPickItem[] = [];
  if (!seen.has(current))
    items.push({ label: `$(check) ${current}`, description: 'current (from settings), not found for this document', target: current, picked: true });
  for (const origin of TARGET_ORIGINS) {
    const g = groups.get(origin);
    if (!g) continue;
    // host alone needs no heading: its description says what it is.
    if (origin !== 'host') items.push({ label: '', separator: ORIGIN_TITLES[origin] });
    for (const t of g) {
      const item: TargetPickItem = {
        label: t.name === current ? `$(check) ${t.name}` : t.name,
        description: describe(t),
        target: t.name,
        picked: t.name === current,
      };
      if (t.path && origin !== 'shipped') item.detail = t.path;
      items.push(item);
    }
  }
  items.push({ label: '', separator: '' }); // a plain line: "Other…" is of no group
  items.push({ label: 'Other…', description: 'type a target name', other: true });
  return items;
}

/** Why the server's list is missing, for the placeholder (an older server lacks the method). */
export function fallbackNote(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === -32601) return 'this isamap server cannot list them';
  const why = error instanceof Error ? error.message : typeof error === 'object' && error !== null && 'message' in error
    ? String((error as { message: unknown }).message) : String(error);
  return `the server could not list them (${why})`;
}

/**
 * The picker's placeholder: what the target is for, or, for the shipped list, that it is only
 * that and why (first: the input shows only the placeholder's start).
 */
export function targetPickerPlaceholder(current: string, fallback?: string): string {
  return fallback ? `Shipped targets only: ${fallback}` : `The target of mappings, diagrams and target code (now ${current})`;
}

/** A valid target name (an identifier of the language). */
export function isTargetName(s: string): boolean {
  return /^[A-Za-z_][A-Za-z_0-9]*$/.test(s);
}

export function statusBarText(target: string): string {
  return `$(chip) ${target}`;
}

/** Where the picked target is written: the workspace if one is open, else the user settings. */
export function settingsScope(hasWorkspace: boolean): 'workspace' | 'global' {
  return hasWorkspace ? 'workspace' : 'global';
}
