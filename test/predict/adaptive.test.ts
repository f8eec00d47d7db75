// The adaptive strategy's parts: calibration recovers hidden perturbations, the race never drops a clear winner, and a
// candidate it skips says which prediction skipped it (and --force measures it anyway).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readRunPlan } from '../../src/core/plan/build';
import { fitFramework, predictFactors } from '../../src/predict/calibration';
import { engineFor, predictOptions } from '../../src/predict/engine';
import { fitCandidate } from '../../src/predict/fit';
import { judgePoint, requestsFor } from '../../src/predict/point';
import { predictCapacity } from '../../src/predict/capacity';
import { observationsOf } from '../../src/predict/measured';
import { belowFloor, Race, searchAbove, searchAround } from '../../src/predict/race';
import { DECISION_MARGIN } from '../../src/core/results/verdict';
import { runAdaptive } from '../../src/predict/adaptive';
import { planGpu } from '../../src/predict/plan';
import type { CandidatePrediction } from '../../src/predict/types';
import { simulateLoad } from '../../src/sim/virtual';
import { cleanup, planYaml, REPO, runOnSim, tempDir } from '../support/runner';
import { adaptive, grid } from '../support/search/strategies';

const plan = (file: string) => readRunPlan({ text: readFileSync(file, 'utf8'), path: file });
const demo = () => plan(path.join(REPO, 'configs/examples/demo.plan.yaml'));

