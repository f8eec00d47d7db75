// Deciding between candidates from per-launch capacities: t quantiles, Welch/delta-method intervals checked against scipy, the winner/equivalent/undecided rules, the next launches to run, the sentence, and seeded Monte-Carlo rates with 3% launch-to-launch noise.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { capacityEstimate, compareCapacities, decideScenario, formatDecision, levelText, nextToMeasure, pooledNoise, sequentialAlpha, tCdf, tQuantile, type DecisionCandidate } from '../../../src/core/results/decide';

const near = (actual: number | undefined, expected: number, tol: number, what = ''): void => {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tol, `${what} ${String(actual)} is not within ${tol} of ${expected}`);
};

describe('t quantiles', () => {
  test('match the tables at 97.5% (df 1, 2, 5, 10, 30, ∞) and scipy elsewhere', () => {
    const table: Array<[number, number]> = [[1, 12.706], [2, 4.303], [5, 2.571], [10, 2.228], [30, 2.042], [Infinity, 1.96]];
    for (const [df, q] of table) near(tQuantile(0.975, df), q, 1e-3, `df ${df}:`);
    // scipy.stats.t.ppf: fractional df (Welch's), far tails (Bonferroni over many comparisons).
    near(tQuantile(0.975, 10.5), 2.21384029, 1e-6);
    near(tQuantile(0.9995, 3), 12.92397864, 1e-5);
    near(tQuantile(1 - 0.05 / 4, 7.3), 2.8112104, 1e-6);
    near(tQuantile(0.025, 5), -2.5705818, 1e-6);
  });

  test('invert the t CDF', () => {
    for (const df of [1, 2, 3.7, 12, 250]) for (const p of [0.6, 0.9, 0.99]) near(tCdf(tQuantile(p, df), df), p, 1e-9, `df ${df} p ${p}:`);
  });
});

describe('one candidate', () => {
  test('the mean with a 95% t interval; one launch has none; non-finite samples are not launches', () => {
    const e = capacityEstimate([10, 12, 14]);
    assert.deepEqual([e.mean, e.n, e.sd], [12, 3, 2]);
    near(e.halfWidth ?? undefined, (4.30265273 * 2) / Math.sqrt(3), 1e-6);
    near(e.ci?.[0], 12 - (4.30265273 * 2) / Math.sqrt(3), 1e-6);
    assert.deepEqual(capacityEstimate([7]), { mean: 7, n: 1, sd: 0, ci: null, halfWidth: null });
    assert.equal(capacityEstimate([7, NaN, Infinity]).n, 1);
    assert.equal(capacityEstimate([]).n, 0);
  });
});

describe('two candidates', () => {
  test('Welch interval of the difference and delta-method interval of the ratio (scipy known answers)', () => {
    const c = compareCapacities([11, 12, 13], [9, 10, 11]);
    near(c.diff, 2, 1e-12);
    near(c.df ?? undefined, 4, 1e-9);
    near(c.diffCi?.[0], -0.26695794, 1e-6);
    near(c.diffCi?.[1], 4.26695794, 1e-6);
    near(c.relative ?? undefined, 0.2, 1e-12);
    near(c.relativeCi?.[0], -0.05039369, 1e-6);
    near(c.relativeCi?.[1], 0.45039369, 1e-6);
    const d = compareCapacities([10.2, 10.9, 11.4, 10.6, 11.1, 10.8], [10.1, 9.7, 10.4, 9.9, 10.2, 10.0]);
    near(d.df ?? undefined, 8.08798424, 1e-6);
    near(d.diffCi?.[0], 0.33302323, 1e-6);
    near(d.relativeCi?.[0], 0.03221399, 1e-6);
    near(d.relativeCi?.[1], 0.12367324, 1e-6);
    assert.equal(d.floored, false);
  });

  test('a single launch on either side: no interval, cannot decide', () => {
    for (const c of [compareCapacities([10], [9, 9.5]), compareCapacities([10, 11], [9])]) {
      assert.equal(c.relativeCi, null);
      assert.equal(c.diffCi, null);
      assert.equal(c.df, null);
      assert.ok(c.relative !== null);
    }
  });

  test('identical repeated numbers: the sd floor (0.5% of the mean) keeps the interval from collapsing', () => {
    const c = compareCapacities([10, 10, 10], [10, 10, 10]);
    assert.equal(c.floored, true);
    near(c.relativeCi?.[1], 0.01133479, 1e-6);
    near(c.relativeCi?.[0], -0.01133479, 1e-6);
    const wider = compareCapacities([10, 10, 10], [10, 10, 10], { minRelSd: 0.02 });
    assert.ok((wider.relativeCi?.[1] ?? 0) > 0.04);
  });

  test('a mean of 0 (no launch met the SLA): no ratio against it, the difference still decides', () => {
    const c = compareCapacities([10, 11, 10.5], [0, 0, 0]);
    assert.equal(c.relative, null);
    assert.equal(c.relativeCi, null);
    assert.ok((c.diffCi?.[0] ?? 0) > 0);
    const z = compareCapacities([0, 0, 0], [10, 11, 10.5]);
    assert.equal(z.relative, -1);
    assert.ok((z.relativeCi?.[1] ?? 0) < 0);
    const both = compareCapacities([0, 0], [0, 0]);
    assert.deepEqual([both.relative, both.diffCi, both.df], [null, [0, 0], Infinity]);
  });
});

