// How reproducible the runner's answer is: the demo plan run N times on the simulated engine with run-to-run noise (seeds 1..N); per scenario, how often two runs agree (the same winner, or both a tie with each other's winner among the ties), and the GPU-time the repeats added.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { agree, candidateName, tieGroup, type ScenarioVerdictJson as ScenarioJson } from '../test/support/agreement';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const REPO = resolve(__dirname, '..');
const runs = Number(arg('runs', '10'));
const speed = arg('speed', '10');
const noise = arg('noise', '0.03');
const plan = arg('plan', join(REPO, 'configs/examples/demo.plan.yaml'));
/** Keep the run directories here (for a closer look) instead of deleting them. */
const keep = arg('keep', '');

const id = candidateName;
const group = tieGroup;

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

function main(): void {
  const tmp = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'autobench-verdicts-'));
  const results: Array<{ scenarios: ScenarioJson[]; repeatShare: number; wallS: number }> = [];
  try {
    for (let seed = 1; seed <= runs; seed++) {
      const out = join(tmp, `run-${seed}`);
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [join(REPO, 'dist/cli.js'), 'run', plan, '--target', 'sim', '--out', out, '--quiet', '--sim-speed', speed, '--sim-seed', String(seed), '--sim-opts', `--sim-noise ${noise}`], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`run ${seed} exited ${r.status}: ${r.stderr.slice(-400)}`);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { scenarios: ScenarioJson[] };
      const gpu = (JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { gpu_seconds: { total: number; by_purpose: { repeat: number } } }).gpu_seconds;
      results.push({ scenarios: summary.scenarios, repeatShare: gpu.by_purpose.repeat / (gpu.total - gpu.by_purpose.repeat), wallS: (performance.now() - t0) / 1000 });
      console.log(`run ${seed}: ${summary.scenarios.map((s) => `${s.scenario} ${s.decided ? `winner ${id(s.winner)}` : `tie [${group(s).join(', ')}]`}`).join('; ')}; repeats +${(results.at(-1)!.repeatShare * 100).toFixed(1)}% GPU-time; ${results.at(-1)!.wallS.toFixed(0)} s`);
    }
  } finally {
    if (!keep) rmSync(tmp, { recursive: true, force: true });
  }
  let pairs = 0;
  let agreeing = 0;
  for (const sc of results[0]?.scenarios.map((s) => s.scenario) ?? []) {
    let p = 0;
    let a = 0;
    for (let i = 0; i < results.length; i++)
      for (let j = i + 1; j < results.length; j++) {
        const x = results[i]?.scenarios.find((s) => s.scenario === sc);
        const y = results[j]?.scenarios.find((s) => s.scenario === sc);
        if (!x || !y) continue;
        p++;
        if (agree(x, y)) a++;
      }
    console.log(`${sc}: ${a}/${p} pairs agree (${((a / p) * 100).toFixed(1)}%)`);
    pairs += p;
    agreeing += a;
  }
  console.log(`agreement: ${((agreeing / pairs) * 100).toFixed(1)}% of ${pairs} run pairs × scenarios (goal >= 95%)`);
  console.log(`repeats added GPU-time: median ${(median(results.map((r) => r.repeatShare)) * 100).toFixed(1)}% (goal <= 40%); run wall time median ${median(results.map((r) => r.wallS)).toFixed(0)} s`);
}

main();
