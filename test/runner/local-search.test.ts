// A repeat's local search around the knee: steps of 6% away from the start until the verdict flips, two bisections of
// that bracket, and a stop when no flip comes within the steps; the rates follow from the verdicts alone.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LOCAL_BISECTIONS, LOCAL_MAX_STEPS, localStart, nextLocalRate } from '../../src/runner/local-search';

/** Runs the local search against a server whose SLA capacity is `cap` (passes at or below it). */
function walk(start: number, cap: number): number[] {
  const rounds: Array<{ rate: number; passed: boolean }> = [];
  for (let r = nextLocalRate(start, rounds); r !== undefined; r = nextLocalRate(start, rounds)) rounds.push({ rate: r, passed: r <= cap });
  return rounds.map((x) => x.rate);
}

describe('local search around the knee', () => {
  test('passing at the start: up in 6% steps to the first fail, then two bisections', () => {
    const rates = walk(40, 44);
    assert.deepEqual(rates.slice(0, 3), [40, 42.4, 44.944]);
    assert.equal(rates.length, 3 + LOCAL_BISECTIONS);
    const [lo, hi] = [Math.max(...rates.filter((r) => r <= 44)), Math.min(...rates.filter((r) => r > 44))];
    assert.ok(hi - lo < 0.02 * 44, `bracket ${lo}..${hi}`);
  });

  test('failing at the start: down in 6% steps to the first pass', () => {
    const rates = walk(40, 35);
    assert.deepEqual(rates.slice(0, 4), [40, 37.6, 35.344, 33.223]);
    assert.ok(rates.slice(4).every((r) => r > 33.223 && r < 35.344), JSON.stringify(rates));
    assert.equal(rates.length, 4 + LOCAL_BISECTIONS);
  });

  test('no flip within the steps: the search stops (the launch is far from the search\u2019s)', () => {
    const rates = walk(40, 100);
    assert.equal(rates.length, LOCAL_MAX_STEPS + 1);
    assert.ok(rates.every((r, i) => i === 0 || r > (rates[i - 1] as number)));
  });

  test('the same verdicts ask for the same rates (a resumed run replays them)', () => {
    assert.deepEqual(walk(12.5, 13.1), walk(12.5, 13.1));
  });
});

describe('where a repeat starts', () => {
  test('at the search curve\'s crossing when it lies above the confirmed pass, else at the confirmed pass', () => {
    // The demo's case: pass 2.532, fail 3.43, the curve crossing the limit at about 3.3.
    assert.equal(localStart(2.532, 3.3012), 3.301);
    assert.equal(localStart(2.532, undefined), 2.532);
    assert.equal(localStart(2.532, 2.5), 2.532);
    assert.equal(localStart(2.532, Number.NaN), 2.532);
  });

  test('from the crossing, a walk flips within a step and brackets within the bisections', () => {
    const knee = 3.3;
    const rounds: Array<{ rate: number; passed: boolean }> = [];
    for (let at = nextLocalRate(localStart(2.532, 3.29), rounds); at !== undefined; at = nextLocalRate(localStart(2.532, 3.29), rounds)) rounds.push({ rate: at, passed: at <= knee });
    const lo = Math.max(...rounds.filter((r) => r.passed).map((r) => r.rate));
    const hi = Math.min(...rounds.filter((r) => !r.passed).map((r) => r.rate));
    assert.ok(rounds.length <= 4, `${rounds.length} trials`);
    assert.ok(lo <= knee && hi > knee && (hi - lo) / lo < 0.02, `bracket ${lo}..${hi}`);
  });
});
