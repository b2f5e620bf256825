import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { candidateName, formatEstimate, isPinAction, locationArgs, mappingItems, mappingsTitle } from '../src/mappings';
import { EXT_ROOT } from './paths';

// The isamap/mappings answer for gemm_small's statement on host (from `isamap map --format=json`).
const answer = JSON.parse(fs.readFileSync(path.join(EXT_ROOT, 'test', 'fixtures', 'mappings.json'), 'utf8'));

test('mappings: candidates ranked with costs, then rejections', () => {
  const items = mappingItems(answer);
  assert.ok(Array.isArray(items));
  const list = items as Exclude<typeof items, string>;
  assert.equal(list[0].separator, '3 mappings');
  const candidates = list.filter((i) => i.rank !== undefined);
  assert.equal(candidates.length, answer.statements[0].mappings.length);
  assert.equal(candidates[0].rank, 0);
  assert.equal(candidates[0].label, 'fma16');
  assert.match(candidates[0].description, /^#1 · ~22 cycles, 44% utilization, 65 instr$/);
  assert.match(candidates[0].detail, /loops n,k/);
  assert.equal(candidateName(candidates[0]), '#1 fma16');
  const rejected = list.filter((i) => i.rank === undefined && i.separator === undefined);
  assert.equal(rejected.length, answer.statements[0].rejected.length);
  assert.ok(rejected.every((r) => r.description === 'rejected' && r.detail.length > 0));
});

// VS Code shows a group's separator label on the group's first row, beside its label and
// description: a long one cut the best candidate's name to "#1 ...". Nothing on that row may be
// long, and the label is the instruction alone.
test('mappings: the best candidate row is short, the statement is the title', () => {
  const list = mappingItems(answer) as Exclude<ReturnType<typeof mappingItems>, string>;
  const first = list.findIndex((i) => i.rank === 0);
  const separator = list[first - 1].separator ?? '';
  const row = `${list[first].label} ${list[first].description} ${separator}`;
  assert.ok(row.length <= 70, row);
  for (const c of list.filter((i) => i.rank !== undefined)) assert.match(c.label, /^[A-Za-z_][\w.]*$/);
  assert.equal(mappingsTitle(answer), `isamap: mappings on host of ${answer.statements[0].text}`);
  const flagged = mappingItems({ statements: [{ index: 0, mappings: [{ instruction: 'mma', partial: true, estimate: { cycles: 10 } }] }] });
  assert.ok(Array.isArray(flagged));
  assert.equal(flagged[1].label, 'mma');
  assert.equal(flagged[1].description, '#1 · ~10 cycles · partial');
  assert.equal(flagged[0].separator, '1 mapping');
});

test('mappings: several statements are told apart by short separators', () => {
  const two = { kernel: 'mlp', instance: 'mlp_small', target: 'x86_avx512', statements: [
    { index: 0, text: 'H[b, j] += X[b, i] * W1[i, j]', mappings: [{ instruction: 'fma16' }] },
    { index: 1, text: 'Y[b] = max(H[b], 0)', mappings: [] },
  ] };
  const list = mappingItems(two) as Exclude<ReturnType<typeof mappingItems>, string>;
  assert.deepEqual(list.filter((i) => i.separator !== undefined).map((i) => i.separator), ['statement 1: 1 mapping', 'statement 2: 0 mappings']);
  assert.equal(mappingsTitle(two), 'isamap: mappings on x86_avx512 of mlp_small');
  assert.equal(mappingsTitle(null), 'isamap: mappings');
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
