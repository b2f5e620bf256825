import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as childProcess from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  PROBLEM_REGEXP,
  SERVER_ARGS,
  bundledServerPath,
  compileArgs,
  expandPath,
  initializationOptions,
  parseProblemLine,
  readSettings,
  resolveServerPath,
  resolveTuningDb,
  tuneArgs,
} from '../src/settings';
import { EXT_ROOT, HAVE_ISAMAP, ISAMAP, readJson } from './paths';

const getter = (o: Record<string, unknown>) => (k: string) => o[k];

test('settings: defaults when nothing is set', () => {
  const s = readSettings(getter({}));
  assert.deepEqual(s, { serverPath: '', target: 'host', includeDirs: [], debounceMs: 150, tuningDb: 'isamap-tuning.json' });
});

test('settings: values are read and bad ones fall back', () => {
  const s = readSettings(
    getter({
      'server.path': ' /opt/isamap/bin/isamap ',
      target: 'x86_avx512',
      includeDirs: ['/a', 3, '', '/b'],
      debounceMs: 300,
      mappingBudgetMs: 50,
      scheduleCandidates: 10,
      mappingDiagnostics: false,
    }),
  );
  assert.equal(s.serverPath, '/opt/isamap/bin/isamap');
  assert.equal(s.target, 'x86_avx512');
  assert.deepEqual(s.includeDirs, ['/a', '/b']);
  assert.equal(s.debounceMs, 300);
  assert.equal(s.mappingBudgetMs, 50);
  assert.equal(s.scheduleCandidates, 10);
  assert.equal(s.mappingDiagnostics, false);
  const bad = readSettings(getter({ target: '', debounceMs: -1, includeDirs: 'x', scheduleCandidates: 1.5, mappingBudgetMs: 0 }));
  assert.equal(bad.target, 'host');
  assert.equal(bad.debounceMs, 150);
  assert.deepEqual(bad.includeDirs, []);
  assert.equal(bad.scheduleCandidates, undefined);
  assert.equal(bad.mappingBudgetMs, undefined);
});

test('initializationOptions: the server keys only (lsp/Settings.cpp)', () => {
  const s = readSettings(getter({ 'server.path': '/x', target: 'arm_neon', includeDirs: ['/inc'], debounceMs: 0, mappingDiagnostics: true }));
  assert.deepEqual(initializationOptions(s), {
    target: 'arm_neon',
    includeDirs: ['/inc'],
    debounceMs: 0,
    mappingDiagnostics: true,
    tuningDb: 'isamap-tuning.json',
  });
  assert.deepEqual(initializationOptions(readSettings(getter({ tuningDb: '/t/db.json' }))), {
    target: 'host',
    includeDirs: [],
    debounceMs: 150,
    tuningDb: '/t/db.json',
  });
});

test('tuning: the database is found where the server looks, and tune re-measures the instance', () => {
  const ctx = { workspaceFolder: '/ws', home: '/home/u' };
  assert.equal(resolveTuningDb('isamap-tuning.json', ctx), '/ws/isamap-tuning.json');
  assert.equal(resolveTuningDb('~/t.json', ctx), '/home/u/t.json');
  assert.equal(resolveTuningDb('${workspaceFolder}/db/t.json', ctx), '/ws/db/t.json');
  assert.equal(resolveTuningDb('/abs/t.json', {}), '/abs/t.json');
  assert.equal(resolveTuningDb('t.json', {}), undefined);
  assert.deepEqual(tuneArgs('/ws/g.isam', 'g1', 'host', '/ws/t.json', ['/inc']), [
    'tune', '/ws/g.isam', '--instance', 'g1', '--target', 'host', '--db', '/ws/t.json', '--retune', '-I', '/inc',
  ]);
});

