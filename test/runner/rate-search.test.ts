import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { describeSearch, newSearch, nextRate, recordRound, type RateSearchConfig } from '../../src/runner/rate-search';

/** Runs a search against a capacity: rates at or under it pass. */
function search(cfg: RateSearchConfig, capacity: number): { rates: number[]; state: ReturnType<typeof newSearch> } {
  const state = newSearch();
  const rates: number[] = [];
  for (let rate = nextRate(cfg, state); rate !== undefined; rate = nextRate(cfg, state)) {
    rates.push(rate);
    recordRound(state, rate, rate <= capacity);
    assert.ok(rates.length <= 50, 'the search must end');
  }
  return { rates, state };
}

describe('rate search', () => {
  test('lower bound, upper bound, then bisection of the bracket, at most max_rounds rounds', () => {
    const { rates, state } = search({ lower: 1, upper: 16, tolerance: 0.1, maxRounds: 5 }, 6);
    assert.deepEqual(rates, [1, 16, 8.5, 4.75, 6.625]);
    assert.equal(state.best, 4.75);
    assert.equal(state.done, 'max-rounds');
    assert.deepEqual(state.rounds.map((r) => r.round), [1, 2, 3, 4, 5]);
  });

  test('stops once the bracket is within the tolerance (req/s)', () => {
    const { rates, state } = search({ lower: 1, upper: 9, tolerance: 2.5, maxRounds: 10 }, 4);
    assert.deepEqual(rates, [1, 9, 5, 3]);
    assert.equal(state.done, 'converged');
    assert.equal(state.best, 3);
  });

  test('a failing lower bound ends the search with nothing passing', () => {
    const { rates, state } = search({ lower: 2, upper: 16, tolerance: 0.1, maxRounds: 5 }, 1);
    assert.deepEqual(rates, [2]);
    assert.equal(state.done, 'lower-fails');
    assert.equal(state.best, undefined);
    assert.match(describeSearch(state), /no rate met the SLA after 1 round/);
  });

  test('a passing upper bound is the answer', () => {
    const { rates, state } = search({ lower: 1, upper: 16, tolerance: 0.1, maxRounds: 5 }, 100);
    assert.deepEqual(rates, [1, 16]);
    assert.equal(state.done, 'upper-passes');
    assert.equal(state.best, 16);
  });

  test('lower 0 starts at the upper bound and bisects down from it', () => {
    const { rates } = search({ lower: 0, upper: 8, tolerance: 0.5, maxRounds: 5 }, 3);
    assert.deepEqual(rates, [8, 4, 2, 3, 3.5]);
  });

  test('the same verdicts give the same rates (a resumed run finds its rounds again)', () => {
    const cfg = { lower: 0.5, upper: 12, tolerance: 0.1, maxRounds: 5 };
    assert.deepEqual(search(cfg, 5).rates, search(cfg, 5).rates);
  });
});