const cand = (id: string, samples: number[]): DecisionCandidate => ({ id, samples });
const names = { c2: 'vllm c2', base: 'vllm baseline', sg: 'sglang baseline' };

describe('one scenario: winners', () => {
  test('a clear lead over every other: the winner, with its lead over the runner-up', () => {
    const d = decideScenario([cand('base', [10.1, 9.7, 10.4, 9.9, 10.2, 10.0]), cand('c2', [10.2, 10.9, 11.4, 10.6, 11.1, 10.8])]);
    assert.deepEqual([d.outcome, d.winner, d.leader, d.against, d.separated, d.contenders], ['winner', 'c2', 'c2', 'base', ['base'], []]);
    near(d.effect, 0.07794362, 1e-6);
    near(d.ci?.[0], 0.03221399, 1e-6);
    assert.equal(formatDecision(d, names), 'vllm c2 beats vllm baseline by 7.8% (95% CI 3.2–12.4%), 6 launches each');
    assert.deepEqual(nextToMeasure([cand('base', [10.1, 9.7, 10.4, 9.9, 10.2, 10.0]), cand('c2', [10.2, 10.9, 11.4, 10.6, 11.1, 10.8])]), []);
  });

  test('three candidates, Holm: the far one tested at 1 − 0.05/2, then the runner-up at the full 95%; the effect against the second-best mean', () => {
    const d = decideScenario([cand('sg', [8, 8.2, 7.9, 8.1]), cand('base', [10, 10.1, 9.9, 10.05]), cand('c2', [12, 12.2, 11.9, 12.1])]);
    assert.equal(d.level, 0.95);
    assert.deepEqual(d.pairs.map((p) => [p.id, p.comparison.level]), [['base', 0.95], ['sg', 0.975]]);
    assert.deepEqual([d.outcome, d.winner, d.against, d.separated], ['winner', 'c2', 'base', ['base', 'sg']]);
    assert.match(formatDecision(d, names), /^vllm c2 beats vllm baseline, the runner-up, by 20\.\d% \(95% CI \d+\.\d–\d+\.\d%\), 4 launches each$/);
  });

  test('six candidates, Holm: a runner-up whose lead holds at 95% but not at 99% is decided once the four far ones are rejected', () => {
    const far = ['f1', 'f2', 'f3', 'f4'].map((id, i) => cand(id, [7 + i * 0.1, 7.1 + i * 0.1, 6.9 + i * 0.1, 7.05 + i * 0.1]));
    // A 4% lead, 4 launches each, 2% launch noise: t ≈ 2.8 on 6 df (p ≈ 0.03): under 0.05, over 0.01.
    const top = cand('c2', [10.4, 10.6, 10.2, 10.4]);
    const second = cand('base', [10.0, 10.2, 9.8, 10.0]);
    const bonf = decideScenario([top, second], { alpha: 0.01 });
    assert.equal(bonf.outcome, 'undecided', 'at Bonferroni\'s 0.05/5 the runner-up is still a contender');
    const d = decideScenario([...far, second, top]);
    assert.deepEqual([d.outcome, d.winner, d.against, d.level], ['winner', 'c2', 'base', 0.95]);
    assert.ok(d.ci && d.ci[0] > 0);
  });

  test('Holm stops at the first lead it cannot show: the pairs after it keep Bonferroni\'s level', () => {
    const d = decideScenario([cand('a', [10, 10.4, 9.6]), cand('b', [9.9, 10.3, 9.5]), cand('c', [5, 5.1, 4.9]), cand('top', [10.2, 10.6, 9.8])]);
    assert.equal(d.outcome, 'undecided');
    const levels = Object.fromEntries(d.pairs.map((p) => [p.id, p.comparison.level]));
    assert.deepEqual([levels.c, levels.a, levels.b].map((x) => Number(x?.toFixed(4))), [0.9833, 0.9833, 0.9833]);
    assert.deepEqual(d.separated, ['c']);
  });

  test('a single candidate is the winner with nothing to compare, and says so', () => {
    const d = decideScenario([cand('c2', [10, 11]), cand('base', [])]);
    assert.deepEqual([d.outcome, d.winner, d.effect, d.ci], ['winner', 'c2', undefined, undefined]);
    assert.match(d.note ?? '', /nothing to compare/);
    assert.equal(formatDecision(d, names), 'vllm c2 is the only candidate measured (2 launches): nothing to compare it with');
    const none = decideScenario([cand('c2', [])]);
    assert.deepEqual([none.outcome, none.leader], ['undecided', null]);
  });

});

