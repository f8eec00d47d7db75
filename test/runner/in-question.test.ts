// Which candidates the runner repeats after the search (runner/repeats.ts inQuestion): the leader and its contenders
// while undecided, a one-launch leader once, and a candidate separated on one launch that could still land close.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { inQuestion } from '../../src/runner/repeats';
import type { CandidateScore, ScenarioVerdict } from '../../src/core/results/verdict';

function cand(id: string, caps: number[], lowestFail: number): CandidateScore {
  const launches = caps.map((capacity, i) => ({ launch: i === 0 ? 'search' : `repeat ${i}`, capacity, how: 'interpolated' as const, points: 4 }));
  const score = caps.reduce((a, b) => a + b, 0) / caps.length;
  return { framework: 'vllm', candidate: id, score, interval: [score, lowestFail], basis: 'search', intervalKind: caps.length > 1 ? 'ci' : 'bracket', repeats: caps.length - 1, repeatsPassed: caps.length - 1, row: 0, launches, confirmed: score, lowestFail };
}

function verdict(outcome: ScenarioVerdict['outcome'], ranked: CandidateScore[], ties: CandidateScore[] = []): ScenarioVerdict {
  return { scenario: 'summarization', decided: outcome === 'winner', winner: ranked[0] ?? null, ties, ranked, summary: '', outcome, minEffect: 0.03 };
}

const ids = (cs: CandidateScore[]): string[] => cs.map((c) => c.candidate);

describe('inQuestion', () => {
  test('a candidate beaten on its one launch but whose bracket reaches within the margin of the leader is repeated once', () => {
    // test:agreement (adaptive, seed 2): c2's one search launch read 2.67 req/s off a 2.36–2.87 bracket, against a
    // leader of 17 launches at 3.32; the other run had c2 leading. 2.87 × 1.2 ≥ 3.32: one more launch.
    const leader = cand('c1', Array.from({ length: 17 }, (_, i) => 3.32 + (i % 3) * 0.01 - 0.01), 3.5);
    const c2 = cand('c2', [2.67], 2.866);
    const far = cand('baseline', [1.9], 2.1);
    assert.deepEqual(ids(inQuestion(verdict('winner', [leader, c2, far]), 0)), ['c2']);
  });

  test('once it has two launches, or when even its lowest fail is out of reach, it is not', () => {
    const leader = cand('c1', [3.3, 3.34, 3.31], 3.5);
    assert.deepEqual(ids(inQuestion(verdict('winner', [leader, cand('c2', [2.67, 2.7], 2.866)]), 0)), []);
    assert.deepEqual(ids(inQuestion(verdict('winner', [leader, cand('c2', [2.5], 2.7)]), 0)), [], '2.7 × 1.2 < 3.32');
  });

  test('undecided: the leader, its ties, then the close one-launch candidates; a one-launch decided leader alone', () => {
    const a = cand('a', [10], 10.5);
    const b = cand('b', [9.8], 10.2);
    const c = cand('c', [8.8], 9.0);
    assert.deepEqual(ids(inQuestion(verdict('undecided', [a, b, c], [b]), 0)), ['a', 'b', 'c']);
    assert.deepEqual(ids(inQuestion(verdict('winner', [a, cand('far', [5], 6)]), 0)), ['a']);
  });

  test('nothing when the leader cannot reach the run\'s floor (adaptive: another framework leads)', () => {
    const a = cand('a', [10], 10.5);
    assert.deepEqual(ids(inQuestion(verdict('undecided', [a, cand('b', [9.8], 10.2)], []), 20)), []);
  });
});
