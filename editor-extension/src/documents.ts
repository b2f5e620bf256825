// Pure: the read-only virtual documents (schedule text, target code): their URIs and contents.
import type { LspPosition } from './protocol';
import { captionOf } from './protocol';

export const SCHEDULE_SCHEME = 'isamap-schedule';
export const CODE_SCHEME = 'isamap-code';

export interface VirtualRef {
  /** The .isam document the virtual one shows something of. */
  source: string;
  position?: LspPosition;
  kind?: 'asm' | 'llvm';
}

function basename(uri: string): string {
  const clean = uri.split(/[?#]/)[0];
  const parts = clean.split('/');
  return decodeURIComponent(parts[parts.length - 1] || 'untitled');
}

/** The path of the virtual document (its tab title): `gemm.isam.s`, `gemm.isam.schedule`. */
export function virtualPath(scheme: string, ref: VirtualRef): string {
  const base = basename(ref.source);
  if (scheme === CODE_SCHEME) return `/${base}${ref.kind === 'llvm' ? '.ll' : '.s'}`;
  return `/${base}.schedule`;
}

export function encodeRef(ref: VirtualRef): string {
  return JSON.stringify(ref);
}

export function decodeRef(query: string): VirtualRef | undefined {
  try {
    const v = JSON.parse(query) as unknown;
    if (typeof v !== 'object' || v === null) return undefined;
    const o = v as Record<string, unknown>;
    if (typeof o.source !== 'string') return undefined;
    const ref: VirtualRef = { source: o.source };
    const p = o.position as Record<string, unknown> | undefined;
    if (p && typeof p.line === 'number' && typeof p.character === 'number') ref.position = { line: p.line, character: p.character };
    if (o.kind === 'asm' || o.kind === 'llvm') ref.kind = o.kind;
    return ref;
  } catch {
    return undefined;
  }
}

export function requestParams(ref: VirtualRef): Record<string, unknown> {
  const p: Record<string, unknown> = { textDocument: { uri: ref.source } };
  if (ref.position) p.position = ref.position;
  if (ref.kind) p.kind = ref.kind;
  return p;
}

function commentFor(kind: 'asm' | 'llvm' | 'schedule'): string {
  return kind === 'llvm' ? ';' : kind === 'asm' ? '#' : '//';
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'object' && e !== null && 'message' in e) return String((e as { message: unknown }).message);
  return String(e);
}

/** The text of the target code document from an isamap/targetCode answer. */
export function targetCodeText(answer: unknown, kind: 'asm' | 'llvm' = 'asm', error?: unknown): string {
  const c = commentFor(kind);
  if (error !== undefined) return `${c} isamap: the server could not compile: ${errorText(error)}\n`;
  if (typeof answer !== 'object' || answer === null) return `${c} isamap: no answer from the server\n`;
  const a = answer as Record<string, unknown>;
  if (typeof a.message === 'string') return `${c} isamap: ${a.message}\n`;
  const head = [`${c} isamap target code (${kind}): ${captionOf(a)}`];
  const ms = a.compileMs as Record<string, unknown> | undefined;
  if (ms && typeof ms === 'object') {
    const f = (k: string) => (typeof ms[k] === 'number' ? `${(ms[k] as number).toFixed(1)} ms` : '?');
    head.push(`${c} compiled in: generate ${f('generate')}, optimize ${f('optimize')}, machine code ${f('machineCode')}`);
  }
  return `${head.join('\n')}\n\n${typeof a.text === 'string' ? a.text : ''}`;
}

/** The text of the schedule document from an isamap/schedule answer. */
export function scheduleText(answer: unknown, error?: unknown): string {
  if (error !== undefined) return `// isamap: the server could not schedule: ${errorText(error)}\n`;
  if (typeof answer !== 'object' || answer === null) return '// isamap: no answer from the server\n';
  const a = answer as Record<string, unknown>;
  if (typeof a.message === 'string') return `// isamap: ${a.message}\n`;
  return `// isamap schedule: ${captionOf(a)}\n\n${typeof a.text === 'string' ? a.text : ''}`;
}
