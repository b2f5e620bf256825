// Against the real server (build/cli/isamap, skipped if not built): the parameters the extension
// builds for isamap's custom requests and code actions, and how it reads the answers.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as childProcess from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ProgressType, StreamMessageReader, StreamMessageWriter, createMessageConnection, type MessageConnection } from 'vscode-jsonrpc/node';
import { SERVER_ARGS, initializationOptions, readSettings } from '../src/settings';
import { diagramMessage, diagramParams } from '../src/protocol';
import { mappingItems, isPinAction } from '../src/mappings';
import { ProgressView, newWorkDoneToken, withWorkDoneToken } from '../src/progress';
import { TARGETS_METHOD, parseTargets, targetPickItems, targetsParams } from '../src/targets';
import { requestParams, targetCodeText, scheduleText } from '../src/documents';
import { HAVE_ISAMAP, ISAMAP, REPO_ROOT } from './paths';

const skip = !HAVE_ISAMAP && 'build/cli/isamap not built';
let proc: childProcess.ChildProcess | undefined;
let conn: MessageConnection;
const file = path.join(REPO_ROOT, 'samples', 'gemm.isam');
const uri = 'file://' + file;
// The statement of gemm, and the instance the test uses (small: quick to schedule).
const statement = { line: 8, character: 4 };

before(async () => {
  if (skip) return;
  proc = childProcess.spawn(ISAMAP, [...SERVER_ARGS, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  // Writes after the server has gone (at the end) report EPIPE here rather than crash the run.
  proc.stdin!.on('error', () => {});
  conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
  conn.listen();
  const settings = readSettings((k) => ({ target: 'x86_avx512', debounceMs: 0, scheduleCandidates: 50 } as Record<string, unknown>)[k]);
  const init = await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
    initializationOptions: initializationOptions(settings),
  });
  assert.ok((init as { capabilities: unknown }).capabilities);
  conn.sendNotification('initialized', {});
  // Only the small instance, so scheduling is quick.
  const text = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('instance ') || l.startsWith('instance gemm_small ') || l.startsWith('instance gemm_tn_small') || l.startsWith('instance gemm_nt_small') || l.startsWith('instance gemm_bf16_small'))
    .join('\n');
  conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'isam', version: 1, text } });
});

after(async () => {
  if (!proc) return;
  const server = proc;
  const exited = new Promise<void>((resolve) => {
    if (server.exitCode !== null) resolve();
    else server.once('exit', () => resolve());
  });
  try {
    await conn.sendRequest('shutdown');
    // Awaited: a write still pending when the server exits must not fail after the test ends.
    await conn.sendNotification('exit');
  } catch {
    // already gone
  }
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10000))]);
  conn.dispose();
  server.kill();
});

test('isamap/diagram: the kernel view is an SVG for the panel', { skip, timeout: 60000 }, async () => {
  const answer = await conn.sendRequest('isamap/diagram', diagramParams(uri, statement, 'kernel'));
  const m = diagramMessage(1, 'kernel', answer);
  assert.equal(m.type, 'svg');
  assert.match((m as { svg: string }).svg, /<svg[\s>]/);
  assert.match((m as { caption: string }).caption, /kernel gemm · instance gemm_small · target x86_avx512/);
});

test('isamap/diagram: the mapping view takes a candidate; a bad one is an error the panel shows', { skip, timeout: 60000 }, async () => {
  const ok = diagramMessage(1, 'mapping', await conn.sendRequest('isamap/diagram', diagramParams(uri, statement, 'mapping', 0)));
  assert.equal(ok.type, 'svg');
  let err: unknown;
  try {
    await conn.sendRequest('isamap/diagram', diagramParams(uri, statement, 'mapping', 9999));
  } catch (e) {
    err = e;
  }
  const m = diagramMessage(2, 'mapping', undefined, err);
  assert.equal(m.type, 'message');
  assert.match((m as { text: string }).text, /does not exist/);
});

