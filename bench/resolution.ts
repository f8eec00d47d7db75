// How small a difference the verdict can decide, and at what GPU cost: two vLLM candidates whose true SLA capacities
// differ by a known amount (--sim-efficiency on the second; its noise-free capacity ratio printed), searched and repeated the way the
// runner does on the simulated engine's virtual clock with launch-to-launch noise (--sim-noise), N seeds per
// difference; every trial sends the plan's workload (its seed), as the runner's trials do. Prints, per true
// difference, how often the verdict named the faster one, the slower one, called them equivalent or undecided (with
// the 95% interval of the deciding share over the N runs), and the median GPU-seconds per run and per decided run —
// for the verdict by test (decide.ts: launches until decided, at most verdict.max_repeats) and for the fixed margin
// it replaced (3 repeats, a 20% margin on brackets). About 8 minutes at 120 runs on 2 cores.
// Run: node --import tsx bench/resolution.ts [--runs 120] [--noise 0.03] [--diffs 0,0.03,0.05,0.07,0.1] [--max-repeats N] [--verbose]
import { wilson } from '../src/client/bootstrap';
import { DEFAULT_VERDICT } from '../src/core/plan/bench';
import { readRunPlan } from '../src/core/plan/build';
import type { RunPlan } from '../src/core/plan/types';
import { fromPlainJson, type PyObject } from '../src/core/py/json';
import { prepareWork } from '../src/core/results/report/work';
import type { RunFacts } from '../src/core/results/run-facts';
import { scenarioVerdict } from '../src/core/results/verdict';
import { searchCapacity, headroomOf } from '../src/core/results/launch-capacity';
import { parseEfficiency } from '../src/sim/efficiency';
import { grid, entriesOf } from '../test/support/search/strategies';
import { launch, type Row, type Truth } from '../test/support/search/measure';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const RUNS = Number(arg('runs', '120'));
const NOISE = Number(arg('noise', '0.03'));
/** Trials of the noise-free truth: long enough that a trial's own sampling noise is small (about 1% of capacity). */
const TRUTH_PROMPTS = 2000;
/** verdict.max_repeats and verdict.repeat_length of the plan (default: the product's, DEFAULT_VERDICT). */
const MAX_REPEATS = arg('max-repeats', '');
const REPEAT_LENGTH = arg('repeat-length', '');
/** --verbose: each run's outcome, test level, pooled noise and per-launch capacities (s: search, r: repeat). */
const VERBOSE = process.argv.includes('--verbose');
const DIFFS = arg('diffs', '0,0.03,0.05,0.07,0.1').split(',').map(Number);

// disable_log_stats changes nothing in the simulated engine's speed: the efficiency factor is the only difference.
const PLAN = `model:
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
  qps: {lower: 1, upper: 64}
sla:
  max_p50_ttft_ms: 400
  max_p50_tpot_ms: 25
frameworks:
  vllm:
    base_server_flags:
      max_model_len: 4096
    search_space:
      disable_log_stats: [true]
`;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
};

function workOf(plan: RunPlan, rows: readonly Row[]) {
  return prepareWork(rows.map((r, i) => ({ line: i + 1, data: fromPlainJson(r) as PyObject })), { sla: plan.sla } as unknown as RunFacts);
}

/**
 * A candidate's capacity without launch noise: long trials, averaged over launches whose draws (prompts, arrivals) are
 * the same for both candidates (common random numbers: at no difference the ratio is exactly 1).
 */
function trueCapacity(shortPlan: RunPlan, factor: number, cand: 'baseline' | 'c1'): number {
  const plan = readRunPlan({ text: PLAN.replace('num_prompts: 48', `num_prompts: ${TRUTH_PROMPTS}`), path: 'resolution-truth.plan.yaml' });
  void shortPlan;
  const caps: number[] = [];
  for (let seed = 1; seed <= 4; seed++) {
    const t: Truth = { plan, seed, perturb: false, noise: 0, efficiency: parseEfficiency(`vllm.disable_log_stats=true:${factor}`) };
    const e = entriesOf(t).find((x) => x.cand.id === cand)!;
    const search = { lower: 1, upper: 64, tolerance: 0.01, relTolerance: 0.005, maxRounds: 20 };
    const l = launch(t, { fw: e.framework, cand: e.cand, salt: 1_000_000 + seed, work: plan.scenarios.map((scenario) => ({ scenario, search })) });
    const pts = workOf(plan, l.rows).map((w) => ({ rate: Number((w.row.get('trial') as Map<string, unknown>).get('rate')), headroom: headroomOf(w.verdict) }));
    const c = searchCapacity(pts)?.capacity;
    if (c !== undefined) caps.push(c);
  }
  return caps.reduce((x, y) => x + y, 0) / caps.length;
}

/** The fixed margin the test replaced: the top's confirmed rate must clear every other's lowest failing rate by 20%. */
function legacyVerdict(plan: RunPlan, rows: readonly Row[]): 'c1' | 'baseline' | 'tie' {
  const ranked = scenarioVerdict(workOf(plan, rows), 'chat').ranked.map((c) => ({ id: c.candidate, lo: c.confirmed ?? c.score, hi: c.lowestFail ?? Infinity })).sort((a, b) => b.lo - a.lo);
  const [top, other] = ranked;
  if (!top) return 'tie';
  if (!other || top.lo > other.hi * 1.2) return top.id === 'c1' ? 'c1' : 'baseline';
  return 'tie';
}

