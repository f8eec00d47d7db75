// Candidate generation: the playbook's bounded product (with its blind spot) and the coverage-first order.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PyFloat, pyRepr } from '../../../src/core/py/value';
import type { PyValue } from '../../../src/core/py/value';
import {
  MAX_EXAMINED_COMBINATIONS,
  baselineFirstBoundedProduct,
  coverageFirst,
  generateCandidates,
} from '../../../src/core/candidates/generate';
import type { Combination, FlagMap } from '../../../src/core/candidates/generate';

const flags = (o: Record<string, PyValue>): FlagMap => new Map(Object.entries(o));

/** A candidate as `k=v,...` in flag order, Python repr values: order and values both visible. */
const show = (c: Combination) => [...c.flags].map(([k, v]) => `${k}=${pyRepr(v)}`).join(',');

void describe('baseline_first_bounded_product', () => {
  void test('baseline first, then the product with the LAST key varying fastest', () => {
    const got = baselineFirstBoundedProduct(flags({ tp_size: 1 }), flags({ a: [1, 2], b: ['x', 'y'] }), 10);
    assert.deepEqual(got.map(show), [
      'tp_size=1',
      "tp_size=1,a=1,b='x'",
      "tp_size=1,a=1,b='y'",
      "tp_size=1,a=2,b='x'",
      "tp_size=1,a=2,b='y'",
    ]);
    assert.deepEqual(
      got.map((c) => [c.index, c.id]),
      [[0, 'baseline'], [1, 'c1'], [2, 'c2'], [3, 'c3'], [4, 'c4']],
    );
    assert.equal(got[0]?.overrides.size, 0);
    assert.deepEqual([...(got[3]?.overrides ?? [])], [['a', 2], ['b', 'x']]);
  });

  void test('a base key keeps its position; new search keys are appended in search order', () => {
    const base = flags({ model_path: 'm', mem_fraction_static: 0.8, trust_remote_code: true });
    const got = baselineFirstBoundedProduct(base, flags({ schedule_policy: ['lpm'], mem_fraction_static: [0.85] }), 5);
    assert.deepEqual(got.map(show), [
      "model_path='m',mem_fraction_static=0.8,trust_remote_code=True",
      "model_path='m',mem_fraction_static=0.85,trust_remote_code=True,schedule_policy='lpm'",
    ]);
  });

  void test('a combination equal to the baseline is skipped (Python equality: 1 == 1.0 == True)', () => {
    const got = baselineFirstBoundedProduct(flags({ tp_size: 1 }), flags({ tp_size: [new PyFloat(1), 2, true] }), 10);
    assert.deepEqual(got.map(show), ['tp_size=1', 'tp_size=2']);
  });

  void test('a null search value equals an absent key, since both render nothing', () => {
    const got = baselineFirstBoundedProduct(flags({ tp_size: 1 }), flags({ quantization: [null, 'fp8'] }), 10);
    assert.deepEqual(got.map(show), ['tp_size=1', "tp_size=1,quantization='fp8'"]);
  });

  void test('stops at max entries; max 1 is only the baseline (Python would give two)', () => {
    const space = flags({ a: [1, 2, 3], b: [1, 2, 3] });
    assert.equal(baselineFirstBoundedProduct(flags({}), space, 4).length, 4);
    const one = baselineFirstBoundedProduct(flags({ tp_size: 2 }), space, 1);
    assert.deepEqual(one.map(show), ['tp_size=2']);
  });

  void test('a scalar search value counts as a one-element list', () => {
    const got = baselineFirstBoundedProduct(flags({}), flags({ chunked_prefill_size: 8192, a: [1, 2] }), 10);
    assert.deepEqual(got.map(show), ['', 'chunked_prefill_size=8192,a=1', 'chunked_prefill_size=8192,a=2']);
  });

  void test('an empty value list empties the product: only the baseline runs', () => {
    const got = generateCandidates('baseline_first_bounded_product', flags({ tp_size: 1 }), flags({ a: [1, 2], b: [] }), 10);
    assert.deepEqual(got.candidates.map(show), ['tp_size=1']);
    assert.equal(got.totalCombinations, 0);
    assert.deepEqual(got.untried, [{ key: 'a', value: 1 }, { key: 'a', value: 2 }]);
  });

  void test('a huge space is not enumerated: the budget ends it at once', () => {
    const space = new Map<string, PyValue>(Array.from({ length: 20 }, (_, i) => [`k${i}`, Array.from({ length: 10 }, (_, j) => j)]));
    const got = generateCandidates('baseline_first_bounded_product', flags({}), space, 8);
    assert.equal(got.candidates.length, 8);
    assert.equal(got.truncated, false);
    assert.equal(got.totalCombinations, 1e20);
  });

  void test('a huge space of repeated values still ends fast and finds the one new candidate', () => {
    // One repeated value per key: 2^20 combinations, all equal to the baseline, then a real one at the very end.
    const space = new Map<string, PyValue>(Array.from({ length: 20 }, (_, i) => [`k${i}`, [0, new PyFloat(0)]]));
    space.set('last', [0, 1]);
    const base = new Map<string, PyValue>([...space.keys()].map((k) => [k, 0]));
    const got = generateCandidates('baseline_first_bounded_product', base, space, Infinity);
    // Repeats inside one key are dropped up front (they could never add a new candidate), so the real one is found.
    assert.deepEqual(got.candidates.map((c) => c.flags.get('last')), [0, 1]);
    assert.equal(got.truncated, false);
  });

  void test('reports truncated when the examination cap stops a legitimately large search', () => {
    const space = new Map<string, PyValue>(Array.from({ length: 6 }, (_, i) => [`k${i}`, Array.from({ length: 10 }, (_, j) => j)]));
    const got = generateCandidates('baseline_first_bounded_product', flags({}), space, Infinity);
    assert.equal(got.truncated, true);
    assert.equal(got.candidates.length, 1 + MAX_EXAMINED_COMBINATIONS);
  });

  void test('untried shows the blind spot: 5 two-value knobs, budget 8, first knobs never change', () => {
    const space = flags({ a: ['a1', 'a2'], b: ['b1', 'b2'], c: ['c1', 'c2'], d: ['d1', 'd2'], e: ['e1', 'e2'] });
    const got = generateCandidates('baseline_first_bounded_product', flags({}), space, 8);
    assert.equal(got.totalCombinations, 32);
    assert.equal(got.candidates.length, 8);
    assert.deepEqual(got.untried, [
      { key: 'a', value: 'a2' },
      { key: 'b', value: 'b2' },
    ]);
  });
});