test('isamap/diagram: no kernel here gives a message, not a blank panel', { skip, timeout: 60000 }, async () => {
  const hw = 'file://' + path.join(REPO_ROOT, 'hwdesc', 'systolic16.isam');
  conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri: hw, languageId: 'isam', version: 1, text: fs.readFileSync(path.join(REPO_ROOT, 'hwdesc', 'systolic16.isam'), 'utf8') },
  });
  const m = diagramMessage(1, 'kernel', await conn.sendRequest('isamap/diagram', diagramParams(hw, { line: 0, character: 0 }, 'kernel')));
  assert.equal(m.type, 'message');
  assert.ok((m as { text: string }).text.length > 0);
  const h = diagramMessage(2, 'hardware', await conn.sendRequest('isamap/diagram', diagramParams(hw, { line: 0, character: 0 }, 'hardware')));
  assert.equal(h.type, 'svg');
});

test('isamap/mappings: candidates for the picker', { skip, timeout: 60000 }, async () => {
  const items = mappingItems(await conn.sendRequest('isamap/mappings', { textDocument: { uri }, position: statement }));
  assert.ok(Array.isArray(items), String(items));
  assert.ok((items as { rank?: number }[]).some((i) => i.rank === 0));
});

test('isamap/schedule and isamap/targetCode: the virtual documents', { skip, timeout: 120000 }, async () => {
  const sched = scheduleText(await conn.sendRequest('isamap/schedule', requestParams({ source: uri, position: statement })));
  assert.match(sched, /^\/\/ isamap schedule: kernel gemm/);
  const code = targetCodeText(await conn.sendRequest('isamap/targetCode', requestParams({ source: uri, position: statement, kind: 'asm' })), 'asm');
  assert.match(code, /^# isamap target code \(asm\): kernel gemm/);
  assert.match(code, /vfmadd|vmul|vadd|zmm|ymm/);
});

test('code actions at the statement include "Pin this schedule"', { skip, timeout: 120000 }, async () => {
  const actions = (await conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: statement, end: statement },
    context: { diagnostics: [] },
  })) as { title: string; edit?: unknown }[];
  const pin = actions.find((a) => isPinAction(a.title));
  assert.ok(pin, JSON.stringify(actions.map((a) => a.title)));
  assert.ok(pin.edit);
});

test('a request with a workDoneToken gets $/progress begin and end on it before its answer', { skip, timeout: 120000 }, async () => {
  const token = newWorkDoneToken();
  const values: { kind?: string; title?: string }[] = [];
  const shown: string[] = [];
  // The view the extension drives, with no delay, fed what the server sends.
  const view = new ProgressView(
    { start: (t) => shown.push(`start ${t}`), report: () => {}, stop: () => shown.push('stop') },
    { title: 'isamap: scheduling…' },
  );
  const listening = conn.onProgress(new ProgressType<unknown>(), token, (v) => {
    values.push(v as { kind?: string; title?: string });
    view.onValue(v);
  });
  try {
    const answer = await conn.sendRequest('isamap/schedule', withWorkDoneToken(requestParams({ source: uri, position: statement }), token));
    assert.match(scheduleText(answer), /^\/\/ isamap schedule: kernel gemm/);
  } finally {
    listening.dispose();
    view.done();
  }
  assert.deepEqual(values.map((v) => v.kind), ['begin', 'end']);
  assert.match(values[0].title ?? '', /^Scheduling gemm/);
  assert.deepEqual(shown, ['start isamap: scheduling…', 'stop']);
});

test('isamap/targets: the picker lists host, the shipped targets with their files, the current one checked', { skip, timeout: 60000 }, async () => {
  const listed = parseTargets(await conn.sendRequest(TARGETS_METHOD, targetsParams(uri)));
  assert.ok(listed, 'an answer with a targets list');
  const host = listed.find((t) => t.name === 'host');
  assert.equal(host?.origin, 'host');
  const avx512 = listed.find((t) => t.name === 'x86_avx512');
  assert.ok(avx512, JSON.stringify(listed.map((t) => t.name)));
  assert.ok(avx512.path?.endsWith(path.join('hwdesc', 'x86_avx512.isam')), avx512.path);
  const items = targetPickItems('x86_avx512', listed);
  assert.equal(items.find((i) => i.picked)?.target, 'x86_avx512');
  // Without a document: the same names the setting could resolve anywhere.
  assert.ok(parseTargets(await conn.sendRequest(TARGETS_METHOD, targetsParams(undefined)))?.some((t) => t.name === 'x86_avx512'));
});