/** The old repeats: both candidates (the top two) 3 more launches at their confirmed rate. */
function legacyRun(t: Truth): { rows: Row[]; gpu: number } {
  const rows: Row[] = [];
  let gpu = 0;
  const entries = entriesOf(t);
  const search = { lower: 1, upper: 64, tolerance: 0.1, relTolerance: 0, maxRounds: 5 };
  for (const e of entries) {
    const l = launch(t, { fw: e.framework, cand: e.cand, work: t.plan.scenarios.map((scenario) => ({ scenario, search })) });
    rows.push(...l.rows);
    gpu += l.gpuSeconds;
  }
  const v = scenarioVerdict(workOf(t.plan, rows), 'chat');
  for (let round = 1; round <= 3; round++) {
    for (const c of v.ranked.slice(0, 2)) {
      const e = entries.find((x) => x.cand.id === c.candidate)!;
      const l = launch(t, { fw: e.framework, cand: e.cand, work: t.plan.scenarios.map((scenario) => ({ scenario, repeatAt: c.confirmed ?? c.score, round })) });
      rows.push(...l.rows);
      gpu += l.gpuSeconds;
    }
  }
  return { rows, gpu };
}

type Call = 'right' | 'wrong' | 'equivalent' | 'undecided';
const tally = (): Record<Call, number> => ({ right: 0, wrong: 0, equivalent: 0, undecided: 0 });
const pct = (n: number): string => `${((100 * n) / RUNS).toFixed(0)}%`.padStart(5);
/** The 95% (Wilson) interval of a rate counted over RUNS runs: how sure the row's figure is. */
const ci = (n: number): string => {
  const [lo, hi] = wilson(n, RUNS);
  return `${(100 * lo).toFixed(0)}–${(100 * hi).toFixed(0)}%`.padStart(8);
};

function main(): void {
  const verdict = [MAX_REPEATS && `  max_repeats: ${MAX_REPEATS}`, REPEAT_LENGTH && `  repeat_length: ${REPEAT_LENGTH}`].filter(Boolean);
  const plan = readRunPlan({ text: verdict.length ? `${PLAN}verdict:\n${verdict.join('\n')}\n` : PLAN, path: 'resolution.plan.yaml' });
  if (plan.bench.verdict.maxRepeats !== Number(MAX_REPEATS || DEFAULT_VERDICT.maxRepeats) || plan.bench.verdict.repeatLength !== Number(REPEAT_LENGTH || DEFAULT_VERDICT.repeatLength)) throw new Error(`the plan's verdict block was not read: ${plan.problems.join('; ')}`);
  const base = trueCapacity(plan, 1, 'baseline');
  console.log(`two vLLM candidates, ${RUNS} seeded runs per difference, launch noise ${NOISE}; baseline true capacity ${base.toFixed(2)} req/s (noise-free)`);
  console.log('efficiency factor (noise-free capacity ratio) | test: right wrong equiv undecided (95% CI of right; at 0: of wrong)  GPU-s (median: all, decided) | fixed 20% margin: right wrong tie  GPU-s (median)');
  for (const d of DIFFS) {
    // The efficiency factor scales every modelled step time: capacity scales with it (the noise-free check is printed).
    const factor = 1 + d;
    const ratio = trueCapacity(plan, factor, 'c1') / base;
    const now = tally();
    const old = tally();
    const gNow: number[] = [];
    const gDecided: number[] = [];
    const gOld: number[] = [];
    for (let seed = 1; seed <= RUNS; seed++) {
      const t: Truth = { plan, seed: 1000 * seed + Math.round(d * 1000), perturb: false, noise: NOISE, efficiency: parseEfficiency(`vllm.disable_log_stats=true:${factor}`) };
      const r = grid(t);
      const v = r.verdicts[0]!;
      if (VERBOSE) console.log(v.outcome, v.level?.toFixed(4), v.noise?.relSd.toFixed(4), v.noise?.df, v.effect?.toFixed(3), v.ci?.map((x) => x.toFixed(3)).join(".."), v.ranked.map((c) => `${c.candidate}:${c.launches?.map((l) => `${l.launch[0]}${l.capacity.toFixed(1)}${l.how[0]}`).join(",")}`).join(" "));
      const faster = d > 0 ? 'c1' : undefined;
      if (v.outcome === 'winner') now[v.winner?.candidate === faster ? 'right' : 'wrong']++;
      else now[v.outcome === 'equivalent' ? 'equivalent' : 'undecided']++;
      gNow.push(r.gpuSeconds);
      if (v.outcome === 'winner' || v.outcome === 'equivalent') gDecided.push(r.gpuSeconds);
      const l = legacyRun(t);
      const lv = legacyVerdict(plan, l.rows);
      if (lv === 'tie') old.undecided++;
      else old[lv === faster ? 'right' : 'wrong']++;
      gOld.push(l.gpu);
    }
    console.log(`+${(100 * d).toFixed(0).padStart(2)}% (${(100 * (ratio - 1)).toFixed(1).padStart(5)}%)  | ${pct(now.right)} ${pct(now.wrong)} ${pct(now.equivalent)} ${pct(now.undecided)} (${ci(d > 0 ? now.right : now.wrong)})     ${median(gNow).toFixed(0).padStart(6)} ${(gDecided.length ? median(gDecided).toFixed(0) : '-').padStart(6)}      | ${pct(old.right)} ${pct(old.wrong)} ${pct(old.undecided)}   ${median(gOld).toFixed(0).padStart(6)}`);
  }
  console.log('d = 0: "wrong" counts any winner named (there is none to name). GPU-seconds are modelled: 120 s a launch plus the trials.');
}

main();
