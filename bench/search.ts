// Grid against adaptive on a hidden ground truth: the simulated engine with seeded ±25% efficiency perturbations per
// (framework, flag value) and 3% launch noise, every trial on the virtual clock. Per scenario, whether adaptive names a
// candidate within 3% of grid's best (or one of grid's ties), the GPU-seconds each spent, and the predictor's error
// before and after calibration. Usage: npm run bench:search [-- --configs N --seeds K --workers W --only NAME,NAME]
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readRunPlan } from '../src/core/plan/build';
import type { ScenarioVerdict } from '../src/core/results/verdict';
import { predictCandidate } from '../src/predict/plan';
import { RACE_Z } from '../src/predict/race';
import type { CandidatePrediction } from '../src/predict/types';
import { LAUNCH_S, NOISE, resetLaunchSalts } from '../test/support/search/measure';
import { adaptive, entriesOf, grid } from '../test/support/search/strategies';

const REPO = resolve(__dirname, '..');
const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};

interface ScenarioOutcome {
  scenario: string;
  gridWinner: string | null;
  gridTies: string[];
  adaptiveWinner: string | null;
  ok: boolean;
  note: string;
}

interface JobResult {
  file: string;
  seed: number;
  candidates: number;
  measured: number;
  gridGpu: number;
  adaptiveGpu: number;
  scenarios: ScenarioOutcome[];
  errBefore: number[];
  errAfter: number[];
  wallS: number;
}

const nameOf = (c: { framework: string; candidate: string } | null | undefined): string | null => (c ? `${c.framework} ${c.candidate}` : null);

function compare(g: ScenarioVerdict, a: ScenarioVerdict): ScenarioOutcome {
  const gridTies = [g.winner, ...g.ties].map(nameOf).filter((x): x is string => x !== null);
  const aw = nameOf(a.winner);
  const top = g.winner?.score ?? 0;
  const aScore = g.ranked.find((c) => nameOf(c) === aw)?.score ?? 0;
  let ok: boolean;
  let note: string;
  if (!g.winner) [ok, note] = [!a.winner, a.winner ? 'grid found nothing under the SLA, adaptive did' : 'neither found a rate under the SLA'];
  else if (!aw) [ok, note] = [false, 'adaptive found nothing under the SLA'];
  else if (gridTies.includes(aw)) [ok, note] = [true, g.decided ? "grid's winner" : "one of grid's ties"];
  else [ok, note] = [aScore >= 0.97 * top, `${((aScore / top) * 100).toFixed(1)}% of grid's best`];
  return { scenario: g.scenario, gridWinner: nameOf(g.winner), gridTies, adaptiveWinner: aw, ok, note };
}

function relErrors(preds: ReadonlyMap<string, CandidatePrediction>, keys: Iterable<string>, gridV: ScenarioVerdict[]): number[] {
  const out: number[] = [];
  for (const key of keys) {
    const p = preds.get(key);
    if (!p || p.status !== 'ok') continue;
    for (const v of gridV) {
      const measured = v.ranked.find((c) => nameOf(c) === key)?.score ?? 0;
      const cap = p.scenarios.find((s) => s.scenario === v.scenario)?.capacity ?? 0;
      if (measured > 0 && cap > 0) out.push(Math.abs(cap / measured - 1));
    }
  }
  return out;
}

async function job(file: string, seeds: number[]): Promise<JobResult[]> {
  const plan = readRunPlan({ text: readFileSync(file, 'utf8'), path: file });
  const truth0 = { plan, seed: 0 };
  // The uncalibrated prediction does not depend on the hidden seed: made once per config.
  const initial = new Map<string, CandidatePrediction>();
  const hints = new Map<string, Map<string, number>>();
  for (const e of entriesOf(truth0)) initial.set(e.key, predictCandidate(plan, e.framework, e.cand, hints.get(e.framework) ?? hints.set(e.framework, new Map()).get(e.framework)!, { upperZ: RACE_Z }));
  const out: JobResult[] = [];
  for (const seed of seeds) {
    const t0 = performance.now();
    const t = { plan, seed };
    // Each run's launch noise from its own draws, not from how many launches this worker made before.
    resetLaunchSalts();
    const g = grid(t);
    const a = await adaptive(t, initial);
    const unmeasured = [...initial.keys()].filter((k) => !a.adaptive!.measured.includes(k));
    out.push({
      file: file.split('/').pop()!,
      seed,
      candidates: initial.size,
      measured: a.measured,
      gridGpu: g.gpuSeconds,
      adaptiveGpu: a.gpuSeconds,
      scenarios: g.verdicts.map((gv, i) => compare(gv, a.verdicts[i]!)),
      errBefore: relErrors(initial, unmeasured, g.verdicts),
      errAfter: relErrors(a.adaptive!.predictions, unmeasured, g.verdicts),
      wallS: (performance.now() - t0) / 1000,
    });
  }
  return out;
}