void describe('coverage_first', () => {
  void test('every value of every key runs once the budget allows', () => {
    const space = flags({ a: ['a1', 'a2'], b: ['b1', 'b2'], c: ['c1', 'c2'], d: ['d1', 'd2'], e: ['e1', 'e2'] });
    const got = generateCandidates('coverage_first', flags({}), space, 8);
    // baseline, the all-first-values combination, then each knob's second value alone (one pair fills the budget).
    assert.equal(got.candidates.length, 8);
    assert.deepEqual(got.untried, []);
    assert.deepEqual(got.candidates.map(show).slice(0, 4), [
      '',
      "a='a1',b='b1',c='c1',d='d1',e='e1'",
      "a='a2',b='b1',c='c1',d='d1',e='e1'",
      "a='a1',b='b2',c='c1',d='d1',e='e1'",
    ]);
  });

  void test('varies one key at a time around the base value, then pairs', () => {
    const got = coverageFirst(flags({ tp_size: 2, x: 'keep' }), flags({ tp_size: [1, 2, 4], chunk: [256, 512] }), 20);
    assert.deepEqual(got.map(show), [
      "tp_size=2,x='keep'",
      "tp_size=2,x='keep',chunk=256",
      "tp_size=1,x='keep',chunk=256",
      "tp_size=4,x='keep',chunk=256",
      "tp_size=2,x='keep',chunk=512",
      "tp_size=1,x='keep',chunk=512",
      "tp_size=4,x='keep',chunk=512",
    ]);
  });

  void test('with unlimited budget it is a reordering of the bounded product', () => {
    const base = flags({ a: 1, z: true });
    const space = flags({ a: [1, 2, 3], b: ['x', 'y'], c: [true, false], d: 7 });
    const product = baselineFirstBoundedProduct(base, space, 1000).map(show);
    const coverage = coverageFirst(base, space, 1000).map(show);
    assert.equal(coverage.length, product.length);
    assert.deepEqual([...coverage].sort(), [...product].sort());
    assert.notDeepEqual(coverage, product);
  });

  void test('stays fast on a huge space and covers every value within a small budget', () => {
    const space = new Map<string, PyValue>(Array.from({ length: 20 }, (_, i) => [`k${i}`, Array.from({ length: 10 }, (_, j) => j)]));
    const got = generateCandidates('coverage_first', flags({}), space, 2 + 20 * 9);
    assert.deepEqual(got.untried, []);
  });

  void test('max 1 is the baseline alone; an empty list gives only the baseline', () => {
    assert.equal(coverageFirst(flags({ a: 1 }), flags({ a: [2, 3] }), 1).length, 1);
    assert.equal(coverageFirst(flags({ a: 1 }), flags({ a: [2, 3], b: [] }), 10).length, 1);
  });
});