describe('calibration', () => {
  test('recovers hidden --sim-perturb factors within 5% from synthetic rows', () => {
    const p = demo();
    for (const f of p.frameworks.filter((x) => x.status === 'run')) {
      const cand = f.candidates[0]!;
      for (const seed of [1, 2, 3]) {
        const truth = engineFor(f.framework, cand, predictOptions('H100', { perturb: seed }));
        const plain = engineFor(f.framework, cand, predictOptions('H100'));
        assert.ok(truth.ok && plain.ok);
        // Rows at rates below the knee in every scenario (a measured candidate has both), on the perturbed engine.
        const obs = p.scenarios.flatMap((sc) =>
          [0.5, 1, 2].map((rate) => {
            const v = simulateLoad(truth.config, { inputLen: sc.inputLen, outputLen: sc.outputLen, rate, concurrency: null, requests: requestsFor(rate), warmup: 3, seed: 1 });
            return { scenario: sc, rate, concurrency: null, p50TtftMs: v.ttftMs.p50, p50TpotMs: v.tpotMs.p50 };
          }),
        );
        const fit = fitCandidate(plain.config, obs);
        const hidden = truth.config.perturbation!;
        assert.ok(fit, 'a fit');
        assert.ok(Math.abs(fit.factors.prefill / hidden.prefill - 1) < 0.05, `${f.framework} seed ${seed}: prefill ${fit.factors.prefill} vs ${hidden.prefill}`);
        assert.ok(Math.abs(fit.factors.decode / hidden.decode - 1) < 0.05, `${f.framework} seed ${seed}: decode ${fit.factors.decode} vs ${hidden.decode}`);
        assert.ok(fit.errorAfter < fit.errorBefore || fit.errorBefore < 0.01);
      }
    }
  });

  test('a lengthened trial is fitted at the length it ran: near the knee the fit recovers the hidden factors, as the row records them', () => {
    // A 1000-token-output scenario at tens of req/s (glyph's chat on 4 GPUs): near the knee the runner's steady-state
    // rule lengthens trials to several times requestsFor(rate). A fit that simulated the short trial read their
    // deeper queues as a 3-4x slower decode (bench:search, glyph: adaptive then skipped the winner).
    const p = plan(path.join(REPO, 'configs/cookbook-llm/glyph.yaml'));
    const cand = p.frameworks.find((x) => x.framework === 'sglang')!.candidates[0]!;
    const truth = engineFor('sglang', cand, predictOptions(planGpu(p), { perturb: 4 }));
    const plain = engineFor('sglang', cand, predictOptions(planGpu(p)));
    assert.ok(truth.ok && plain.ok);
    const sc = p.scenarios.find((x) => x.name === 'chat')!;
    const knee = predictCapacity(truth.config, { scenario: sc, concurrency: null, sla: p.sla }).capacity;
    const trials = [0.5, 0.7, 0.9].map((x) => {
      const rate = Number((knee * x).toPrecision(4));
      const { v, n, point } = judgePoint(truth.config, { scenario: sc, rate, concurrency: null }, p.sla);
      return { rate, v, n, passed: point.passed };
    });
    assert.ok(trials.every((t) => t.passed), 'under the knee');
    assert.ok(trials.some((t) => t.n > 4 * requestsFor(t.rate)), `some trial lengthened: ${trials.map((t) => `${t.rate}: ${t.n}`).join(', ')}`);
    const rows = trials.map((t) => ({ framework: 'sglang', status: 'ok' as const, scenario: sc.name, trial: { mode: 'search', rate: t.rate, concurrency: null }, metrics: { p50_ttft_ms: t.v.ttftMs.p50, p50_tpot_ms: t.v.tpotMs.p50 }, workload: { num_prompts: t.n }, sla: { passed: true } }));
    const obs = observationsOf({ scenarios: [sc] }, rows);
    assert.deepEqual(obs.map((o) => o.requests), trials.map((t) => t.n));
    const hidden = truth.config.perturbation!;
    const fit = fitCandidate(plain.config, obs);
    assert.ok(fit);
    assert.ok(Math.abs(fit.factors.decode / hidden.decode - 1) < 0.05, `decode ${fit.factors.decode} vs ${hidden.decode}`);
    assert.ok(Math.abs(fit.factors.prefill / hidden.prefill - 1) < 0.1, `prefill ${fit.factors.prefill} vs ${hidden.prefill}`);
    // The same trials without their length: the fit that misread them.
    const blind = fitCandidate(plain.config, obs.map(({ requests: _, ...o }) => o));
    assert.ok(blind && blind.factors.decode / hidden.decode < 0.8, `without the length the decode factor is far off: ${blind?.factors.decode} vs ${hidden.decode}`);
  });

  test('per flag value: an unseen combination of seen values is predicted within 5%, an unseen value carries the prior error', () => {
    // Hidden truth: intercept 0.9 (prefill) / 1.2 (decode); a=1 ×1.1/×0.95; b=2 ×0.8/×1.15; base flag x=1 common to all.
    const truth = (a: number, b: number) => ({ prefill: 0.9 * (a === 1 ? 1.1 : 1) * (b === 2 ? 0.8 : 1), decode: 1.2 * (a === 1 ? 0.95 : 1) * (b === 2 ? 1.15 : 1) });
    const feat = (a: number, b: number) => ['x=1', `a=${a}`, `b=${b}`].sort();
    const points = [
      [0, 0],
      [1, 0],
      [0, 2],
      [0, 0],
      [1, 0],
      [0, 2],
    ].map(([a, b], i) => ({ candidate: `c${i}`, features: feat(a!, b!), factors: truth(a!, b!) }));
    const m = fitFramework(points);
    const got = predictFactors(m, feat(1, 2));
    const want = truth(1, 2);
    assert.ok(Math.abs(got.factors.prefill / want.prefill - 1) < 0.05, `prefill ${got.factors.prefill} vs ${want.prefill}`);
    assert.ok(Math.abs(got.factors.decode / want.decode - 1) < 0.05, `decode ${got.factors.decode} vs ${want.decode}`);
    assert.ok(predictFactors(m, [...feat(1, 2), 'c=9'].sort()).relError > got.relError, 'an unseen value adds error');
  });

  test('a command measured before is trusted only as closely as another launch, and its fitted model, reproduce its capacity', () => {
    const feats = ['a=1', 'x=1'];
    const m = fitFramework([{ candidate: 'c1', features: feats, factors: { prefill: 1.1, decode: 0.9 }, capacityError: 0.4 }]);
    assert.ok(Math.abs(predictFactors(m, feats).relError - Math.hypot(0.1, 0.4)) < 1e-12);
    const old = fitFramework([{ candidate: 'c1', features: feats, factors: { prefill: 1.1, decode: 0.9 } }]);
    assert.equal(predictFactors(old, feats).relError, 0.1, 'a store written before capacityError: launch-to-launch noise only');
  });
});

