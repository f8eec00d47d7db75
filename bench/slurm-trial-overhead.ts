// What a trial's load client costs inside a Slurm job, beyond the load itself: the same small trial, interleaved, through
// the job's one serving client (HostClient over a SlurmJobExecutor: one `srun --overlap` step for all trials), through a
// client per trial (a step and a Node start each: the executor seen without `pipesStdin`), and in this process, against
// one fake server on the login host (the test cluster's nodes are network namespaces of this machine). Prints the medians and the per-trial overhead
// of each placement over the in-process trial.
// Run: node --import tsx bench/slurm-trial-overhead.ts [--trials 15] [--requests 8] [--tokens 20]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor, type Executor, type ServerProcess } from '../src/exec';
import { SlurmCluster } from '../src/exec/slurm/cluster';
import { SlurmJobExecutor } from '../src/exec/slurm/job-executor';
import type { BenchResult } from '../src/client/types';
import { runTrial, trialBenchOptions, type TrialSettings } from '../src/runner/client-trial';
import { prepareHostClient } from '../src/runner/host-client';
import type { LiveServer } from '../src/runner/server';
import { rows, workload } from '../test/support/client';
import { FakeServer } from '../test/support/fake-server';
import { clientBundle } from '../test/support/runner';
import { cancelJobs, ensureSlurm } from '../test/support/slurm';

const arg = (name: string, def: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const TRIALS = arg('trials', 15);
const REQUESTS = arg('requests', 8);
const TOKENS = arg('tokens', 20);
const PREFIX = `autobench-bench-overhead-${process.pid}-`;
/** The login host's address on the test cluster's bridge (tools/slurm-host/setup.sh: slurmctld's host). */
const LOGIN_ADDR = '10.213.0.1';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const noHooks = { signal: undefined, onConnectionLost: () => () => undefined, onProgress: () => undefined };

async function main(): Promise<void> {
  const cluster = await ensureSlurm();
  process.env.AUTOBENCH_CLIENT_JS = await clientBundle();
  const srv = new FakeServer({ behaviour: { ttftMs: 20, itlMs: 5 } });
  // The test cluster's nodes live in network namespaces: the job's client reaches this machine at the bridge's address.
  await srv.listen(0, LOGIN_ADDR);
  const dir = mkdtempSync(join(tmpdir(), 'autobench-overhead-'));
  const login = new LocalExecutor();
  const slurm = new SlurmCluster(login);
  try {
    const id = await slurm.submit({ name: `${PREFIX}hold`, partition: cluster.partition, timeLimit: '10', gres: 'gpu', gpus: 0, exclusive: false, output: join(dir, 'job-%j.out'), chdir: dir, extra: [] });
    const info = await slurm.waitRunning(id, () => undefined);
    const ex = new SlurmJobExecutor(new LocalExecutor(), { jobId: id, node: info.nodes, address: cluster.nodeAddr, partition: cluster.partition });
    const t0 = performance.now();
    const setup = await prepareHostClient(ex);
    if (!setup.ok) throw new Error(setup.reason);
    const setupMs = performance.now() - t0;
    const s: TrialSettings = { backend: 'openai', wallRate: Infinity, concurrency: 4, warmupRequests: 1, seed: 1, extraBody: {}, timeoutMs: 60_000 };
    const w = workload(rows(REQUESTS, TOKENS));
    const proc: ServerProcess = { pid: process.pid, pgid: process.pid, exited: new Promise(() => undefined), running: true, onExit: () => undefined, logTail: () => [], stop: () => Promise.resolve({ code: 0, signal: null }) };
    const live: LiveServer = { proc, port: srv.port, forward: { localHost: LOGIN_ADDR, localPort: srv.port, close: () => Promise.resolve() }, baseUrl: srv.url, model: 'fake-model', exit: undefined, simulated: false };
    // The same job seen without a stdin to write: a client per trial, as before the serving client.
    const perTrialEx: Executor = { target: ex.target, describe: () => ex.describe(), run: (c, o) => ex.run(c, o), start: (sp) => ex.start(sp), forward: (p) => ex.forward(p), copyBack: (a, b) => ex.copyBack(a, b), copyTo: (a, b) => ex.copyTo(a, b), remove: (p) => ex.remove(p), onConnectionLost: (l) => ex.onConnectionLost(l), close: () => Promise.resolve() };
    const perTrial = await prepareHostClient(perTrialEx);
    if (!perTrial.ok) throw new Error(perTrial.reason);
    const times = { serving: [] as number[], perTrial: [] as number[], inProcess: [] as number[] };
    // What the client-bound gate reads: the measured run's event-loop lag p99 and the client's CPU.
    const lag = { serving: [] as number[], perTrial: [] as number[], inProcess: [] as number[] };
    const cpu = { serving: [] as number[], perTrial: [] as number[], inProcess: [] as number[] };
    const timed = async (mode: keyof typeof times, what: string, fn: () => Promise<{ kind: string; result?: BenchResult }>): Promise<void> => {
      const t = performance.now();
      const o = await fn();
      if (o.kind !== 'done' || !o.result) throw new Error(`${what}: ${JSON.stringify(o).slice(0, 300)}`);
      times[mode].push(performance.now() - t);
      lag[mode].push(o.result.client.eventLoopLagP99Ms);
      cpu[mode].push(o.result.client.cpuPercent);
    };
    const trial = { workload: w, options: trialBenchOptions(srv.url, 'fake-model', s), timeoutMs: 60_000 };
    for (let i = 0; i < TRIALS; i++) {
      await timed('serving', `trial ${i}, serving client`, () => setup.client.runTrial(trial, noHooks));
      await timed('perTrial', `trial ${i}, client per trial`, () => perTrial.client.runTrial(trial, noHooks));
      await timed('inProcess', `trial ${i}, in process`, () => runTrial(live, w, s, noHooks));
    }
    const starts = setup.client.session?.starts;
    await setup.client.close();
    await ex.close();
    await slurm.finish(id);
    const base = median(times.inProcess);
    console.log(`load ${loadavg()[0]?.toFixed(2)}; ${TRIALS} trials of ${REQUESTS} requests x ${TOKENS} tokens (fake server: 20 ms TTFT, 5 ms gaps), interleaved`);
    console.log(`client set-up in the job (node found, bundle checked): ${setupMs.toFixed(0)} ms, once per job; the serving client started ${starts} time(s)`);
    for (const mode of ['serving', 'perTrial', 'inProcess'] as const) {
      const xs = times[mode];
      console.log(`  ${mode.padEnd(10)} median ${median(xs).toFixed(0).padStart(4)} ms, overhead ${(median(xs) - base).toFixed(0).padStart(4)} ms; client lag p99 ${median(lag[mode]).toFixed(1)} ms (max ${Math.max(...lag[mode]).toFixed(1)}), CPU ${median(cpu[mode]).toFixed(0)}%: ${xs.map((x) => x.toFixed(0)).join(' ')}`);
    }
  } finally {
    await srv.close();
    await cancelJobs(PREFIX).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exitCode = 1;
});
