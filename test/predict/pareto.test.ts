// Pareto fronts from hand-made predictions: no member is dominated, a dominated point is left out, failing points,
// candidates that do not start and other scenarios never enter, and the leader is the highest capacity.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { frontsOf } from '../../src/predict/pareto';
import { UNIT_FACTORS, type CandidatePrediction, type ParetoPoint, type PredictedPoint, type ScenarioPrediction } from '../../src/predict/types';
import type { FrameworkKey } from '../../src/core/frameworks/types';

/** A predicted point with the throughput and latencies that matter to the fronts. */
function pt(rate: number, outputThroughput: number, p50TpotMs: number, p50TtftMs: number, passed = true): PredictedPoint {
  return { rate, passed, reasons: passed ? [] : ['p50 TTFT over the limit'], requestThroughput: rate, outputThroughput, p50TtftMs, p99TtftMs: p50TtftMs, p50TpotMs, p99TpotMs: p50TpotMs, p50E2eMs: p50TtftMs, successRate: 1 };
}

function scenario(name: string, curve: PredictedPoint[]): ScenarioPrediction {
  const passing = curve.filter((p) => p.passed);
  const at = passing[passing.length - 1];
  return { scenario: name, concurrency: null, capacity: at?.rate ?? 0, curve, atCapacity: at };
}

function cand(framework: FrameworkKey, id: string, gpus: number, scenarios: ScenarioPrediction[], status: CandidatePrediction['status'] = 'ok'): CandidatePrediction {
  return { framework, candidate: id, command: `${framework} ${id}`, gpus, status, factors: UNIT_FACTORS, relError: 0.3, scenarios };
}

/** a dominates b: at least as good on both axes, better on one. */
function dominates(a: ParetoPoint, b: ParetoPoint, axis: 'perUserTps' | 'p50TtftMs'): boolean {
  const up = axis === 'perUserTps';
  const geT = a.throughputPerGpu >= b.throughputPerGpu;
  const geY = up ? a.perUserTps >= b.perUserTps : a.p50TtftMs <= b.p50TtftMs;
  const gtY = up ? a.perUserTps > b.perUserTps : a.p50TtftMs < b.p50TtftMs;
  return geT && geY && (a.throughputPerGpu > b.throughputPerGpu || gtY);
}

/** Every passing point of a scenario, as the fronts measure it (throughput per GPU, 1000 / p50 TPOT). */
function passingPoints(scenarioName: string, cands: readonly CandidatePrediction[]): ParetoPoint[] {
  return cands.flatMap((c) =>
    (c.scenarios.find((s) => s.scenario === scenarioName)?.curve ?? [])
      .filter((p) => p.passed && c.gpus > 0)
      .map((p) => ({ framework: c.framework, candidate: c.candidate, rate: p.rate, throughputPerGpu: p.outputThroughput / c.gpus, perUserTps: 1000 / p.p50TpotMs, p50TtftMs: p.p50TtftMs })),
  );
}

const key = (p: ParetoPoint): string => `${p.framework} ${p.candidate} @${p.rate}`;

// Per GPU: A is fast per user at low load, B trades latency for throughput, C is beaten by A everywhere,
// D runs on 2 GPUs (its throughput halves per GPU), E does not start.
const CANDS: CandidatePrediction[] = [
  cand('vllm', 'A', 1, [scenario('chat', [pt(1, 1000, 5, 40), pt(2, 1900, 6, 45), pt(4, 3500, 9, 60), pt(8, 3600, 30, 900, false)]), scenario('long', [pt(1, 800, 8, 200)])]),
  cand('sglang', 'B', 1, [scenario('chat', [pt(2, 1800, 6.5, 44), pt(6, 5000, 12, 120)]), scenario('long', [pt(1, 700, 9, 150)])]),
  cand('vllm', 'C', 1, [scenario('chat', [pt(1, 900, 5.5, 50), pt(2, 1700, 7, 70)]), scenario('long', [])]),
  cand('sglang', 'D', 2, [scenario('chat', [pt(8, 6000, 4, 30)]), scenario('long', [])]),
  cand('tokenspeed', 'E', 0, [], 'oom'),
];

