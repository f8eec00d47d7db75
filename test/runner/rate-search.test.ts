import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { bracketOf, contradicts, DEFAULT_REL_TOLERANCE, DEFAULT_SEARCH_ROUNDS, DEFAULT_TOLERANCE, describeSearch, MAX_EXTENSIONS, newSearch, nextRate, recordRound, willRecheck, type PriorVerdict, type RateSearchConfig } from '../../src/runner/rate-search';

const rel = DEFAULT_REL_TOLERANCE;

/** Runs a search against a capacity: rates at or under it pass. */
function search(cfg: RateSearchConfig, capacity: number | ((rate: number, round: number) => boolean), prior: PriorVerdict[] = []): { rates: number[]; state: ReturnType<typeof newSearch> } {
  const state = newSearch(prior);
  const rates: number[] = [];
  const passes = typeof capacity === 'number' ? (rate: number) => rate <= capacity : capacity;
  for (let rate = nextRate(cfg, state); rate !== undefined; rate = nextRate(cfg, state)) {
    rates.push(rate);
    recordRound(state, rate, passes(rate, state.rounds.length + 1));
    assert.ok(rates.length <= 50, 'the search must end');
  }
  return { rates, state };
}

describe('rate search', () => {
  test('lower bound, upper bound, then max_rounds bisection rounds after the bounds; an open bracket says so', () => {
    const cfg = { lower: 1, upper: 16, tolerance: 0.1, relTolerance: rel, maxRounds: 5 };
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
    const { rates, state } = search({ lower: 1, upper: 9, tolerance: 2.5, relTolerance: rel, maxRounds: 10 }, 4);
    assert.deepEqual(rates, [1, 9, 5, 3]);
    assert.equal(state.done, 'converged');
    assert.equal(state.best, 3);
    assert.deepEqual(bracketOf({ lower: 1, upper: 9, tolerance: 2.5, relTolerance: rel, maxRounds: 10 }, state), { best: 3, lowestFail: 5, closed: true, note: 'closed: offered 3 req/s passes, 5 req/s fails (within 2.5 req/s)' });
  });

  test('a failing lower bound ends the search with nothing passing', () => {
    const { rates, state } = search({ lower: 2, upper: 16, tolerance: 0.1, relTolerance: rel, maxRounds: 5 }, 1);
    assert.deepEqual(rates, [2]);
    assert.equal(state.done, 'lower-fails');
    assert.equal(state.best, undefined);
    assert.match(describeSearch(state), /no rate met the SLA after 1 round/);
  });

  test('a passing upper bound is doubled until the SLA fails, then the bracket is bisected', () => {
    const cfg = { lower: 1, upper: 16, tolerance: 1, relTolerance: rel, maxRounds: 8 };
    const { rates, state } = search(cfg, 40);
    assert.deepEqual(rates, [1, 16, 32, 64, 48, 40, 44, 42, 41]);
    assert.deepEqual(state.rounds.map((r) => r.kind).slice(0, 5), ['bound', 'bound', 'extend', 'extend', 'bisect']);
    assert.deepEqual(bracketOf(cfg, state), { best: 40, lowestFail: 41, closed: true, note: 'closed: offered 40 req/s passes, 41 req/s fails (within 1 req/s)' });
  });

  test('an upper bound that still passes after the doubling budget ends open, saying to raise qps.upper', () => {
    const cfg = { lower: 1, upper: 16, tolerance: 0.1, relTolerance: rel, maxRounds: 5 };
    const { rates, state } = search(cfg, 1000);
    assert.deepEqual(rates, [1, 16, 32, 64, 128]);
    assert.equal(MAX_EXTENSIONS, 3);
    assert.equal(state.done, 'upper-passes');
    const b = bracketOf(cfg, state);
    assert.deepEqual([b.best, b.lowestFail, b.closed], [128, null, false]);
    assert.match(b.note, /raise qps.upper/);
  });

  test('lower 0 starts at the upper bound and bisects down from it', () => {
    const { rates } = search({ lower: 0, upper: 8, tolerance: 0.5, relTolerance: rel, maxRounds: 5 }, 3);
    assert.deepEqual(rates, [8, 4, 2, 3, 3.5]);
  });

  test('the same verdicts give the same rates (a resumed run finds its rounds again)', () => {
    const cfg = { lower: 0.5, upper: 12, tolerance: 0.1, relTolerance: rel, maxRounds: 5 };
    assert.deepEqual(search(cfg, 5).rates, search(cfg, 5).rates);
  });

  test('by default the bracket closes within 2% of the best passing rate (or qps.tolerance, the wider)', () => {
    assert.equal(DEFAULT_REL_TOLERANCE, 0.02);
    const cfg = { lower: 1, upper: 64, tolerance: DEFAULT_TOLERANCE, relTolerance: DEFAULT_REL_TOLERANCE, maxRounds: DEFAULT_SEARCH_ROUNDS };
    for (const capacity of [3.3, 17.2, 41.7, 63.9]) {
      const { state } = search(cfg, capacity);
      const b = bracketOf(cfg, state);
      assert.equal(state.done, 'converged', `capacity ${capacity}: ${b.note}`);
      assert.ok(b.closed && b.best !== null && b.lowestFail !== null);
      assert.ok(b.lowestFail - b.best <= Math.max(0.1, 0.02 * b.best) + 1e-9, b.note);
      assert.ok(b.best <= capacity && capacity < b.lowestFail);
    }
  });

  test('the relative tolerance closes a bracket the absolute one would keep bisecting, and the note says so', () => {
    const abs = { lower: 10, upper: 100, tolerance: 0.1, relTolerance: 0.001, maxRounds: 20 };
    const relCfg = { ...abs, relTolerance: 0.02 };
    const a = search(abs, 61);
    const r = search(relCfg, 61);
    assert.ok(r.rates.length < a.rates.length, `${r.rates.length} rounds, not ${a.rates.length}`);
    const b = bracketOf(relCfg, r.state);
    assert.equal(b.closed, true);
    assert.ok((b.lowestFail as number) - (b.best as number) > 0.1, 'wider than the absolute tolerance');
    assert.ok((b.lowestFail as number) - (b.best as number) <= 0.02 * (b.best as number) + 1e-9);
    assert.match(b.note, new RegExp(`^closed: offered ${b.best} req/s passes, ${b.lowestFail} req/s fails \\(within 2% of ${b.best} req/s\\)$`));
    // At a low rate the absolute tolerance is the wider: it closes the bracket and the note names it.
    const low = search({ lower: 0.5, upper: 4, tolerance: 0.1, relTolerance: 0.02, maxRounds: 20 }, 1.3);
    assert.match(bracketOf({ lower: 0.5, upper: 4, tolerance: 0.1, relTolerance: 0.02, maxRounds: 20 }, low.state).note, /\(within 0\.1 req\/s\)$/);
  });

  test('a round that contradicts a verdict measured before the search is measured again once; the second verdict stands', () => {
    const cfg = { lower: 2, upper: 16, tolerance: 0.5, relTolerance: rel, maxRounds: 10 };
    // Capacity 6; a fixed point at 8 req/s failed on this launch (consistent). Round 3 (9 req/s) is planted as a pass,
    // which contradicts 8's fail: it is measured again in round 4, fails, and that verdict counts.
    const { rates, state } = search(cfg, (rate, round) => round === 3 || rate <= 6, [{ rate: 8, passed: false }]);
    assert.deepEqual(rates.slice(0, 5), [2, 16, 9, 9, 5.5]);
    assert.deepEqual(state.rounds.slice(0, 4).map((r) => [r.round, r.rate, r.passed, r.kind, r.recheck === true, r.superseded === true]), [
      [1, 2, true, 'bound', false, false],
      [2, 16, false, 'bound', false, false],
      [3, 9, true, 'bisect', false, true],
      [4, 9, false, 'bisect', true, false],
    ]);
    assert.equal(state.rounds.filter((r) => r.recheck).length, 1);
    const b = bracketOf(cfg, state);
    assert.ok(b.closed && (b.best as number) <= 6 && 6 < (b.lowestFail as number), b.note);
    assert.match(b.note, /; 1 round measured again \(the verdict contradicted an earlier one\)$/);
  });

  test('a contradiction its recheck confirms stands (no third measurement) and discredits the verdict it contradicted', () => {
    const cfg = { lower: 0, upper: 10, tolerance: 0.5, relTolerance: rel, maxRounds: 10 };
    // Capacity 12; a fixed point at 6 req/s failed (a cold server). 10 passes: rechecked, passes again, and stands;
    // 6's fail then asks for no more rechecks (11.25 passes once).
    const { rates, state } = search(cfg, (rate) => rate <= 12, [{ rate: 6, passed: false }]);
    assert.deepEqual(rates.slice(0, 3), [10, 10, 20]);
    assert.equal(state.rounds.filter((r) => r.recheck).length, 1, 'one recheck only');
    assert.ok((state.best as number) <= 12 && (state.best as number) > 11.5);
    // A superseded pass does not count: 10 passes although 5 failed; its recheck fails.
    const s2 = newSearch([{ rate: 5, passed: false }]);
    assert.equal(nextRate(cfg, s2), 10);
    assert.equal(willRecheck(s2, 10, true), true, 'its row is marked superseded when measured');
    recordRound(s2, 10, true);
    assert.equal(s2.best, 10);
    assert.equal(nextRate(cfg, s2), 10, 'the same rate again');
    assert.equal(willRecheck(s2, 10, false), false, 'a recheck is never itself superseded');
    recordRound(s2, 10, false);
    assert.equal(s2.best, undefined, 'the superseded pass no longer counts');
    assert.equal(nextRate(cfg, s2), 5);
  });

  test('contradicts: a pass over a failed rate, a fail under a passed one (equal rates included); consistent verdicts are not', () => {
    const st = newSearch([{ rate: 4, passed: false }, { rate: 2, passed: true }]);
    assert.equal(contradicts(st, 5, true), true);
    assert.equal(contradicts(st, 4, true), true);
    assert.equal(contradicts(st, 3, true), false);
    assert.equal(contradicts(st, 1, false), true);
    assert.equal(contradicts(st, 2, false), true);
    assert.equal(contradicts(st, 3, false), false);
  });

  test('without prior verdicts a search never rechecks: bisection only asks inside the bracket', () => {
    for (const capacity of [0.7, 3, 9.99, 15, 50]) {
      const { state } = search({ lower: 1, upper: 16, tolerance: 0.1, relTolerance: rel, maxRounds: 10 }, capacity);
      assert.equal(state.rounds.some((r) => r.recheck), false, `capacity ${capacity}`);
    }
  });

  test('a resumed search replays the same rounds, recheck included, from the same verdicts', () => {
    const cfg = { lower: 2, upper: 16, tolerance: 0.5, relTolerance: rel, maxRounds: 10 };
    const verdicts = (rate: number, round: number) => round === 3 || rate <= 6;
    const first = search(cfg, verdicts, [{ rate: 8, passed: false }]);
    const again = search(cfg, verdicts, [{ rate: 8, passed: false }]);
    assert.equal(first.state.rounds.filter((r) => r.recheck).length, 1);
    assert.deepEqual(again.rates, first.rates);
    assert.deepEqual(again.state.rounds, first.state.rounds);
  });
});