describe('one scenario: undecided and equivalent', () => {
  test('a single launch on a side: undecided, and the next launches are the leader and that rival (fewer launches first)', () => {
    const cs = [cand('c2', [12, 12.1, 11.9]), cand('base', [10])];
    const d = decideScenario(cs);
    assert.deepEqual([d.outcome, d.contenders, d.ci], ['undecided', ['base'], undefined]);
    assert.equal(formatDecision(d, names), 'undecided: vllm c2 leads vllm baseline by 20.0%, but a single launch gives no interval (3 and 1 launches)');
    assert.deepEqual(nextToMeasure(cs), ['base', 'c2']);
  });

  test('overlapping intervals: undecided, reported against the closest unresolved rival; LUCB picks the rival reaching highest', () => {
    const cs = [cand('c2', [10.5, 10.0, 10.8]), cand('base', [10.2, 9.6, 10.4]), cand('sg', [9.0, 10.6, 9.8]), cand('far', [5, 5.1, 4.9])];
    const d = decideScenario(cs);
    assert.equal(d.outcome, 'undecided');
    assert.deepEqual([d.against, d.separated, [...d.contenders].sort()], ['base', ['far'], ['base', 'sg']]);
    assert.match(formatDecision(d, names), /^undecided: vllm c2 leads vllm baseline by 3\.\d% \(98\.3% CI −\d+\.\d–\d+\.\d%\), 3 launches each$/);
    // sglang's launches vary most: its interval reaches highest, so it is the rival to measure with the leader.
    assert.deepEqual(nextToMeasure(cs), ['c2', 'sg']);
  });

  test('two launches that disagree widely: the lead is not bounded, and the sentence says so instead of printing a ±900% interval', () => {
    const d = decideScenario([cand('c2', [15, 6]), cand('base', [5, 9])]);
    assert.equal(d.outcome, 'undecided');
    assert.ok(d.ci && (d.ci[0] <= -1 || d.ci[1] - d.ci[0] > 1), `interval ${JSON.stringify(d.ci)}`);
    assert.match(formatDecision(d, names), /^undecided: vllm c2 leads vllm baseline by 50\.0%, but 2 launches are too few to bound the lead \(its 95% interval is wider than ±100%\)$/);
  });

  test('within ±3% on tight launches: equivalent, reporting the widest interval; a significant lead below 3% is equivalent too', () => {
    const a = [10, 10.02, 9.98, 10.01, 9.99, 10.0];
    const d = decideScenario([cand('c2', a.map((x) => x * 1.01)), cand('base', a), cand('sg', a.map((x) => x * 1.005)), cand('far', [7, 7.1, 6.9])]);
    assert.deepEqual([d.outcome, d.winner, [...d.equivalent].sort(), d.separated], ['equivalent', undefined, ['base', 'sg'], ['far']]);
    assert.ok((d.ci?.[0] ?? 0) > 0, 'the 1% lead is significant, yet smaller than minEffect');
    assert.match(formatDecision(d, names), /^vllm c2, sglang baseline and vllm baseline are equivalent within 3% \(widest 98\.3% CI [\d.]+–[\d.]+%\), 6 launches each$/);
    assert.deepEqual(nextToMeasure([cand('c2', a.map((x) => x * 1.01)), cand('base', a)]), []);
  });

  test('a significant lead whose interval still reaches 3%: undecided (a winner needs an estimated lead of 3%)', () => {
    const a = [10, 10.1, 9.9, 10.05, 9.95, 10.0];
    const d = decideScenario([cand('c2', a.map((x) => x * 1.025)), cand('base', a)]);
    assert.ok((d.ci?.[0] ?? 0) > 0 && (d.ci?.[1] ?? 0) > 0.03 && (d.effect ?? 1) < 0.03);
    assert.equal(d.outcome, 'undecided');
  });

  test('identical numbers on every launch: equivalent (the sd floor), not a zero-width tie', () => {
    const d = decideScenario([cand('c2', [12, 12, 12, 12]), cand('base', [12, 12, 12, 12])]);
    assert.equal(d.outcome, 'equivalent');
    assert.match(formatDecision(d, names), /^vllm baseline and vllm c2 are equivalent within 3% \(95% CI −0\.\d–0\.\d%\), 4 launches each$/);
  });

  test('a candidate that met the SLA on no launch (capacity 0) is beaten by any that did', () => {
    const d = decideScenario([cand('c2', [3, 3.2, 3.1]), cand('base', [0, 0, 0])]);
    assert.deepEqual([d.outcome, d.winner, d.effect], ['winner', 'c2', undefined]);
    assert.equal(formatDecision(d, names), 'vllm c2 beats vllm baseline, which met the SLA on no launch (3 launches each)');
    const weak = decideScenario([cand('c2', [0, 0.4, 0]), cand('base', [0, 0, 0])]);
    assert.equal(weak.outcome, 'undecided');
    assert.equal(formatDecision(weak, names), 'undecided: vllm baseline met the SLA on no launch, and vllm c2\u2019s lead over it is not yet significant (3 launches each)');
  });
});