test('server path: the setting wins over the bundled binary and PATH', () => {
  const ctx = { extensionPath: '/ext', exists: () => true, platform: 'linux' as const, workspaceFolder: '/ws', home: '/home/u' };
  assert.deepEqual(resolveServerPath('/usr/local/bin/isamap', ctx), { command: '/usr/local/bin/isamap', source: 'setting' });
  assert.deepEqual(resolveServerPath('~/bin/isamap', ctx), { command: '/home/u/bin/isamap', source: 'setting' });
  assert.deepEqual(resolveServerPath('build/cli/isamap', ctx), { command: '/ws/build/cli/isamap', source: 'setting' });
  assert.deepEqual(resolveServerPath('${workspaceFolder}/b/isamap', ctx), { command: '/ws/b/isamap', source: 'setting' });
  assert.deepEqual(resolveServerPath('isamap-dev', ctx), { command: 'isamap-dev', source: 'setting' });
});

test('server path: bundled server/isamap when present, else isamap on PATH', () => {
  const seen: string[] = [];
  const bundled = resolveServerPath('', {
    extensionPath: '/ext',
    platform: 'linux',
    exists: (f) => {
      seen.push(f);
      return true;
    },
  });
  assert.deepEqual(bundled, { command: path.join('/ext', 'server', 'isamap'), source: 'bundled' });
  assert.deepEqual(seen, [path.join('/ext', 'server', 'isamap')]);
  assert.deepEqual(resolveServerPath(undefined, { extensionPath: '/ext', platform: 'linux', exists: () => false }), { command: 'isamap', source: 'path' });
  assert.deepEqual(resolveServerPath('  ', { extensionPath: '/ext', platform: 'win32', exists: () => false }), { command: 'isamap.exe', source: 'path' });
  assert.equal(bundledServerPath('/e', 'win32'), path.join('/e', 'server', 'isamap.exe'));
});

test('server path: a real bundled file is found', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isamap-ext-'));
  fs.mkdirSync(path.join(dir, 'server'));
  assert.equal(resolveServerPath('', { extensionPath: dir, exists: fs.existsSync }).source, 'path');
  fs.writeFileSync(path.join(dir, 'server', 'isamap'), '#!/bin/sh\n', { mode: 0o755 });
  assert.equal(resolveServerPath('', { extensionPath: dir, exists: fs.existsSync }).source, 'bundled');
  fs.rmSync(dir, { recursive: true });
});

test('expandPath leaves a bare command for PATH lookup', () => {
  assert.equal(expandPath('isamap', { workspaceFolder: '/ws', home: '/h' }), 'isamap');
  assert.equal(expandPath('./isamap', { workspaceFolder: '/ws', home: '/h' }), '/ws/isamap');
  assert.equal(expandPath('./isamap', { home: '/h' }), './isamap');
});

test('the server is started as `isamap lsp` (the client adds --stdio)', () => {
  assert.deepEqual([...SERVER_ARGS], ['lsp']);
});

test('compile task arguments', () => {
  assert.deepEqual(compileArgs('/w/gemm.isam', 'x86_avx512'), ['compile', '/w/gemm.isam', '--target', 'x86_avx512', '--emit=obj']);
  assert.deepEqual(compileArgs('g.isam', 'host', ['/i1', '/i2'], 'asm'), ['compile', 'g.isam', '--target', 'host', '--emit=asm', '-I', '/i1', '-I', '/i2']);
});

test('problem matcher: package.json uses the tested expression', () => {
  const pkg = readJson('package.json');
  const pm = pkg.contributes.problemMatchers.find((m: { name: string }) => m.name === 'isamap');
  assert.ok(pm, 'the isamap problem matcher is contributed');
  assert.equal(pm.pattern.regexp, PROBLEM_REGEXP);
  assert.deepEqual([pm.pattern.file, pm.pattern.line, pm.pattern.column, pm.pattern.severity, pm.pattern.code, pm.pattern.message], [1, 2, 3, 4, 5, 6]);
});