const RACE_PLAN = `model:
  name: Qwen/Qwen3-8B
hardware:
  gpu_model: H100
  gpu_count: 1
dataset:
  num_prompts: 48
  scenario_names: [chat]
  input_len: [512]
  output_len: [128]
benchmark:
  request_rates: null
  qps: {lower: 0.5, upper: 64, tolerance: 0.5, max_rounds: 6}
sla:
  max_p50_ttft_ms: 400
  max_p50_tpot_ms: 25
search:
  max_candidates_per_framework: 4
frameworks:
  vllm:
    base_server_flags:
      max_model_len: 4096
    search_space:
      max_num_seqs: [4, 16, 64]
  sglang:
    base_server_flags:
      context_length: 4096
    search_space:
      max_running_requests: [4, 16, 64]
  tensorrt_llm:
    enabled: false
  tokenspeed:
    enabled: false
`;

function pred(candidate: string, capacity: number, upper: number, relError = 0.1): CandidatePrediction {
  return { framework: 'vllm', candidate, command: candidate, gpus: 1, status: 'ok', factors: { prefill: 1, decode: 1 }, relError, scenarios: [{ scenario: 's', concurrency: null, capacity, upper, curve: [], atCapacity: undefined }] };
}

describe('the race', () => {
  test('nothing is hopeless before a leader exists; a forced candidate never is; a far-behind one is, with the prediction in the reason', () => {
    const r = new Race(['vllm a', 'vllm b', 'vllm c'], ['s'], ['vllm c']);
    r.predict('vllm a', pred('a', 10, 12));
    r.predict('vllm b', pred('b', 3, 4));
    r.predict('vllm c', pred('c', 1, 1.5));
    assert.equal(r.hopeless('vllm b'), undefined);
    assert.equal(r.next(), 'vllm c', 'forced first');
    r.record('vllm c', new Map([['s', { lo: 1, hi: 1.2 }]]));
    assert.equal(r.next(), 'vllm a');
    r.record('vllm a', new Map([['s', { lo: 9, hi: 9.5 }]]));
    assert.match(r.hopeless('vllm b') ?? '', /predicted 67% behind the leader in s \(3 req\/s predicted, at most 4 within the calibrated error ±10%, vs vllm a measured at 9 req\/s\); --force vllm:b measures it/);
    assert.equal(r.next(), undefined);
  });

  test('per GPU (verdict.objective not throughput): a 1-GPU server behind a 3-GPU unit in req/s but ahead per GPU is not skipped; a unit behind per GPU is', () => {
    const r = new Race(['vllm pd1', 'vllm a', 'vllm pd2'], ['s'], [], 0, true);
    r.predict('vllm pd1', { ...pred('pd1', 12, 13), gpus: 3 });
    r.predict('vllm a', pred('a', 6, 6.6));
    r.predict('vllm pd2', { ...pred('pd2', 9, 10), gpus: 3 });
    r.record('vllm pd1', new Map([['s', { lo: 12, hi: 12.5 }]]));
    // 6 req/s on 1 GPU against 4 req/s per GPU: a leads per GPU, so it is measured.
    assert.equal(r.hopeless('vllm a'), undefined);
    assert.equal(r.next(), 'vllm a');
    r.record('vllm a', new Map([['s', { lo: 6, hi: 6.3 }]]));
    assert.match(r.hopeless('vllm pd2') ?? '', /predicted 50% behind the leader in s \(3 req\/s per GPU predicted, at most 3\.33 .* vs vllm a measured at 6 req\/s per GPU\)/);
    // Its floor is the leader's per-GPU rate back in its own req/s (3 GPUs).
    assert.ok(Math.abs((r.floors('vllm pd2').get('s') ?? 0) - (3 * 6 * 0.98) / (1 + DECISION_MARGIN)) < 0.01, String(r.floors('vllm pd2').get('s')));
  });

  test('a candidate predicted behind but able to land above the leader is measured', () => {
    const r = new Race(['vllm a', 'vllm b'], ['s']);
    r.predict('vllm a', pred('a', 10, 11));
    r.predict('vllm b', pred('b', 7, 13, 0.3));
    r.record('vllm a', new Map([['s', { lo: 10, hi: 10.5 }]]));
    assert.equal(r.next(), 'vllm b');
  });

  test('while racing, a candidate that could only tie (not come first) is skipped; once the verdict names a winner, it is measured', () => {
    // Optimistic 8.5 vs a leader at 10: it cannot come out on top, but could tie (within DECISION_MARGIN).
    const r = new Race(['vllm a', 'vllm b', 'vllm c'], ['s']);
    r.predict('vllm a', pred('a', 10, 11));
    r.predict('vllm b', pred('b', 7, 8.5));
    r.predict('vllm c', pred('c', 6, 8));
    r.record('vllm a', new Map([['s', { lo: 10, hi: 10.5 }]]));
    assert.match(r.hopeless('vllm b') ?? '', /predicted 30% behind the leader/);
    assert.equal(r.next(), undefined);
    // Settled with no decided scenario: nothing changes.
    r.settle(new Map());
    assert.equal(r.next(), undefined);
    // The verdict names a winner in s: a run that measured b would call it a tie, so b is measured; c could not tie.
    r.settle(new Map([['s', 10]]));
    assert.equal(r.hopeless('vllm b'), undefined);
    assert.equal(r.next(), 'vllm b');
    assert.match(r.hopeless('vllm c') ?? '', /predicted 40% behind the leader/);
  });

  test('successive halving: a candidate must meet the SLA just under the tie bound of the leader (or the decided winner); failing there ends its search', () => {
    const r = new Race(['vllm a', 'vllm b', 'vllm f'], ['s', 't'], ['vllm f']);
    r.predict('vllm a', pred('a', 10, 11));
    r.predict('vllm b', pred('b', 7, 13, 0.3));
    assert.deepEqual([...r.floors('vllm b')], [], 'no leader yet: no floor');
    r.record('vllm a', new Map([['s', { lo: 12, hi: 12.5 }]]));
    const floor = r.floors('vllm b').get('s') ?? 0;
    assert.ok(floor < 12 / (1 + DECISION_MARGIN) && floor > 0.95 * (12 / (1 + DECISION_MARGIN)), `floor ${floor} just under the tie bound`);
    assert.equal(r.floors('vllm b').has('t'), false, 'no leader in t: the whole search there');
    assert.deepEqual([...r.floors('vllm f')], [], 'a forced candidate gets its whole search');
    // A leader whose repeats may miss its best rate: the floor is under the rate its verdict would fall back to.
    r.record('vllm f', new Map([['s', { lo: 13, hi: 13.5, fallback: 11 }]]));
    assert.ok(Math.abs((r.floors('vllm b').get('s') ?? 0) - (0.98 * 12) / (1 + DECISION_MARGIN)) < 1e-9, 'the best rate some leader keeps (12), not the best seen (13)');
    r.settle(new Map([['s', 15]]));
    assert.ok(Math.abs((r.floors('vllm b').get('s') ?? 0) - (0.98 * 15) / (1 + DECISION_MARGIN)) < 1e-9, "the decided winner's rate once settled");
    // The search: raised to the floor when the knee's search starts below it; stops only when it fails at or above the floor.
    const plan = { lower: 1, upper: 40, tolerance: 0.5, maxRounds: 5 };
    const around = searchAround(plan, 10);
    assert.deepEqual(searchAbove(around, undefined), around);
    assert.deepEqual(searchAbove(around, 5), around, 'a floor under the lower bound changes nothing');
    assert.deepEqual([searchAbove(around, 8).lower, searchAbove(around, 8).upper], [8, 12.5]);
    assert.deepEqual([searchAbove(around, 20).lower, searchAbove(around, 20).upper], [20, 25], 'a floor above the knee search: probe there first');
    assert.equal(belowFloor(searchAbove(around, 8), 'lower-fails', 8), true);
    assert.equal(belowFloor(around, 'lower-fails', 5), true, 'its lower bound (6) is above the floor: failing there rules a tie out too');
    assert.equal(belowFloor(around, 'lower-fails', 7), false, 'failing under the floor says nothing: search below');
    assert.equal(belowFloor(searchAbove(around, 8), 'converged', 8), false);
    assert.equal(belowFloor(around, 'lower-fails', undefined), false);
  });

  test('runAdaptive: settle reports a decided scenario, and the candidate that could tie is measured before the run ends', async () => {
    const p = readRunPlan({ text: RACE_PLAN, path: 'race.plan.yaml' });
    const entries = p.frameworks.filter((f) => f.status === 'run').flatMap((f) => f.candidates.filter((c) => !c.skip).map((cand) => ({ key: `${f.framework} ${cand.id}`, framework: f.framework, cand })));
    const [lead, close, ...rest] = entries;
    const predFor = (e: (typeof entries)[number], capacity: number, upper: number): [string, CandidatePrediction] => [e.key, { ...pred(e.cand.id, capacity, upper), framework: e.framework, scenarios: [{ scenario: 'chat', concurrency: null, capacity, upper, curve: [], atCapacity: undefined }] }];
    const initial = new Map([predFor(lead!, 10, 11), predFor(close!, 7, 8.5), ...rest.map((e) => predFor(e, 1, 1.2))]);
    const capacity = new Map([[lead!.key, 10], [close!.key, 8.6]]);
    const seen: string[] = [];
    const settles: string[][] = [];
    const r = await runAdaptive({
      plan: p,
      entries,
      initial,
      measure: (e) => {
        seen.push(e.key);
        const lo = capacity.get(e.key) ?? 1;
        return Promise.resolve({ outcome: new Map([['chat', { lo, hi: lo * 1.05 }]]), observations: [] });
      },
      // The verdict names the leader the winner until the close candidate is measured; then it is a tie.
      settle: () => {
        const decided = seen.includes(close!.key) ? [] : ['chat'];
        settles.push(decided);
        return Promise.resolve({ decided: new Map(decided.map((sc) => [sc, 10])) });
      },
    });
    assert.deepEqual(r.measured, [lead!.key, close!.key]);
    assert.deepEqual(settles, [['chat'], []]);
    assert.equal(r.skipped.length, rest.length);
  });

  test('never drops the candidate the grid ranks first when its lead exceeds the noise (hidden perturbations, virtual clock)', { timeout: 600_000 }, async () => {
    // Two frameworks whose candidates differ a lot (max running requests 4..256), so some seeds give grid a clear winner.
    const p = readRunPlan({ text: RACE_PLAN, path: 'race.plan.yaml' });
    let decided = 0;
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const t = { plan: p, seed };
      const g = grid(t);
      const a = await adaptive(t);
      for (const gv of g.verdicts) {
        if (!gv.decided || !gv.winner) continue;
        decided++;
        const key = `${gv.winner.framework} ${gv.winner.candidate}`;
        assert.ok(a.adaptive!.measured.includes(key), `seed ${seed} ${gv.scenario}: adaptive skipped grid's clear winner ${key}`);
        const av = a.verdicts.find((v) => v.scenario === gv.scenario)!;
        const names = [av.winner, ...av.ties].map((c) => c && `${c.framework} ${c.candidate}`);
        assert.ok(names.includes(key), `seed ${seed} ${gv.scenario}: adaptive named ${names.join(', ')}, grid ${key}`);
      }
    }
    assert.ok(decided > 0, 'some seed gave grid a clear winner');
  });
});

