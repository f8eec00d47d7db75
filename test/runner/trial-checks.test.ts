// The validity gates' split between the server's faults and the measuring machine's: a trial that is invalid only because the client or the simulated engine's host was the bottleneck is 'environmental' (measured again), never mixed with a server fault.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BenchResult } from '../../src/client';
import { inversionOf, validityOf } from '../../src/runner/trial-checks';

function result(o: { bound?: string | null; failed?: number } = {}): BenchResult {
  const ok = { warmup: false, success: true, outputTokens: 128, outputLenRequested: 128, ignoreEos: true };
  const records = [...Array.from({ length: 20 }, () => ok), ...Array.from({ length: o.failed ?? 0 }, () => ({ ...ok, success: false, outputTokens: 0, errorKind: 'http', error: 'HTTP 500' }))];
  return { records, client: { bound: o.bound ?? null }, metrics: { steady: { tooShort: null } } } as unknown as BenchResult;
}

const noLog = { errors: [], hostBound: [] };
const hostBound = { errors: [], hostBound: ['WARNING autobench-sim host-bound: the simulated engine fell 120 ms behind real time'] };

describe('validity gates', () => {
  test('a clean trial is valid', () => {
    assert.deepEqual(validityOf(result(), noLog, true), { valid: true, reasons: [] });
  });

  test('client-bound or host-bound alone: invalid and environmental, with the reason', () => {
    const c = validityOf(result({ bound: "the client's event loop lagged 31 ms at p99 (limit 20 ms)" }), noLog, true);
    assert.deepEqual([c.valid, c.environmental], [false, true]);
    assert.match(c.reasons[0] ?? '', /^client-bound: /);
    const h = validityOf(result(), hostBound, true);
    assert.deepEqual([h.valid, h.environmental], [false, true]);
    assert.match(h.reasons[0] ?? '', /^host-bound: the simulated engine fell behind real time once/);
  });

  test('a server fault beside an environmental reason is a fault: not environmental, not measured again', () => {
    const v = validityOf(result({ failed: 3 }), hostBound, true);
    assert.equal(v.valid, false);
    assert.equal(v.environmental, undefined);
    assert.equal(v.reasons.length, 2);
    assert.match(v.reasons[0] ?? '', /3 of 23 requests failed/);
    const logged = validityOf(result(), { errors: ['ERROR worker died'], hostBound: [] }, true);
    assert.deepEqual([logged.valid, logged.environmental], [false, undefined]);
  });
});

describe('latency inversions in a rate search', () => {
  const tpot = (value: number, passed = value <= 12) => [{ key: 'max_p50_tpot_ms' as const, limit: 12, value, passed }];

  test('a fail whose limited latency is worse than at a higher rate (by more than 5%) is suspect, with both numbers', () => {
    const why = inversionOf(tpot(13.1), 18, [{ rate: 20, checks: tpot(12.4) }, { rate: 16, checks: tpot(10.9) }]);
    assert.equal(why, 'inconsistent with the search: max_p50_tpot_ms 13.1 at 18 req/s, worse than 12.4 at 20 req/s');
  });

  test('a fail in line with the curve, a small inversion, a pass, or only lower rates: nothing to say', () => {
    assert.equal(inversionOf(tpot(12.4), 20, [{ rate: 24, checks: tpot(13.2) }]), undefined);
    assert.equal(inversionOf(tpot(12.6), 20, [{ rate: 22, checks: tpot(12.2) }]), undefined, 'within 5%');
    assert.equal(inversionOf(tpot(11.9), 18, [{ rate: 20, checks: tpot(10) }]), undefined, 'a pass is not questioned');
    assert.equal(inversionOf(tpot(13.1), 18, [{ rate: 16, checks: tpot(10.9) }]), undefined);
  });
});

