import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { PIN_NOTE, formatEstimate, isPinAction, locationArgs, mappingItems } from '../src/mappings';
import { EXT_ROOT } from './paths';

// The isamap/mappings answer for gemm_small's statement on host (from `isamap map --format=json`).
const answer = JSON.parse(fs.readFileSync(path.join(EXT_ROOT, 'test', 'fixtures', 'mappings.json'), 'utf8'));

test('mappings: candidates ranked with costs, then rejections', () => {
  const items = mappingItems(answer);
  assert.ok(Array.isArray(items));
  const list = items as Exclude<typeof items, string>;
  assert.ok(list[0].separator?.includes('on host'));
  const candidates = list.filter((i) => i.rank !== undefined);
  assert.equal(candidates.length, answer.statements[0].mappings.length);
  assert.equal(candidates[0].rank, 0);
  assert.match(candidates[0].label, /^#1 fma16/);
  assert.match(candidates[0].description, /cycles/);
  assert.match(candidates[0].description, /% utilization/);
  assert.ok(candidates[0].detail.includes(PIN_NOTE));
  const rejected = list.filter((i) => i.rank === undefined && i.separator === undefined);
  assert.equal(rejected.length, answer.statements[0].rejected.length);
  assert.ok(rejected.every((r) => r.description === 'rejected' && r.detail.length > 0));
});

test('mappings: the server message is passed on', () => {
  assert.equal(mappingItems({ message: 'the document declares no kernel' }), 'the document declares no kernel');
  assert.equal(typeof mappingItems(null), 'string');
  assert.equal(typeof mappingItems({ statements: [] }), 'string');
});

test('estimate formatting', () => {
  assert.equal(formatEstimate({ cycles: 22.2, instructions: 65, utilization: 0.4375 }), '~22 cycles, 44% utilization, 65 instr');
  assert.equal(formatEstimate({ cycles: 3097600, utilization: 0.062 }), '~3,097,600 cycles, 6.2% utilization');
  assert.equal(formatEstimate(undefined), '');
});

test('pin action title', () => {
  assert.ok(isPinAction('Pin this schedule (host, instance gemm_small)'));
  assert.ok(!isPinAction("Change to 'B'"));
});

test('code lens arguments [uri, position]', () => {
  assert.deepEqual(locationArgs(['file:///w/gemm.isam', { line: 8, character: 2 }]), { uri: 'file:///w/gemm.isam', position: { line: 8, character: 2 } });
  const fakeUri = { scheme: 'file', toString: () => 'file:///w/x.isam' };
  assert.deepEqual(locationArgs([fakeUri, { line: 1, character: 0, extra: true }]), { uri: 'file:///w/x.isam', position: { line: 1, character: 0 } });
  assert.deepEqual(locationArgs([]), {});
  assert.deepEqual(locationArgs([42, 'x']), {});
});