test('problem matcher: recorded isamap lines', () => {
  assert.deepEqual(parseProblemLine('broken.isam:9:24: error[E0203]: unknown tensor \'Q\''), {
    file: 'broken.isam',
    line: 9,
    column: 24,
    severity: 'error',
    code: 'E0203',
    message: "unknown tensor 'Q'",
  });
  assert.deepEqual(parseProblemLine("/w/b2.isam:2:16: error[E0101]: unexpected ';'; expected one of '-', '(', NUMBER, ID")?.code, 'E0101');
  assert.equal(parseProblemLine('/w/x.isam:3:1: warning[W0101]: something')?.severity, 'warning');
  assert.equal(parseProblemLine('x.isam:3:1: info[I0301]: no instruction runs it')?.severity, 'info');
  // The source line and the caret that follow a diagnostic are not problems.
  assert.equal(parseProblemLine("    C[m] = A[m] +;"), undefined);
  assert.equal(parseProblemLine('                 ^'), undefined);
  assert.equal(parseProblemLine('isamap: error: no such file'), undefined);
});

test('problem matcher: real output of `isamap check` on a broken file', { skip: !HAVE_ISAMAP && 'build/cli/isamap not built' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isamap-ext-'));
  const file = path.join(dir, 'broken.isam');
  fs.writeFileSync(file, 'kernel g<M>(A: f32[M]) -> (C: f32[M]) {\n  C[m] = A[m] +;\n}\ninstance g4 = g<4>;\n');
  const r = childProcess.spawnSync(ISAMAP, ['check', file], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  const problems = (r.stdout + r.stderr).split('\n').map(parseProblemLine).filter((p) => p !== undefined);
  assert.ok(problems.length >= 1, `no problem found in ${r.stderr}`);
  assert.equal(problems[0].file, file);
  assert.equal(problems[0].line, 2);
  assert.equal(problems[0].column, 16);
  assert.equal(problems[0].severity, 'error');
  assert.match(problems[0].code ?? '', /^E\d{4}$/);
  fs.rmSync(dir, { recursive: true });
});

test('tune: the command line the editor runs is one `isamap tune` takes', { skip: !HAVE_ISAMAP && 'build/cli/isamap not built' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isamap-ext-'));
  const file = path.join(dir, 'g.isam');
  fs.writeFileSync(file, 'kernel g<M>(A: f32[M], B: f32[M]) -> (C: f32[M]) {\n  C[m] = A[m] * B[m];\n}\ninstance g40 = g<40>;\n');
  const db = path.join(dir, 'isamap-tuning.json');
  const r = childProcess.spawnSync(ISAMAP, tuneArgs(file, 'g40', 'host', db).concat(['--trials', '2']), { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^g40 on host: .* tuned, untuned /);
  assert.equal(JSON.parse(fs.readFileSync(db, 'utf8')).records.length, 1);
  fs.rmSync(dir, { recursive: true });
});

test('package.json: settings, commands and activation', () => {
  const pkg = readJson('package.json');
  const props = Object.keys(pkg.contributes.configuration.properties);
  for (const k of ['isamap.server.path', 'isamap.target', 'isamap.includeDirs', 'isamap.debounceMs', 'isamap.trace.server', 'isamap.tuningDb'])
    assert.ok(props.includes(k), k);
  assert.equal(pkg.contributes.configuration.properties['isamap.target'].default, 'host');
  assert.deepEqual(pkg.contributes.configuration.properties['isamap.trace.server'].enum, ['off', 'messages', 'verbose']);
  const commands = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of ['isamap.showDiagram', 'isamap.showMappings', 'isamap.showSchedule', 'isamap.showTargetCode', 'isamap.compileFile', 'isamap.restartServer', 'isamap.selectTarget', 'isamap.tuneInstance'])
    assert.ok(commands.includes(c), c);
  assert.equal(pkg.engines.vscode, '^1.90.0');
  assert.equal(pkg.main, './dist/extension.js');
  assert.ok(fs.existsSync(path.join(EXT_ROOT, pkg.contributes.grammars[0].path)));
  assert.ok(fs.existsSync(path.join(EXT_ROOT, pkg.contributes.snippets[0].path)));
  assert.ok(fs.existsSync(path.join(EXT_ROOT, pkg.contributes.languages[0].configuration)));
});
