// Which candidates the runner repeats after the search (runner/repeats.ts inQuestion): the leader and its contenders
// while undecided, a one-launch leader once, a candidate separated on one launch that could still land close; and,
// adaptive, the same read against the run-wide verdict (inQuestionRunWide); and which of them a round launches (roundContenders).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { inQuestion, inQuestionRunWide, roundContenders } from '../../src/runner/repeats';
import type { CandidateScore, ScenarioVerdict } from '../../src/core/results/verdict';

function cand(id: string, caps: number[], lowestFail: number): CandidateScore {
  const launches = caps.map((capacity, i) => ({ launch: i === 0 ? 'search' : `repeat ${i}`, capacity, how: 'interpolated' as const, points: 4 }));
  const score = caps.reduce((a, b) => a + b, 0) / caps.length;
  return { framework: 'vllm', candidate: id, score, interval: [score, lowestFail], basis: 'search', intervalKind: caps.length > 1 ? 'ci' : 'bracket', repeats: caps.length - 1, repeatsPassed: caps.length - 1, row: 0, launches, confirmed: score, lowestFail, value: score, columns: { gpus: 1, req_per_s: score, req_per_s_per_gpu: score, usd_per_m_output_tokens: null, j_per_output_token: null } };
}

function verdict(outcome: ScenarioVerdict['outcome'], ranked: CandidateScore[], ties: CandidateScore[] = []): ScenarioVerdict {
  return { scenario: 'summarization', decided: outcome === 'winner', winner: ranked[0] ?? null, ties, ranked, summary: '', outcome, minEffect: 0.03, objective: 'throughput', unpriced: [] };
}

const ids = (cs: CandidateScore[]): string[] => cs.map((c) => c.candidate);

describe('inQuestion', () => {
  test('a candidate beaten on its one launch but whose bracket reaches within the margin of the leader is repeated once', () => {
    // test:agreement (adaptive, seed 2): c2's one search launch read 2.67 req/s off a 2.36–2.87 bracket, against a
    // leader of 17 launches at 3.32; the other run had c2 leading. 2.87 × 1.2 ≥ 3.32: one more launch.
    const leader = cand('c1', Array.from({ length: 17 }, (_, i) => 3.32 + (i % 3) * 0.01 - 0.01), 3.5);
    const c2 = cand('c2', [2.67], 2.866);
    const far = cand('baseline', [1.9], 2.1);
    assert.deepEqual(ids(inQuestion(verdict('winner', [leader, c2, far]))), ['c2']);
  });

  test('once it has two launches, or when even its lowest fail is out of reach, it is not', () => {
    const leader = cand('c1', [3.3, 3.34, 3.31], 3.5);
    assert.deepEqual(ids(inQuestion(verdict('winner', [leader, cand('c2', [2.67, 2.7], 2.866)]))), []);
    assert.deepEqual(ids(inQuestion(verdict('winner', [leader, cand('c2', [2.5], 2.7)]))), [], '2.7 × 1.2 < 3.32');
  });

  test('undecided: the leader, its ties, then the close one-launch candidates; a one-launch decided leader alone', () => {
    const a = cand('a', [10], 10.5);
    const b = cand('b', [9.8], 10.2);
    const c = cand('c', [8.8], 9.0);
    assert.deepEqual(ids(inQuestion(verdict('undecided', [a, b, c], [b]))), ['a', 'b', 'c']);
    assert.deepEqual(ids(inQuestion(verdict('winner', [a, cand('far', [5], 6)]))), ['a']);
  });

  test("run-wide (adaptive): what the run's test separated from its leader is not launched; what it ties with it is, in every framework", () => {
    const lead = { ...cand('baseline', [21.7, 21.5, 21.9], 22.4), framework: 'vllm' };
    const other = { ...cand('c2', [17.19], 17.36), framework: 'sglang' };
    // sglang's own verdict: c2 alone, decided, one launch; the run's verdict: undecided between vllm baseline and it.
    const own = verdict('winner', [other]);
    const tied = { ...verdict('undecided', [lead, other], [other]), scenario: 'chat' };
    assert.deepEqual(ids(inQuestionRunWide(own, 'sglang', tied)), ['c2']);
    // vllm's own verdict settled (baseline decided with three launches), but the run's is not: its leader is launched too.
    const vllm = verdict('winner', [lead]);
    assert.deepEqual(ids(inQuestionRunWide(vllm, 'vllm', tied)), ['baseline']);
    // The run's test separated them: nothing for sglang, and vllm's leader is settled.
    const decided = verdict('winner', [lead, other]);
    assert.deepEqual(ids(inQuestionRunWide(own, 'sglang', decided)), []);
    assert.deepEqual(ids(inQuestionRunWide(vllm, 'vllm', decided)), []);
  });
});

describe('roundContenders', () => {
  test('under the cap, the leader and then the fewest launched: a tied one-launch candidate is not starved by a better-scored one', () => {
    // The demo's summarization (2026-12-06): vllm c2 led on 17 launches, c1 took the second place every round on
    // score, and baseline, tied at 1.9% behind, kept its single launch: undecided at the budget.
    const c2 = cand('c2', Array.from({ length: 17 }, (_, i) => 3.3 + (i % 2) * 0.02), 3.5);
    const c1 = cand('c1', Array.from({ length: 16 }, (_, i) => 3.27 + (i % 2) * 0.02), 3.45);
    const baseline = cand('baseline', [3.25], 3.4);
    assert.deepEqual(ids(roundContenders([c2, c1, baseline], 2)), ['c2', 'baseline']);
    assert.deepEqual(ids(roundContenders([baseline, c1, c2], 3)), ['c2', 'baseline', 'c1'], 'the order given does not matter');
    // Equal launches: by score; equal scores: the one `first` prefers (chosen for another scenario: one launch for both).
    const a = cand('a', [3.2, 3.2], 3.4);
    const b = cand('b', [3.2, 3.2], 3.4);
    assert.deepEqual(ids(roundContenders([c2, c1, a, b], 2, (c) => c.candidate === 'b')), ['c2', 'b']);
    assert.deepEqual(roundContenders([], 2), []);
  });
});