function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function report(all: JobResult[]): void {
  const sc = all.flatMap((r) => r.scenarios);
  const ok = sc.filter((s) => s.ok).length;
  const gridGpu = all.reduce((a, r) => a + r.gridGpu, 0);
  const adGpu = all.reduce((a, r) => a + r.adaptiveGpu, 0);
  console.log('\n== summary ==');
  console.log(`configs × seeds: ${all.length}; scenarios judged: ${sc.length}`);
  console.log(`adaptive names grid's best (within 3%) or one of grid's ties: ${ok}/${sc.length} = ${((ok / sc.length) * 100).toFixed(1)}% (must be >= 95%)`);
  console.log(`GPU-seconds: adaptive ${Math.round(adGpu)} / grid ${Math.round(gridGpu)} = ${((adGpu / gridGpu) * 100).toFixed(1)}% in total (must be <= 25%); median per run ${(median(all.map((r) => r.adaptiveGpu / r.gridGpu)) * 100).toFixed(1)}%`);
  console.log(`candidates measured: adaptive ${all.reduce((a, r) => a + r.measured, 0)} of ${all.reduce((a, r) => a + r.candidates, 0)}`);
  console.log(`predictor median |capacity error| on the candidates adaptive did not measure: before calibration ${(median(all.flatMap((r) => r.errBefore)) * 100).toFixed(1)}%, after ${(median(all.flatMap((r) => r.errAfter)) * 100).toFixed(1)}%`);
  for (const r of all) for (const s of r.scenarios) if (!s.ok) console.log(`  miss: ${r.file} seed ${r.seed} ${s.scenario}: adaptive ${s.adaptiveWinner}; grid ${s.gridWinner} ties [${s.gridTies.join(', ')}]; ${s.note}`);
}

async function main(): Promise<void> {
  const dir = join(REPO, 'configs/cookbook-llm');
  const only = arg('only', '').split(',').filter(Boolean).map((n) => (n.endsWith('.yaml') ? n : `${n}.yaml`));
  const listed = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  const unknown = only.filter((n) => !listed.includes(n));
  if (unknown.length) throw new Error(`--only: no config ${unknown.join(', ')} in configs/cookbook-llm`);
  const files = (only.length ? only : listed.slice(0, Number(arg('configs', '20')))).map((f) => join(dir, f));
  const seeds = Array.from({ length: Number(arg('seeds', '5')) }, (_, i) => i + 1);
  const workers = Math.max(1, Number(arg('workers', '2')));
  console.log(`bench:search — ${files.length} shipped configs × seeds ${seeds.join(',')}; ground truth: --sim-perturb SEED (±25% per framework and flag value, hidden), launch noise ${NOISE}, server start ${LAUNCH_S} modelled GPU-s per launch; virtual clock; ${workers} worker(s)`);
  const t0 = performance.now();
  const queue = [...files];
  const all: JobResult[] = [];
  const runOne = (w: Worker, resolveDone: () => void): void => {
    const f = queue.shift();
    if (!f) return void (w.terminate(), resolveDone());
    w.postMessage({ file: f, seeds });
  };
  await Promise.all(
    Array.from({ length: Math.min(workers, files.length) }, () => new Promise<void>((done, fail) => {
      const w = new Worker(`require('tsx/cjs'); require(${JSON.stringify(__filename)});`, { eval: true, workerData: { worker: true } });
      w.on('message', (rs: JobResult[]) => {
        for (const r of rs) {
          all.push(r);
          const ratio = ((r.adaptiveGpu / r.gridGpu) * 100).toFixed(0);
          console.log(`${r.file} seed ${r.seed}: measured ${r.measured}/${r.candidates}, GPU ${ratio}% of grid; ${r.scenarios.map((s) => `${s.scenario} ${s.ok ? 'ok' : 'MISS'} (${s.note})`).join('; ')} [${r.wallS.toFixed(1)} s]`);
        }
        runOne(w, done);
      });
      w.on('error', fail);
      runOne(w, done);
    })),
  );
  report(all);
  console.log(`wall time ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

if (isMainThread) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else if ((workerData as { worker?: boolean }).worker) {
  parentPort!.on('message', (m: { file: string; seeds: number[] }) => {
    void job(m.file, m.seeds).then((r) => parentPort!.postMessage(r));
  });
}