describe('adaptive runs on the simulated engine', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanup));
  const text = planYaml({
    frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [1]' },
    dataset: 'num_prompts: 32\nscenario_names: [chat]\ninput_len: [512]\noutput_len: [64]',
    benchmark: 'request_rates: null\nqps: {lower: 0.5, upper: 32, tolerance: 1, max_rounds: 4}',
    sla: 'max_p50_ttft_ms: 300\nmax_p50_tpot_ms: 40',
  });

  test('a candidate predicted far behind is skipped with the prediction in its row; --force measures it', { timeout: 400_000 }, async () => {
    const d = tempDir();
    dirs.push(d);
    const { result } = await runOnSim(text, { outDir: path.join(d, 'a'), strategy: 'adaptive', skipSmoke: true, repeats: 0 });
    const rows = result.rows as unknown as Array<{ candidate_id?: string; status: string; failure_reason?: string | null }>;
    const skipped = rows.find((r) => r.candidate_id === 'c1' && r.status === 'skipped');
    assert.match(skipped?.failure_reason ?? '', /^not measured: predicted \d+% behind the leader in chat \(.* req\/s predicted, at most .* within the calibrated error ±\d+%, vs vllm baseline measured at .* req\/s\); --force vllm:c1 measures it$/);
    const manifest = JSON.parse(readFileSync(path.join(result.outDir, 'manifest.json'), 'utf8')) as { search_strategy: { name: string; measured: string[]; skipped: unknown[]; grid_gpu_seconds_predicted: number }; gpu_seconds: { total: number } };
    assert.equal(manifest.search_strategy.name, 'adaptive');
    assert.deepEqual(manifest.search_strategy.measured, ['vllm baseline']);
    assert.ok(manifest.search_strategy.grid_gpu_seconds_predicted > manifest.gpu_seconds.total, 'the grid would have spent more');
    const forced = await runOnSim(text, { outDir: path.join(d, 'b'), strategy: 'adaptive', force: ['vllm:c1'], skipSmoke: true, repeats: 0 });
    const c1 = (forced.result.rows as unknown as Array<{ candidate_id?: string; status: string; trial?: { mode?: string } }>).filter((r) => r.candidate_id === 'c1');
    assert.ok(c1.some((r) => r.trial?.mode === 'search'), 'forced: measured');
  });

  test('a candidate that could have come first but fails just under the leader\'s tie bound is stopped after one trial, and says so', { timeout: 400_000 }, async () => {
    const d = tempDir();
    dirs.push(d);
    // c2 (max_num_seqs 20) is predicted at about two thirds of the baseline: close enough to measure, too slow to tie.
    const stop = text.replace('max_num_seqs: [1]', 'max_num_seqs: [1, 20]');
    // At x5, not the suite's x20: the path asserted here (c2 measured, then stopped at its floor) turns on how the leader's
    // trials calibrate c2's prediction, and at x20 a loaded host moved those enough to skip c2 or search it whole (CI
    // failed so once; locally 1 of 4 runs under five busy loops). At x5 under the same load: 3 of 3, leader 43.6 req/s each time.
    const { result } = await runOnSim(stop, { outDir: path.join(d, 'a'), strategy: 'adaptive', skipSmoke: true, repeats: 0, simSpeed: 5 });
    const manifest = JSON.parse(readFileSync(path.join(result.outDir, 'manifest.json'), 'utf8')) as { search_strategy: { measured: string[]; stopped?: Array<{ framework: string; candidate: string; scenario: string; rate: number }> } };
    assert.deepEqual(manifest.search_strategy.measured.slice(0, 2), ['vllm baseline', 'vllm c2']);
    const rows = result.rows as unknown as Array<{ candidate_id?: string; status: string; trial?: { mode?: string; rate?: number }; sla?: { passed?: boolean } }>;
    // Measured while the race is open, c2's floor is under the rate the leader keeps should a repeat miss its best (its
    // next passing rate); measured after the verdict named the leader (settle, when c2 first looked unable to tie), under
    // the leader's confirmed best. Which of the two depends on the calibrated error after the leader's trials.
    const passes = rows.filter((r) => r.candidate_id === 'baseline' && r.trial?.mode === 'search' && r.sla?.passed).map((r) => r.trial?.rate ?? 0).sort((a, b) => b - a);
    const leads = [passes[1] ?? passes[0] ?? 0, passes[0] ?? 0];
    const c2 = rows.filter((r) => r.candidate_id === 'c2' && r.trial?.mode === 'search');
    assert.equal(c2.length, 1, 'one trial: at the floor');
    assert.equal(c2[0]?.sla?.passed, false);
    const floor = c2[0]?.trial?.rate ?? 0;
    const under = (lead: number): boolean => floor < lead / (1 + DECISION_MARGIN) && floor > 0.95 * (lead / (1 + DECISION_MARGIN));
    assert.ok(leads.some(under), `floor ${floor} just under ${leads.join(' or ')} / 1.2 (passes ${passes.join(', ')})`);
    assert.deepEqual(manifest.search_strategy.stopped, [{ framework: 'vllm', candidate: 'c2', scenario: 'chat', rate: floor }]);
    const md = readFileSync(path.join(result.outDir, 'summary.md'), 'utf8');
    assert.ok(md.includes(`stopped: fails the SLA at ${floor} req/s, under which it can neither win nor tie`), 'the predicted-vs-measured table says why');
    // Resumed with nothing left to measure: the stop is replayed, not searched again, and still recorded.
    const again = await runOnSim(stop, { outDir: result.outDir, resume: true, strategy: 'adaptive', skipSmoke: true, repeats: 0, simSpeed: 5 });
    assert.equal(again.result.rows.filter((r) => r.candidate_id === 'c2' && (r.trial as { mode?: string } | undefined)?.mode === 'search').length, 1);
    const resumed = JSON.parse(readFileSync(path.join(result.outDir, 'manifest.json'), 'utf8')) as typeof manifest;
    assert.deepEqual(resumed.search_strategy.stopped, manifest.search_strategy.stopped);
  });
});