/** mulberry32: a small seeded PRNG, so every run draws the same launches. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Launch capacities with 3% relative noise per launch (Box–Muller normals). */
function launcher(seed: number): (mean: number, n: number) => number[] {
  const u = prng(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  return (mean, n) => Array.from({ length: n }, () => mean * (1 + 0.03 * normal()));
}

interface Rates {
  right: number;
  wrong: number;
  equivalent: number;
  undecided: number;
}

/** Trials of a scenario whose first candidate's true capacity is (1 + lead) × the others' 10 req/s. */
function rates(seed: number, lead: number, n: number, trials: number, others = 1): Rates {
  const draw = launcher(seed);
  const counts = { right: 0, wrong: 0, equivalent: 0, undecided: 0 };
  for (let i = 0; i < trials; i++) {
    const cs = [cand('best', draw(10 * (1 + lead), n)), ...Array.from({ length: others }, (_, k) => cand(`other${k}`, draw(10, n)))];
    const d = decideScenario(cs, { alpha: 0.05, minEffect: 0.03 });
    if (d.outcome === 'winner') counts[d.winner === 'best' ? 'right' : 'wrong']++;
    else counts[d.outcome]++;
  }
  return { right: counts.right / trials, wrong: counts.wrong / trials, equivalent: counts.equivalent / trials, undecided: counts.undecided / trials };
}

const show = (r: Rates): string => `winner right ${(r.right * 100).toFixed(1)}%, wrong ${(r.wrong * 100).toFixed(1)}%, equivalent ${(r.equivalent * 100).toFixed(1)}%, undecided ${(r.undecided * 100).toFixed(1)}%`;

describe('seeded Monte-Carlo, 3% launch-to-launch noise, 400 trials each', () => {
  test('a true 10% lead, 6 launches each: the right winner in ≥ 90%, never the wrong one', (t) => {
    const r = rates(1, 0.1, 6, 400);
    t.diagnostic(`10% lead, 6 launches: ${show(r)}`);
    assert.ok(r.right >= 0.9, show(r));
    assert.equal(r.wrong, 0);
    const three = rates(2, 0.1, 6, 400, 2);
    t.diagnostic(`10% lead over two others, 6 launches: ${show(three)}`);
    assert.ok(three.right >= 0.9, show(three));
    assert.equal(three.wrong, 0);
  });

  test('no true difference, 6 launches each: a winner named in ≤ 5%', (t) => {
    const r = rates(3, 0, 6, 400);
    t.diagnostic(`0% difference, 6 launches: ${show(r)}`);
    assert.ok(r.right + r.wrong <= 0.05, show(r));
    const three = rates(4, 0, 6, 400, 2);
    t.diagnostic(`0% difference among three, 6 launches: ${show(three)}`);
    assert.ok(three.right + three.wrong <= 0.05, show(three));
  });

  test('a true 1% lead: rarely a winner at 8 launches each, "equivalent within 3%" in a majority at 30', (t) => {
    // At 8 launches each the 95% interval of the lead is about ±3.2% wide, more than the ±3% band, so it can
    // hardly ever lie inside it: "equivalent within 3%" takes some 20-30 launches each (the JSDoc's note).
    const r8 = rates(5, 0.01, 8, 400);
    t.diagnostic(`1% lead, 8 launches: ${show(r8)}`);
    assert.ok(r8.right + r8.wrong <= 0.1, show(r8));
    assert.ok(r8.wrong <= 0.01, show(r8));
    const r30 = rates(6, 0.01, 30, 400);
    t.diagnostic(`1% lead, 30 launches: ${show(r30)}`);
    assert.ok(r30.equivalent > 0.5, show(r30));
    assert.ok(r30.right + r30.wrong <= 0.05, show(r30));
  });
});

describe('pooled launch noise and the sequential boundary', () => {
  test('pooledNoise: squared relative deviations over the sum of (n - 1); none without a candidate launched twice', () => {
    const p = pooledNoise([[10, 10.2, 9.8], [20, 20.4, 19.6], [7]]);
    assert.ok(p && Math.abs(p.relSd - 0.02) < 1e-9 && p.df === 4, JSON.stringify(p));
    assert.equal(pooledNoise([[10], [20]]), undefined);
  });

  test('with the run\'s pooled noise, single launches are compared too', () => {
    const noisy = compareCapacities([11], [10], { pooled: { relSd: 0.03, df: 20 } });
    assert.ok(noisy.relativeCi && noisy.relativeCi[0] > 0, JSON.stringify(noisy.relativeCi));
    const bare = compareCapacities([11], [10]);
    assert.equal(bare.relativeCi, null);
  });

  test("sequentialAlpha: O'Brien-Fleming's level per look, strict early and near nominal at the last", () => {
    near(sequentialAlpha(0.05, 1), 0.05, 1e-6, 'one look');
    // K = 8: C = 2.072, look k rejects beyond 2.072·√(8/k).
    near(sequentialAlpha(0.05, 8, 8), 0.03827, 2e-4, 'last of 8');
    near(sequentialAlpha(0.05, 8, 4), 0.00339, 1e-4, 'fourth of 8');
    assert.ok(sequentialAlpha(0.05, 8, 1) < 1e-7, 'the first of 8 needs an overwhelming difference');
    assert.equal(sequentialAlpha(0.05, 8), sequentialAlpha(0.05, 8, 8), 'the look defaults to the last');
    assert.equal(sequentialAlpha(0.05, 8, 12), sequentialAlpha(0.05, 8, 8), 'a look past the planned ones tests at the last level');
    assert.ok(sequentialAlpha(0.1, 8, 8) > sequentialAlpha(0.05, 8, 8));
  });

  test('sequentialAlpha keeps the chance of any false rejection over all looks at alpha (Monte Carlo, 16, 8 and 4 looks)', () => {
    // Under no difference the running sum of K independent increments is a random walk; Z_k = S_k / √k.
    let seed = 12345;
    const uniform = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) + 0.5) / 2 ** 32;
    const gauss = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    for (const K of [16, 8, 4]) {
      const crit = Array.from({ length: K }, (_, k) => tQuantile(1 - sequentialAlpha(0.05, K, k + 1) / 2, Infinity));
      let rejected = 0;
      const paths = 40_000;
      for (let i = 0; i < paths; i++) {
        let s = 0;
        for (let k = 1; k <= K; k++) {
          s += gauss();
          if (Math.abs(s / Math.sqrt(k)) > (crit[k - 1] as number)) {
            rejected++;
            break;
          }
        }
      }
      near(rejected / paths, 0.05, 0.006, `${K} looks: overall level`);
    }
  });
});

