import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { SHIPPED_TARGETS, isTargetName, settingsScope, statusBarText, targetPickItems } from '../src/targets';
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

test('target picker marks the current target and offers another name', () => {
  const items = targetPickItems('x86_avx2');
  assert.equal(items.filter((i) => i.picked).length, 1);
  assert.equal(items.find((i) => i.picked)?.target, 'x86_avx2');
  assert.ok(items[items.length - 1].other);
  const custom = targetPickItems('my_npu');
  assert.equal(custom[0].target, 'my_npu');
  assert.equal(custom[0].picked, true);
  assert.equal(custom.length, SHIPPED_TARGETS.length + 2);
});

test('target names, status bar text, settings scope', () => {
  assert.ok(isTargetName('x86_avx512'));
  assert.ok(!isTargetName('9lives'));
  assert.ok(!isTargetName('a b'));
  assert.equal(statusBarText('soc'), '$(chip) soc');
  assert.equal(settingsScope(true), 'workspace');
  assert.equal(settingsScope(false), 'global');
});
