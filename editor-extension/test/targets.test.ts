import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import {
  ORIGIN_TITLES,
  SHIPPED_TARGETS,
  fallbackNote,
  isTargetName,
  parseTargets,
  settingsScope,
  shippedTargets,
  statusBarText,
  targetPickItems,
  targetPickerPlaceholder,
  targetsParams,
  type ListedTarget,
} from '../src/targets';
import { REPO_ROOT } from './paths';

test('the shipped targets', () => {
  assert.deepEqual(
    SHIPPED_TARGETS.map((t) => t.name),
    ['host', 'x86_avx512', 'x86_avx2', 'arm_neon', 'riscv_rvv', 'systolic16', 'generic', 'soc'],
  );
});

test('every shipped target but host is a file in hwdesc/', { skip: !fs.existsSync(path.join(REPO_ROOT, 'hwdesc')) && 'no hwdesc/' }, () => {
  for (const t of SHIPPED_TARGETS.filter((t) => t.name !== 'host'))
    assert.ok(fs.existsSync(path.join(REPO_ROOT, 'hwdesc', `${t.name}.isam`)), t.name);
});

const rows = (items: ReturnType<typeof targetPickItems>) => items.filter((i) => i.separator === undefined);

test('without the server: the shipped list, the current target marked, "Other…" last', () => {
  const items = targetPickItems('x86_avx2');
  assert.equal(items.filter((i) => i.picked).length, 1);
  assert.equal(items.find((i) => i.picked)?.target, 'x86_avx2');
  assert.equal(items.find((i) => i.picked)?.label, '$(check) x86_avx2');
  assert.ok(items[items.length - 1].other);
  assert.equal(rows(items).length, SHIPPED_TARGETS.length + 1);
  assert.deepEqual(items.filter((i) => i.separator !== undefined).map((i) => i.separator), [ORIGIN_TITLES.shipped, '']);
  const custom = targetPickItems('my_npu');
  assert.equal(custom[0].target, 'my_npu');
  assert.equal(custom[0].picked, true);
  assert.equal(rows(custom).length, SHIPPED_TARGETS.length + 2);
  assert.deepEqual(shippedTargets().filter((t) => t.origin === 'host').map((t) => t.name), ['host']);
});

// What the server answers for a document that imports a target, with `-I inc` and a workspace
// holding npu.isam (lsp: isamap/targets).
const answer = {
  targets: [
    { name: 'host', kind: 'target', description: 'this machine', origin: 'host' },
    { name: 'x86_avx512', kind: 'target', path: '/opt/isamap/hwdesc/x86_avx512.isam', description: 'AMD Zen 4, AVX-512', origin: 'shipped' },
    { name: 'npu', kind: 'target', path: '/w/npu.isam', description: 'our NPU', origin: 'workspace' },
    { name: 'board', kind: 'system', path: '/w/inc/board.isam', description: 'host and npu', origin: 'include' },
    { name: 'mine', kind: 'target', path: '/w/gemm.isam', description: '', origin: 'document' },
    // The same name found twice: the setting resolves the document's first.
    { name: 'npu', kind: 'target', path: '/w/inc/npu.isam', description: 'an older NPU', origin: 'include' },
    { name: 'bad name', kind: 'target', origin: 'workspace' },
    'junk',
  ],
};

test('the server list: grouped by origin in resolution order, each name once', () => {
  const listed = parseTargets(answer);
  assert.ok(listed);
  assert.equal(listed.length, 6);
  const items = targetPickItems('npu', listed);
  assert.deepEqual(
    items.map((i) => (i.separator !== undefined ? `--${i.separator}` : i.target ?? 'other')),
    ['host', `--${ORIGIN_TITLES.document}`, 'mine', `--${ORIGIN_TITLES.include}`, 'board', 'npu',
      `--${ORIGIN_TITLES.shipped}`, 'x86_avx512', '--', 'other'],
  );
  const npu = items.find((i) => i.target === 'npu');
  assert.equal(npu?.picked, true);
  assert.equal(npu?.label, '$(check) npu');
  assert.equal(npu?.detail, '/w/inc/npu.isam');
  assert.equal(items.find((i) => i.target === 'board')?.description, 'system: host and npu');
  // A shipped file's path says nothing new.
  assert.equal(items.find((i) => i.target === 'x86_avx512')?.detail, undefined);
  // Separators stay short: VS Code shows them beside the group's first row.
  assert.ok(Object.values(ORIGIN_TITLES).every((t) => t.length <= 26));
});

test('a current target the server does not know comes first', () => {
  const items = targetPickItems('gone', parseTargets(answer));
  assert.equal(items[0].target, 'gone');
  assert.equal(items[0].picked, true);
  assert.match(items[0].description ?? '', /not found/);
});

test('answers that are not a list fall back', () => {
  assert.equal(parseTargets(null), undefined);
  assert.equal(parseTargets({ message: 'no' }), undefined);
  assert.deepEqual(parseTargets({ targets: [] }), []);
  assert.deepEqual(parseTargets({ targets: [{ name: 'x', origin: 'elsewhere', kind: 'robot' }] }), [
    { name: 'x', kind: 'target', description: '', origin: 'shipped' } satisfies ListedTarget,
  ]);
});

test('targets request parameters, placeholder and fallback note', () => {
  assert.deepEqual(targetsParams('file:///w/g.isam'), { textDocument: { uri: 'file:///w/g.isam' } });
  assert.deepEqual(targetsParams(undefined), {});
  assert.equal(fallbackNote({ code: -32601, message: 'Unhandled method isamap/targets' }), 'this isamap server cannot list them');
  assert.equal(fallbackNote(new Error('the isamap language server is not running')), 'the server could not list them (the isamap language server is not running)');
  assert.equal(targetPickerPlaceholder('host'), 'The target of mappings, diagrams and target code (now host)');
  // The note first: the input shows only the start of a long placeholder.
  assert.equal(targetPickerPlaceholder('host', fallbackNote({ code: -32601 })), 'Shipped targets only: this isamap server cannot list them');
});

test('target names, status bar text, settings scope', () => {
  assert.ok(isTargetName('x86_avx512'));
  assert.ok(!isTargetName('9lives'));
  assert.ok(!isTargetName('a b'));
  assert.equal(statusBarText('soc'), '$(chip) soc');
  assert.equal(settingsScope(true), 'workspace');
  assert.equal(settingsScope(false), 'global');
});