describe('the whole procedure, round by round (Monte Carlo on normal launches)', () => {
  // As the runner repeats (runner/repeats.ts inQuestion): after the search both candidates have one launch; each round
  // launches the leader and every contender once more (a decided leader with one launch once more), and the verdict
  // tests at that round's O'Brien–Fleming level of 16 looks with the run's pooled noise, until decided or 16 rounds.
  function simulate(diff: number, paths: number, sd = 0.042): { wrong: number; right: number } {
    let seed = 4242;
    const uniform = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) + 0.5) / 2 ** 32;
    const gauss = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const draw = (id: 'a' | 'b'): number => 40 * (id === 'b' ? 1 + diff : 1) * (1 + sd * gauss());
    const verdict = (s: Record<'a' | 'b', number[]>) => {
      const look = Math.max(s.a.length, s.b.length) - 1;
      const pooled = pooledNoise([s.a, s.b]) ?? { relSd: 0.05, df: Infinity };
      return decideScenario([{ id: 'a', samples: s.a }, { id: 'b', samples: s.b }], { alpha: look > 0 ? sequentialAlpha(0.05, 16, look) : 0.05, pooled });
    };
    let wrong = 0;
    let right = 0;
    for (let i = 0; i < paths; i++) {
      const s = { a: [draw('a')], b: [draw('b')] };
      for (let round = 1; round <= 16; round++) {
        const d = verdict(s);
        const leader = d.leader as 'a' | 'b';
        const next = d.outcome === 'undecided' ? [leader, ...(d.contenders as Array<'a' | 'b'>)] : s[leader].length < 2 ? [leader] : [];
        if (next.length === 0) break;
        for (const id of next) s[id].push(draw(id));
      }
      const d = verdict(s);
      if (d.outcome === 'winner' && diff > 0 && d.winner === 'b') right++;
      else if (d.outcome === 'winner') wrong++;
    }
    return { wrong: wrong / paths, right: right / paths };
  }

  test('at no difference a winner is named in at most 5% of runs; a 6% difference at 4.2% launch noise is found in at least 90%', () => {
    // 4.2%: one launch's capacity sd on the simulator at --sim-noise 0.03; 6%: bench:resolution's +5% efficiency.
    const none = simulate(0, 3000);
    assert.ok(none.wrong <= 0.05, `wrong winners at no difference: ${none.wrong}`);
    const six = simulate(0.06, 1500);
    assert.equal(six.wrong, 0);
    assert.ok(six.right >= 0.9, `a 6% difference decided in ${six.right}`);
  });
});

describe('the level as printed', () => {
  test('an early look\'s level keeps its decimals instead of rounding to 100%', () => {
    assert.equal(levelText(0.95), '95%');
    assert.equal(levelText(0.9833), '98.3%');
    assert.equal(levelText(0.99962), '99.96%');
    assert.equal(levelText(0.9999999), '>99.99%');
  });
});
