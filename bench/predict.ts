// Times the built CLI's `autobench predict` over every shipped config (configs/cookbook-llm/): 3 runs, the median wall
// time, and what was predicted (candidates, how many predicted oom / fails). Every number it predicts is the SIMULATED
// engine model's, never a GPU measurement. Run: npm run bench:predict   (or: node --import tsx bench/predict.ts [--runs N] [--jobs N])
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PlanPrediction } from '../src/predict/types';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg('--runs') ?? 3);
const JOBS = arg('--jobs');

const root = resolve(__dirname, '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'autobench-bench-predict-'));
const out = join(dir, 'predict.json');

function once(): { ms: number; doc: { predictions: PlanPrediction[]; errors: unknown[] } } {
  const args = [cli, 'predict', join(root, 'configs', 'cookbook-llm'), '--out', out, ...(JOBS ? ['--jobs', JOBS] : [])];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`autobench predict exited ${r.status}:\n${r.stderr}`);
  return { ms, doc: JSON.parse(readFileSync(out, 'utf8')) as { predictions: PlanPrediction[]; errors: unknown[] } };
}

try {
  console.log(`node ${process.version}, ${availableParallelism()} cores, load ${loadavg()[0]?.toFixed(2)}; ${RUNS} runs of: autobench predict configs/cookbook-llm/${JOBS ? ` --jobs ${JOBS}` : ''}`);
  const walls: number[] = [];
  let last: ReturnType<typeof once> | undefined;
  for (let i = 0; i < RUNS; i++) {
    last = once();
    walls.push(last.ms);
    // The files' own prediction times summed: the work, whatever the number of workers or the machine's load.
    const work = last.doc.predictions.reduce((a, p) => a + p.elapsedMs, 0);
    console.log(`  run ${i + 1}: ${(last.ms / 1000).toFixed(2)} s wall; the files' prediction times sum to ${(work / 1000).toFixed(2)} s`);
  }
  const sorted = [...walls].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  const preds = last?.doc.predictions ?? [];
  const cands = preds.flatMap((p) => p.candidates);
  const count = (s: string): number => cands.filter((c) => c.status === s).length;
  console.log(`files ${preds.length} (${last?.doc.errors.length ?? 0} not predicted), candidates ${cands.length}: ok ${count('ok')}, oom ${count('oom')}, fails ${count('fails')}, skipped ${count('skipped')}`);
  console.log(`median wall time ${(median / 1000).toFixed(2)} s (PREDICTED by the simulated engine model, not measured)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
