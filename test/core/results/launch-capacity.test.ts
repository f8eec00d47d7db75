// A launch's capacity reading: headroom ignores a floor that is met, and a repeat that never flipped is held to its own points.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fromPlainJson, type PyObject } from '../../../src/core/py/json';
import { headroomOf, launchCapacities, searchCapacity, KNEE_STEP, type LaunchRow } from '../../../src/core/results/launch-capacity';
import type { SlaCheck, SlaVerdict } from '../../../src/core/results/sla';
import { LOCAL_STEP } from '../../../src/runner/local-search';

function verdict(checks: Array<Omit<SlaCheck, 'passed'>>): SlaVerdict {
  const full = checks.map((c) => ({ ...c, passed: c.key === 'min_success_rate' ? (c.value ?? 0) >= c.limit : (c.value ?? Infinity) <= c.limit }));
  return { passed: full.every((c) => c.passed), reasons: [], checks: full, asWritten: true, disagrees: false, unjudged: false } as unknown as SlaVerdict;
}

const tpot = (ms: number, success = 1): SlaVerdict =>
  verdict([
    { key: 'max_p50_tpot_ms', limit: 25, value: ms },
    { key: 'min_success_rate', limit: 0.99, value: success },
  ] as Array<Omit<SlaCheck, 'passed'>>);

const row = (mode: string, rate: number, v: SlaVerdict, round = 1): LaunchRow => ({ row: fromPlainJson({ status: 'ok', trial: { mode, rate, round } }) as PyObject, verdict: v });

describe('launch capacity', () => {
  test('a met success-rate floor does not flatten the curve: the headroom is the latency share', () => {
    assert.equal(headroomOf(tpot(12.5)), 0.5, 'a 99% floor met by 100% would read 0.99');
    assert.equal(headroomOf(tpot(30)), 1.2);
    assert.ok(Math.abs(headroomOf(tpot(10, 0.9)) - 0.99 / 0.9) < 1e-12, 'a missed floor counts');
    // Read between a pass at 0.5 and a fail at 2 (log-linear): the crossing is halfway, not at the pass.
    const c = searchCapacity([
      { rate: 10, headroom: headroomOf(tpot(12.5)) },
      { rate: 20, headroom: headroomOf(tpot(50)) },
    ]);
    assert.equal(c?.how, 'interpolated');
    assert.ok(Math.abs((c?.capacity ?? 0) - 15) < 1e-9, String(c?.capacity));
  });

  test("a repeat whose walk never flipped is read at most one step beyond its own points, never past the search's curve", () => {
    assert.equal(LOCAL_STEP, KNEE_STEP, 'the walk and the reading use one step');
    // The search's curve is shallow (10 -> 20 req/s only from 0.5 to 0.9): extended, it would put a launch that
    // passed at 40 with headroom 0.6 far above 40.
    const rows = [row('search', 10, tpot(12.5)), row('search', 20, tpot(22.5)), row('search', 21, tpot(40)), row('repeat', 40, tpot(15)), row('repeat', 42.4, tpot(15.5))];
    const { launches } = launchCapacities(rows);
    const repeat = launches.find((l) => l.launch === 'repeat 1');
    assert.ok(repeat, JSON.stringify(launches));
    assert.ok(repeat.capacity >= 42.4 && repeat.capacity <= 42.4 * (1 + KNEE_STEP) + 1e-9, String(repeat.capacity));
    // One that only failed is read below its lowest fail, at most a step under it.
    const failing = launchCapacities([...rows.slice(0, 3), row('repeat', 15, tpot(40), 2)]).launches.find((l) => l.launch === 'repeat 2');
    assert.ok(failing && failing.capacity <= 15 && failing.capacity >= 15 * (1 - KNEE_STEP) - 1e-9, JSON.stringify(failing));
  });
});
