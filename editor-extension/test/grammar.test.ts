// Tokenises .isam text with the extension's TextMate grammar (vscode-textmate, as VS Code does)
// and checks the scopes of keywords, types, functions, quantities, operators and names.
import { test, before } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import { EXT_ROOT, REPO_ROOT } from './paths';

let grammar: textmate.IGrammar;

before(async () => {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (p: string[]) => new oniguruma.OnigScanner(p),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope: string) => {
      if (scope !== 'source.isam') return null;
      const file = path.join(EXT_ROOT, 'syntaxes', 'isam.tmLanguage.json');
      return textmate.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
  });
  const g = await registry.loadGrammar('source.isam');
  assert.ok(g);
  grammar = g;
});

interface Tok {
  text: string;
  scopes: string[];
}

function tokenize(src: string): Tok[] {
  let state = textmate.INITIAL;
  const out: Tok[] = [];
  for (const line of src.split('\n')) {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) out.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    state = r.ruleStack;
  }
  return out;
}

/** The scopes of the first token whose text is `text` (after `after`, if given). */
function scopeOf(toks: Tok[], text: string, nth = 0): string {
  const found = toks.filter((t) => t.text.trim() === text);
  assert.ok(found[nth], `no token '${text}' (#${nth}) in ${JSON.stringify(toks.map((t) => t.text))}`);
  return found[nth].scopes.join(' ');
}

test('kernel declaration, types, tensors, indices, operators', () => {
  const t = tokenize('kernel gemm<M, N, K>(A: f32[M, K], B: bf16[K, N]) -> (C: f32[M, N]) {\n  C[m, n] += A[m, k] * B[k, n];   // a sum over k\n}');
  assert.match(scopeOf(t, 'kernel'), /keyword\.other\.kernel/);
  assert.match(scopeOf(t, 'gemm'), /entity\.name\.function\.kernel/);
  assert.match(scopeOf(t, 'f32'), /storage\.type\.element/);
  assert.match(scopeOf(t, 'bf16'), /storage\.type\.element/);
  assert.match(scopeOf(t, 'A'), /variable\.parameter\.tensor/);
  assert.match(scopeOf(t, '->'), /keyword\.operator\.arrow/);
  assert.match(scopeOf(t, 'C', 1), /variable\.other\.tensor/);
  assert.match(scopeOf(t, 'm'), /variable\.other\.index/);
  assert.match(scopeOf(t, '+='), /keyword\.operator\.assignment\.compound/);
  assert.match(scopeOf(t, 'a sum over k'), /comment\.line\.double-slash/);
});

test('functions, max= and where ranges', () => {
  const t = tokenize('  Y[i] max= relu(X[i] + tanh(B[i])) where i in 0..N;\n  Z[i] min= exp(sqrt(abs(X[i])));');
  assert.match(scopeOf(t, 'max='), /keyword\.operator\.assignment\.compound/);
  assert.match(scopeOf(t, 'min='), /keyword\.operator\.assignment\.compound/);
  assert.match(scopeOf(tokenize('  P[n] *= A[n, k];'), '*='), /keyword\.operator\.assignment\.compound/);
  for (const f of ['relu', 'tanh', 'exp', 'sqrt', 'abs']) assert.match(scopeOf(t, f), /support\.function\.builtin/, f);
  assert.match(scopeOf(t, 'where'), /keyword\.other/);
  assert.match(scopeOf(t, '..'), /keyword\.operator\.range/);
  assert.match(scopeOf(t, 'i', 3), /variable\.other\.index/);
});

test('selections: comparisons, logical operators and ?', () => {
  const t = tokenize('  Y[i] = X[i] >= 0 && !(X[i] == 2) || X[i] != 1 ? X[i] : 0;');
  for (const op of ['>=', '==', '!=']) assert.match(scopeOf(t, op), /keyword\.operator\.comparison/, op);
  for (const op of ['&&', '!', '||']) assert.match(scopeOf(t, op), /keyword\.operator\.logical/, op);
  assert.match(scopeOf(t, '?'), /keyword\.operator\.ternary/);
  assert.match(scopeOf(t, '='), /keyword\.operator\.assignment/);
});

test('every function the language knows is coloured as one (sema::knownFunctions)', () => {
  const fns = ['exp', 'tanh', 'sigmoid', 'relu', 'max', 'min', 'sqrt', 'log', 'abs',
    'rsqrt', 'erf', 'pow', 'sin', 'cos', 'exp2', 'log2', 'floor', 'round'];
  const t = tokenize(fns.map((f) => `  Y${f}[i] = ${f}(X[i]);`).join('\n'));
  for (const f of fns) assert.match(scopeOf(t, f), /support\.function\.builtin/, f);
});

