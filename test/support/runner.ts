// Test helpers for the runner: fresh bundles of the simulator (the CLI, the on-host client), plan texts, in-process runs on the sim target, process checks.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runPlan, type RunEvent, type RunOptions, type RunResult } from '../../src/runner';

export const REPO = path.resolve(__dirname, '../..');
export const SIM_BIN = path.join(REPO, 'bin', 'sim');

let simJs: Promise<string> | undefined;
let cliJs: Promise<string> | undefined;
const bundleDirs: string[] = [];
// Bundles live as long as the test file's process.
process.on('exit', () => {
  for (const d of bundleDirs) rmSync(d, { recursive: true, force: true });
});

/** dist/sim.js built from the sources into a temp dir, so no test runs a stale bundle. */
export function simBundle(): Promise<string> {
  simJs ??= (async () => {
    const { build } = await import('esbuild');
    const dir = mkdtempSync(path.join(tmpdir(), 'autobench-runner-sim-'));
    bundleDirs.push(dir);
    const out = path.join(dir, 'sim.js');
    await build({ entryPoints: [path.join(REPO, 'src/sim/main.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: out, logLevel: 'error' });
    return out;
  })();
  return simJs;
}

let clientJs: Promise<string> | undefined;

/** dist/client-node.js (the on-host load client) built from the sources into a temp dir, as scripts/build.mjs builds it. */
export function clientBundle(): Promise<string> {
  clientJs ??= (async () => {
    const { build } = await import('esbuild');
    const dir = mkdtempSync(path.join(tmpdir(), 'autobench-runner-client-'));
    bundleDirs.push(dir);
    const out = path.join(dir, 'client-node.js');
    await build({ entryPoints: [path.join(REPO, 'src/client/host-main.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: out, minify: true, logLevel: 'error' });
    return out;
  })();
  return clientJs;
}

/** The CLI bundled into <tmp>/dist/cli.js with <tmp>/bin linked to the repo's bin (where the runner looks for bin/sim). */
export function cliBundle(): Promise<string> {
  cliJs ??= (async () => {
    const { build } = await import('esbuild');
    const root = mkdtempSync(path.join(tmpdir(), 'autobench-runner-cli-'));
    bundleDirs.push(root);
    mkdirSync(path.join(root, 'dist'));
    symlinkSync(path.join(REPO, 'bin'), path.join(root, 'bin'));
    const out = path.join(root, 'dist', 'cli.js');
    await build({
      entryPoints: [path.join(REPO, 'src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      outfile: out,
      logLevel: 'error',
      external: ['cpu-features', '*.node'],
    });
    return out;
  })();
  return cliJs;
}

export function tempDir(prefix = 'autobench-run-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A runtime plan on Qwen/Qwen3-8B with one small scenario; frameworks and benchmark keys are spliced in as YAML text. */
export function planYaml(o: { frameworks: Partial<Record<'sglang' | 'vllm' | 'tensorrt_llm' | 'tokenspeed', string>>; benchmark?: string; sla?: string; dataset?: string; search?: string }): string {
  const section = (fw: string, def: string) => `  ${fw}:\n${(o.frameworks[fw as keyof typeof o.frameworks] ?? def).replace(/^/gm, '    ')}\n`;
  return [
    'model:',
    '  name: Qwen/Qwen3-8B',
    'hardware:',
    '  gpu_model: H100',
    '  gpu_count: 1',
    'dataset:',
    (o.dataset ?? 'num_prompts: 8\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [32]').replace(/^/gm, '  '),
    'benchmark:',
    (o.benchmark ?? 'request_rates: [inf]').replace(/^/gm, '  '),
    'sla:',
    (o.sla ?? 'max_p50_ttft_ms: 100000').replace(/^/gm, '  '),
    'search:',
    (o.search ?? 'max_candidates_per_framework: 3').replace(/^/gm, '  '),
    'frameworks:',
    section('sglang', 'enabled: false'),
    section('vllm', 'enabled: false'),
    section('tensorrt_llm', 'enabled: false'),
    section('tokenspeed', 'enabled: false'),
  ].join('\n');
}

export interface SimRun {
  result: RunResult;
  events: RunEvent[];
  outDir: string;
}

/** runPlan on the sim target with a fresh simulator bundle; events are collected. */
export async function runOnSim(planText: string, o: Partial<RunOptions> & { onEvent?: (e: RunEvent) => void; signal?: AbortSignal } = {}): Promise<SimRun> {
  const js = await simBundle();
  const outDir = o.outDir ?? path.join(tempDir(), 'run');
  const events: RunEvent[] = [];
  const { onEvent, signal, ...rest } = o;
  const result = await runPlan(
    {
      planText,
      planPath: path.join(path.dirname(outDir), 'test.plan.yaml'),
      target: 'sim',
      outDir,
      simSpeed: 20,
      stopGraceMs: 1000,
      baseEnv: { ...process.env, AUTOBENCH_SIM_JS: js, AUTOBENCH_NODE: process.execPath },
      ...rest,
    },
    {
      onEvent: (e) => {
        events.push(e);
        onEvent?.(e);
      },
      ...(signal ? { signal } : {}),
    },
  );
  return { result, events, outDir };
}

/** Every file under a directory (recursively). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** True while any process of the group is alive (zombies, which a late-reaping PID 1 may keep, are not). */
export { groupAlive } from '../../src/exec/process-group';

/** Pids the simulated servers of a run printed ("Started server process [N]"); each leads its process group. */
export function serverPids(outDir: string): number[] {
  const dir = path.join(outDir, 'servers');
  const pids: number[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return pids;
  }
  for (const n of names) {
    let text = '';
    try {
      text = readFileSync(path.join(dir, n, 'server.log'), 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(/Started server process \[(\d+)\]/g)) pids.push(Number(m[1]));
  }
  return pids;
}

/** Kills leftover groups (after a SIGKILLed CLI) so a failing test leaves nothing running. */
export function killGroups(pids: number[]): void {
  for (const p of pids) {
    try {
      process.kill(-p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

export function readRowsFile(outDir: string): Array<Record<string, unknown>> {
  return readFileSync(path.join(outDir, 'rows.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
