// A repeat's local search around the knee: steps of 6% away from the start until the verdict flips, two bisections of
// that bracket, and a stop when no flip comes within the steps; the rates follow from the verdicts alone.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LOCAL_BISECTIONS, LOCAL_MAX_STEPS, nextLocalRate } from '../../src/runner/local-search';

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