test('instances, targets, memories with units, instructions, asm strings', () => {
  const src = [
    'instance gemm_small = gemm<7, 5, 13>;',
    'target t {',
    '  llvm triple "x86_64-unknown-linux-gnu" cpu "znver4";',
    '  clock 3.6 GHz;',
    '  memory DRAM { size 8 GiB; bandwidth 40 GB/s; }',
    '  memory L1 : DRAM { size 48 KiB; bandwidth 64 B/cycle; latency 4; }',
    '  registers ZMM : L1 { count 32; width 64 B; }',
    '  unit fma { count 2; }',
    '  instr fma16(acc: inout f32[16] in ZMM, a: f32[16] in ZMM) on fma {',
    '    acc[i] += a[i];',
    '  } cost { latency 4; per_cycle 1; } asm "vfmadd231ps {acc}, {a}{{1to16}}";',
    '}',
    '/* block',
    '   comment */',
  ].join('\n');
  const t = tokenize(src);
  assert.match(scopeOf(t, 'instance'), /keyword\.other\.instance/);
  assert.match(scopeOf(t, 'gemm_small'), /entity\.name\.variable\.instance/);
  assert.match(scopeOf(t, 'gemm'), /entity\.name\.function\.kernel/);
  assert.match(scopeOf(t, 'target'), /keyword\.other\.target/);
  assert.match(scopeOf(t, 't'), /entity\.name\.type\.target/);
  assert.match(scopeOf(t, 'llvm'), /keyword\.other/);
  assert.match(scopeOf(t, '3.6'), /constant\.numeric/);
  assert.match(scopeOf(t, 'GHz'), /keyword\.other\.unit/);
  assert.match(scopeOf(t, 'GiB'), /keyword\.other\.unit/);
  assert.match(scopeOf(t, 'GB/s'), /keyword\.other\.unit/);
  assert.match(scopeOf(t, 'KiB'), /keyword\.other\.unit/);
  assert.match(scopeOf(t, 'B/cycle'), /keyword\.other\.unit/);
  assert.match(scopeOf(t, '48'), /constant\.numeric/);
  assert.match(scopeOf(t, 'memory'), /keyword\.other\.memory/);
  assert.match(scopeOf(t, 'DRAM'), /entity\.name\.type\.memory/);
  assert.match(scopeOf(t, 'L1'), /entity\.name\.type\.memory/);
  assert.match(scopeOf(t, 'DRAM', 1), /entity\.other\.inherited-class/);
  assert.match(scopeOf(t, 'registers'), /keyword\.other\.registers/);
  assert.match(scopeOf(t, 'ZMM'), /entity\.name\.type\.memory/);
  assert.match(scopeOf(t, 'unit'), /keyword\.other\.unit/);
  assert.match(scopeOf(t, 'instr'), /keyword\.other\.instr/);
  assert.match(scopeOf(t, 'fma16'), /entity\.name\.function\.instruction/);
  assert.match(scopeOf(t, 'inout'), /storage\.modifier/);
  assert.match(scopeOf(t, 'on'), /keyword\.other/);
  assert.match(scopeOf(t, 'cost'), /keyword\.other/);
  assert.match(scopeOf(t, 'asm'), /keyword\.other/);
  assert.match(scopeOf(t, 'latency'), /support\.type\.property-name/);
  assert.match(scopeOf(t, 'vfmadd231ps'), /string\.quoted\.double/);
  assert.match(scopeOf(t, 'acc', 2), /variable\.other\.placeholder/);
  assert.match(scopeOf(t, '{{'), /constant\.character\.escape/);
  assert.match(scopeOf(t, 'block'), /comment\.block/);
  assert.match(scopeOf(t, 'comment'), /comment\.block/);
});

test('systems, imports, schedules, locals and move', () => {
  const src = [
    'import "x86_avx512.isam";',
    'system soc { host x86_avx512; device systolic16; shared x86_avx512.DRAM, systolic16.DRAM; link a.DRAM -> b.SPAD { bandwidth 16 B/cycle; } }',
    'kernel k<N>(A: f32[N]) -> (B: f32[N]) {',
    '  local T: f32[N];',
    '  T[i] = A[i];',
    '  schedule { map mma; tile SPAD: m 16, n 16; }',
    '  B[i] = T[i];',
    '}',
    'target u { move mvin<R>(dst: out f32[R, 16] in SPAD, src: f32[R, 16] in DRAM) { dst[i, j] = src[i, j]; } }',
  ].join('\n');
  const t = tokenize(src);
  assert.match(scopeOf(t, 'import'), /keyword\.control\.import/);
  assert.match(scopeOf(t, 'x86_avx512.isam'), /string\.quoted/);
  assert.match(scopeOf(t, 'system'), /keyword\.other\.system/);
  assert.match(scopeOf(t, 'soc'), /entity\.name\.type\.target/);
  for (const k of ['host', 'device', 'shared', 'link']) assert.match(scopeOf(t, k), /keyword\.other/, k);
  assert.match(scopeOf(t, 'local'), /keyword\.other\.local/);
  assert.match(scopeOf(t, 'T'), /variable\.other\.tensor/);
  assert.match(scopeOf(t, 'schedule'), /keyword\.other\.schedule/);
  assert.match(scopeOf(t, 'tile'), /support\.type\.property-name/);
  assert.match(scopeOf(t, 'move'), /keyword\.other\.move/);
  assert.match(scopeOf(t, 'mvin'), /entity\.name\.function\.instruction/);
  assert.match(scopeOf(t, 'out'), /storage\.modifier/);
});

test('every shipped sample and hardware file tokenises; keywords are never plain identifiers', () => {
  const dirs = ['samples', 'hwdesc'].map((d) => path.join(REPO_ROOT, d)).filter((d) => fs.existsSync(d));
  let files = 0;
  for (const dir of dirs)
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.isam'))) {
      files++;
      const toks = tokenize(fs.readFileSync(path.join(dir, f), 'utf8'));
      for (const tok of toks) {
        const word = tok.text.trim();
        const scopes = tok.scopes.join(' ');
        if (/\b(comment|string)\b/.test(scopes)) continue;
        if (['kernel', 'instance', 'target', 'memory', 'instr', 'move', 'cost', 'asm'].includes(word))
          assert.match(scopes, /keyword|storage/, `${f}: '${word}' is ${scopes}`);
        if (['f32', 'bf16', 'f16', 'f64', 'i8', 'i32'].includes(word)) assert.match(scopes, /storage\.type\.element/, `${f}: ${word}`);
      }
    }
  if (dirs.length) assert.ok(files > 5);
});
