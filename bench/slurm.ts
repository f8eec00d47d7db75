// The demo plan on the test Slurm cluster (tools/slurm-host: one node, 2 fake GPUs, the simulated engine's CLIs on the
// node): one job at a time (--max-parallel 1) against two at once (--max-parallel 2), alternating, in one session (the
// order flips every pair, so neither side always runs on a machine the other warmed). Prints each run's wall time, its
// trials and how many of them were measured again (client-bound or host-bound: this box's CPUs, not the server), the
// median ratio parallel/sequential, and whether the verdicts agree (the same winner, or each one's winner among the
// other's ties). Every number is the SIMULATED engine's.
// Run: npm run bench:slurm   (or: node --import tsx bench/slurm.ts [--runs N] [--strategy grid|adaptive] [--sim-speed K] [--keep])
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { disagreements, tieGroup, type ScenarioVerdictJson } from '../test/support/agreement';
import { cancelJobs, ensureSlurm } from '../test/support/slurm';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg('--runs') ?? 1);
const STRATEGY = arg('--strategy');
/** Keep the run directories (their manifests have every job's start and end) and print where. */
const KEEP = process.argv.includes('--keep');
/**
 * The simulated engine's speed. Both runs share this 2-core box (on a cluster every job has its own node): at the
 * default x10 two engines, their clients and srun outgrow 2 cores (client-bound trials measured again, every
 * candidate ~1.7x slower when two run), so the box, not the scheduling, would set the ratio. At x5 they fit.
 */
const SPEED = arg('--sim-speed') ?? '5';
const root = resolve(__dirname, '..');
const cli = join(root, 'dist', 'cli.js');
const plan = join(root, 'configs', 'examples', 'demo.plan.yaml');
const dir = mkdtempSync(join(tmpdir(), 'autobench-bench-slurm-'));

/** A run's trials (rows that measured something) and those measured again because the measuring machine was the bottleneck. */
function trialsOf(out: string): { trials: number; remeasured: number } {
  const rows = readFileSync(join(out, 'rows.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { trial?: { phase?: string }; validity?: { remeasured?: string[] } });
  const measured = rows.filter((r) => r.trial && r.trial.phase !== 'skip');
  return { trials: measured.length, remeasured: measured.reduce((n, r) => n + (r.validity?.remeasured?.length ?? 0), 0) };
}

function once(parallel: number, i: number): { s: number; verdicts: ScenarioVerdictJson[]; jobs: number; trials: number; remeasured: number } {
  const out = join(dir, `bench-slurm-p${parallel}-${i}`);
  const args = [cli, 'run', plan, '--target', 'slurm', '--sim-on-nodes', '--max-parallel', String(parallel), '--out', out, '--sim-speed', SPEED, '--no-calibration', '--quiet', ...(STRATEGY ? ['--strategy', STRATEGY] : [])];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`autobench run --max-parallel ${parallel} exited ${r.status}:\n${r.stderr}`);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { scenarios: ScenarioVerdictJson[] };
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { slurm: { jobs: unknown[] } };
  return { s, verdicts: summary.scenarios, jobs: manifest.slurm.jobs.length, ...trialsOf(out) };
}

const say = (v: ScenarioVerdictJson[]): string => v.map((s) => `${s.scenario}: ${s.decided ? `winner ${tieGroup(s)[0]}` : `tie [${tieGroup(s).join(', ')}]`}`).join('; ');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const cluster = await ensureSlurm();
  console.log(`node ${process.version}, ${availableParallelism()} cores, load ${loadavg()[0]?.toFixed(2)}; Slurm partition ${cluster.partition}, ${cluster.gpus} fake GPUs on ${cluster.node}`);
  console.log(`demo plan, SIMULATED engine on the node at speed x${SPEED}, strategy ${STRATEGY ?? 'the default'}; ${RUNS} pair(s), sequential first in the 1st, 3rd... pair, parallel first in the others`);
  const seq: number[] = [];
  const par: number[] = [];
  const verdicts: ScenarioVerdictJson[][] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const p of i % 2 === 0 ? [1, 2] : [2, 1]) {
      const r = once(p, i);
      (p === 1 ? seq : par).push(r.s);
      verdicts.push(r.verdicts);
      console.log(`  --max-parallel ${p}: ${r.s.toFixed(1)} s wall, ${r.jobs} jobs, ${r.trials} trials (${r.remeasured} measured again); ${say(r.verdicts)}`);
    }
    console.log(`  pair ${i + 1}: ratio ${(((par[i] ?? NaN) / (seq[i] ?? NaN)) * 100).toFixed(0)}%`);
  }
  const ratio = median(par) / median(seq);
  const disagree = disagreements(verdicts);
  console.log(`median wall: sequential ${median(seq).toFixed(1)} s, 2 at once ${median(par).toFixed(1)} s; ratio ${(ratio * 100).toFixed(0)}% (must be <= 60%)`);
  console.log(disagree.length ? `verdicts DISAGREE:\n  ${disagree.join('\n  ')}` : 'verdicts agree in every scenario across all runs (same winner, or each winner among the other runs\' ties)');
}

main()
  .catch((e: unknown) => {
    console.error((e as Error).message);
    process.exitCode = 1;
  })
  .finally(async () => {
    await cancelJobs('autobench-bench-slurm-').catch(() => undefined);
    if (KEEP) console.log(`run directories kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  });
