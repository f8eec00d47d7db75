import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { bracketOf, describeSearch, MAX_EXTENSIONS, newSearch, nextRate, recordRound, type RateSearchConfig } from '../../src/runner/rate-search';

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
  test('lower bound, upper bound, then max_rounds bisection rounds after the bounds; an open bracket says so', () => {
    const cfg = { lower: 1, upper: 16, tolerance: 0.1, maxRounds: 5 };
    const { rates, state } = search(cfg, 6);
    assert.deepEqual(rates, [1, 16, 8.5, 4.75, 6.625, 5.688, 6.156]);
    assert.deepEqual(state.rounds.map((r) => r.kind), ['bound', 'bound', 'bisect', 'bisect', 'bisect', 'bisect', 'bisect']);
    assert.equal(state.best, 5.688);
    assert.equal(state.done, 'max-rounds');
    assert.deepEqual(state.rounds.map((r) => r.round), [1, 2, 3, 4, 5, 6, 7]);
    const b = bracketOf(cfg, state);
    assert.deepEqual([b.best, b.lowestFail, b.closed], [5.688, 6.156, false]);
    assert.match(b.note, /not closed: .* after 5 bisection rounds; raise qps.max_rounds/);
  });

  test('stops once the bracket is within the tolerance (req/s)', () => {
    const { rates, state } = search({ lower: 1, upper: 9, tolerance: 2.5, maxRounds: 10 }, 4);
    assert.deepEqual(rates, [1, 9, 5, 3]);
    assert.equal(state.done, 'converged');
    assert.equal(state.best, 3);
    assert.deepEqual(bracketOf({ lower: 1, upper: 9, tolerance: 2.5, maxRounds: 10 }, state), { best: 3, lowestFail: 5, closed: true, note: 'closed: offered 3 req/s passes, 5 req/s fails (within 2.5 req/s)' });
  });

  test('a failing lower bound ends the search with nothing passing', () => {
    const { rates, state } = search({ lower: 2, upper: 16, tolerance: 0.1, maxRounds: 5 }, 1);
    assert.deepEqual(rates, [2]);
    assert.equal(state.done, 'lower-fails');
    assert.equal(state.best, undefined);
    assert.match(describeSearch(state), /no rate met the SLA after 1 round/);
  });

  test('a passing upper bound is doubled until the SLA fails, then the bracket is bisected', () => {
    const cfg = { lower: 1, upper: 16, tolerance: 1, maxRounds: 8 };
    const { rates, state } = search(cfg, 40);
    assert.deepEqual(rates, [1, 16, 32, 64, 48, 40, 44, 42, 41]);
    assert.deepEqual(state.rounds.map((r) => r.kind).slice(0, 5), ['bound', 'bound', 'extend', 'extend', 'bisect']);
    assert.deepEqual(bracketOf(cfg, state), { best: 40, lowestFail: 41, closed: true, note: 'closed: offered 40 req/s passes, 41 req/s fails (within 1 req/s)' });
  });

  test('an upper bound that still passes after the doubling budget ends open, saying to raise qps.upper', () => {
    const cfg = { lower: 1, upper: 16, tolerance: 0.1, maxRounds: 5 };
    const { rates, state } = search(cfg, 1000);
    assert.deepEqual(rates, [1, 16, 32, 64, 128]);
    assert.equal(MAX_EXTENSIONS, 3);
    assert.equal(state.done, 'upper-passes');
    const b = bracketOf(cfg, state);
    assert.deepEqual([b.best, b.lowestFail, b.closed], [128, null, false]);
    assert.match(b.note, /raise qps.upper/);
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