describe('Pareto fronts', () => {
  const fronts = frontsOf(['chat', 'long'], CANDS);
  const chat = fronts.find((f) => f.scenario === 'chat');

  test('one front per scenario, in the order given', () => {
    assert.deepEqual(
      fronts.map((f) => f.scenario),
      ['chat', 'long'],
    );
  });

  for (const axis of ['perUserTps', 'p50TtftMs'] as const) {
    test(`no member of the ${axis} front is dominated by any passing point`, () => {
      const front = axis === 'perUserTps' ? chat?.byUserTps : chat?.byTtft;
      assert.ok(front && front.length > 0);
      const all = passingPoints('chat', CANDS);
      assert.equal(all.length, 8);
      for (const m of front) for (const o of all) assert.ok(!dominates(o, m, axis), `${key(o)} dominates ${key(m)} on ${axis}`);
      // Sorted by throughput per GPU, ascending.
      const t = front.map((p) => p.throughputPerGpu);
      assert.deepEqual(t, [...t].sort((a, b) => a - b));
      // And every passing point left out is dominated by some member.
      const members = new Set(front.map(key));
      for (const o of all) if (!members.has(key(o))) assert.ok(front.some((m) => dominates(m, o, axis)), `${key(o)} is left out but no member dominates it`);
    });
  }

  test('dominated points are left out', () => {
    const users = new Set(chat?.byUserTps.map(key));
    const ttft = new Set(chat?.byTtft.map(key));
    // C @1 (900 tok/s per GPU, 181.8 tok/s per user, 50 ms) is beaten by A @1 (1000, 200, 40 ms) on both fronts.
    for (const f of [users, ttft]) assert.ok(!f.has('vllm C @1') && !f.has('vllm C @2'));
    // B @2 (1800, 153.8, 44 ms) is beaten by A @2 (1900, 166.7) on user speed.
    assert.ok(!users.has('sglang B @2'));
    // The failing point (A @8) never enters, though its throughput is the highest.
    assert.ok(!users.has('vllm A @8') && !ttft.has('vllm A @8'));
  });

  test('throughput is per GPU: D on 2 GPUs counts 3000 tok/s per GPU', () => {
    const d = chat?.byUserTps.find((p) => p.candidate === 'D');
    assert.ok(d, 'D (3000/GPU at 250 tok/s per user) is on the front');
    assert.equal(d.throughputPerGpu, 3000);
    assert.equal(d.perUserTps, 250);
    // D beats A @1, A @2 (less throughput, slower per user): they leave the user-speed front.
    assert.ok(!chat?.byUserTps.some((p) => p.candidate === 'A' && p.rate <= 2));
  });

  test('the exact members of both chat fronts', () => {
    assert.deepEqual(chat?.byUserTps.map(key), ['sglang D @8', 'vllm A @4', 'sglang B @6']);
    assert.deepEqual(chat?.byTtft.map(key), ['sglang D @8', 'vllm A @4', 'sglang B @6']);
  });

  test('candidates that do not start and empty scenarios add nothing', () => {
    assert.ok(!fronts.some((f) => [...f.byUserTps, ...f.byTtft].some((p) => p.candidate === 'E')));
    const long = fronts.find((f) => f.scenario === 'long');
    // A beats B per GPU and per user; B keeps its place on the TTFT front with the lower TTFT.
    assert.deepEqual(long?.byUserTps.map(key), ['vllm A @1']);
    assert.deepEqual(long?.byTtft.map(key), ['sglang B @1', 'vllm A @1']);
  });

  test('the leader is the highest capacity', () => {
    assert.deepEqual(chat?.leader, { framework: 'sglang', candidate: 'D', capacity: 8 });
    // A tie keeps the first candidate.
    assert.deepEqual(fronts.find((f) => f.scenario === 'long')?.leader, { framework: 'vllm', candidate: 'A', capacity: 1 });
  });
});
