// Pure: the isamap/mappings answer as QuickPick items, and the arguments of the commands the
// server's code lenses run ([uri, position]). VS Code's QuickPick gives a row's label the room
// its description and the group's separator label leave, and shows the separator's label on the
// first row of the group: a long separator (the statement's text) cut the best candidate's label
// to "#1 ...". So a label is only the instruction's name, the rank and estimate are the
// description, separators are short, and the statement's text is the picker's title.
import type { LspPosition } from './protocol';

export interface MappingItem {
  label: string;
  description: string;
  detail: string;
  /** The candidate's rank (0 is the best), for candidates; undefined for rejections. */
  rank?: number;
  /** The separator's title, for a separator row. */
  separator?: string;
}

/** What pinning does, the picker's placeholder (the server pins its chosen schedule). */
export const PIN_NOTE = 'Pick one to pin a schedule: the server writes the one its search chose for the statement, not a specific candidate';

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function formatEstimate(e: unknown): string {
  if (typeof e !== 'object' || e === null) return '';
  const o = e as Record<string, unknown>;
  const parts: string[] = [];
  const cycles = num(o.cycles);
  const instructions = num(o.instructions);
  const utilization = num(o.utilization);
  if (cycles !== undefined) parts.push(`~${formatCount(cycles)} cycles`);
  if (utilization !== undefined) {
    const pct = utilization * 100;
    parts.push(`${pct >= 10 ? pct.toFixed(0) : pct.toFixed(1)}% utilization`);
  }
  if (instructions !== undefined) parts.push(`${formatCount(instructions)} instr`);
  return parts.join(', ');
}

function bindingsText(b: unknown): string {
  if (typeof b !== 'object' || b === null) return '';
  return Object.entries(b as Record<string, unknown>)
    .map(([k, v]) => `${k}<-(${Array.isArray(v) ? v.join(',') : String(v)})`)
    .join(' ');
}

function statementsOf(a: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(a.statements) ? (a.statements as Record<string, unknown>[]) : [];
}

/**
 * The picker's title: the statement's text and the target (one statement), or the kernel's
 * instance (several: the cursor was on none).
 */
export function mappingsTitle(answer: unknown): string {
  if (typeof answer !== 'object' || answer === null) return 'isamap: mappings';
  const a = answer as Record<string, unknown>;
  const statements = statementsOf(a);
  const target = typeof a.target === 'string' ? a.target : typeof statements[0]?.target === 'string' ? String(statements[0].target) : '';
  const on = target ? ` on ${target}` : '';
  if (statements.length === 1 && typeof statements[0].text === 'string') return `isamap: mappings${on} of ${statements[0].text}`;
  const of = typeof a.instance === 'string' ? a.instance : typeof a.kernel === 'string' ? a.kernel : '';
  return `isamap: mappings${on}${of ? ` of ${of}` : ''}`;
}

function statementName(st: Record<string, unknown>, fallback: number): string {
  const index = typeof st.index === 'number' && Number.isInteger(st.index) ? st.index : fallback;
  return `statement ${index + 1}`;
}

/** The QuickPick rows for every statement of the answer: candidates, then rejections. */
export function mappingItems(answer: unknown): MappingItem[] | string {
  if (typeof answer !== 'object' || answer === null) return 'The server gave no answer.';
  const a = answer as Record<string, unknown>;
  if (typeof a.message === 'string') return a.message;
  const statements = statementsOf(a);
  if (statements.length === 0) return 'No statement to map here.';
  const items: MappingItem[] = [];
  statements.forEach((st, i) => {
    const mappings = Array.isArray(st.mappings) ? (st.mappings as Record<string, unknown>[]) : [];
    const rejected = Array.isArray(st.rejected) ? (st.rejected as Record<string, unknown>[]) : [];
    const count = `${mappings.length} mapping${mappings.length === 1 ? '' : 's'}`;
    // Short: VS Code shows it on the first candidate's row, beside its label.
    items.push({ label: '', description: '', detail: '', separator: statements.length > 1 ? `${statementName(st, i)}: ${count}` : count });
    mappings.forEach((m, rank) => {
      const flags = [m.partial ? 'partial' : '', m.degenerate ? 'degenerate' : ''].filter(Boolean);
      const loops = Array.isArray(m.loops) && m.loops.length ? `loops ${m.loops.join(',')}` : 'loops none';
      const remainder = typeof m.remainder === 'object' && m.remainder !== null
        ? Object.entries(m.remainder as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`).join(', ')
        : '';
      const detailParts = [bindingsText(m.bindings), loops];
      if (remainder) detailParts.push(`remainder ${remainder}`);
      if (typeof m.note === 'string' && m.note) detailParts.push(m.note);
      const estimate = formatEstimate(m.estimate);
      items.push({
        label: String(m.instruction),
        description: [`#${rank + 1}`, estimate, flags.join(', ')].filter(Boolean).join(' · '),
        detail: detailParts.filter(Boolean).join('  '),
        rank,
      });
    });
    if (rejected.length) {
      items.push({ label: '', description: '', detail: '', separator: `rejected (${rejected.length})` });
      for (const r of rejected)
        items.push({ label: `$(circle-slash) ${String(r.instruction)}`, description: 'rejected', detail: String(r.reason ?? '') });
    }
  });
  return items;
}

/** How a picked candidate is named in messages: "#1 fma16". */
export function candidateName(item: Pick<MappingItem, 'label' | 'rank'>): string {
  return item.rank === undefined ? item.label : `#${item.rank + 1} ${item.label}`;
}

/** The title of the server's "Pin this schedule (...)" code action. */
export function isPinAction(title: string): boolean {
  return title.startsWith('Pin this schedule');
}

export interface LocationArgs {
  uri?: string;
  position?: LspPosition;
}

function positionOf(v: unknown): LspPosition | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const p = v as Record<string, unknown>;
  if (typeof p.line === 'number' && typeof p.character === 'number') return { line: p.line, character: p.character };
  return undefined;
}

/**
 * The [uri, position] a code lens passes (a string and an LSP position; once converted by the
 * client, a vscode.Uri and a vscode.Position, which have the same fields), or nothing from the
 * palette.
 */
export function locationArgs(args: readonly unknown[]): LocationArgs {
  const out: LocationArgs = {};
  const [u, p] = args;
  if (typeof u === 'string') out.uri = u;
  else if (typeof u === 'object' && u !== null && typeof (u as { scheme?: unknown }).scheme === 'string')
    out.uri = String(u);
  const pos = positionOf(p);
  if (pos) out.position = pos;
  return out;
}
