// Where the load client should run for an ssh target: on the host (dist/client-node.js through the ssh executor) against in this process through the ssh port forward, both to the same fake server behind a real sshd on 127.0.0.1, at 512 streams. Prints medians of the timing errors (client minus the server's true schedule) and their ratios.
// Run: npm run bench:placement [-- --runs 3 --conc 512 --tokens 100]   (needs /usr/sbin/sshd: apt-get install -y openssh-server)
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runBenchmark } from '../src/client/run-benchmark';
import type { BenchResult } from '../src/client/types';
import type { Workload, WorkloadRow } from '../src/core/workload/types';
import { SshExecutor } from '../src/exec/ssh';
import { trialBenchOptions, type TrialSettings } from '../src/runner/client-trial';
import { prepareHostClient, type HostClient } from '../src/runner/host-client';
import type { Summary } from '../src/core/workload/stats';
import { clientBundle } from '../test/support/runner';
import { startSshd } from '../test/support/sshd';

const args = process.argv.slice(2);
const opt = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const RUNS = opt('runs', 3);
const CONC = opt('conc', 512);
const TOKENS = opt('tokens', 100);
const REQUESTS = 5 * CONC; // five waves
const BEHAVIOUR = { ttftMs: 50, itlMs: 10, writeMode: 'event', usage: 'auto' };

interface Truth {
  n: number;
  ttft: Summary | null;
  itl: Summary | null;
}

/** The fake server in a process of its own (bench/fake-server-process.ts), so neither client shares its event loop. */
class ServerProc {
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly waiting = new Map<number, (v: unknown) => void>();
  readonly ready: Promise<number>;

  constructor() {
    this.child = fork(resolve(__dirname, 'fake-server-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let up: (port: number) => void = () => undefined;
    this.ready = new Promise((r) => (up = r));
    this.child.on('message', (m: { id?: number; ready?: number }) => {
      if (m.ready !== undefined) return up(m.ready);
      if (m.id !== undefined) {
        this.waiting.get(m.id)?.(m);
        this.waiting.delete(m.id);
      }
    });
  }

  call<T>(msg: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((r) => {
      this.waiting.set(id, r as (v: unknown) => void);
      this.child.send({ ...msg, id });
    });
  }
}

function syntheticWorkload(): Workload {
  const prompt = Array.from({ length: 128 }, (_, i) => `w${i}`).join(' ');
  const rows: WorkloadRow[] = Array.from({ length: REQUESTS }, () => ({ prompt, promptLen: 128, outputLen: TOKENS, scenario: 'bench' }));
  return { name: 'random-ids', rows, notes: [], promptLenCheck: 'target', timed: false };
}

const SETTINGS: TrialSettings = { backend: 'openai', wallRate: Infinity, concurrency: CONC, warmupRequests: 1, seed: 1, extraBody: {}, timeoutMs: 600_000 };

type Row = { ttftMeanErr: number; ttftP99Err: number; itlP99Err: number; loopP99: number; cpu: number; failed: number };

function rowOf(r: BenchResult, t: Truth): Row {
  const m = r.metrics;
  return {
    ttftMeanErr: (m.ttft.mean ?? NaN) - (t.ttft?.mean ?? NaN),
    ttftP99Err: (m.ttft.p99 ?? NaN) - (t.ttft?.p99 ?? NaN),
    itlP99Err: (m.itl.p99 ?? NaN) - (t.itl?.p99 ?? NaN),
    loopP99: r.client.eventLoopDelayP99Ms,
    cpu: r.client.cpuPercent,
    failed: m.failed,
  };
}

async function onHost(client: HostClient, port: number): Promise<BenchResult> {
  const o = await client.runTrial({ workload: syntheticWorkload(), options: trialBenchOptions(`http://127.0.0.1:${port}`, 'fake-model', SETTINGS), timeoutMs: SETTINGS.timeoutMs }, { signal: undefined, onConnectionLost: () => () => undefined, onProgress: () => undefined });
  if (o.kind !== 'done') throw new Error(`the client on the host: ${JSON.stringify(o).slice(0, 300)}`);
  return o.result;
}

function throughForward(localPort: number): Promise<BenchResult> {
  return runBenchmark(syntheticWorkload(), trialBenchOptions(`http://127.0.0.1:${localPort}`, 'fake-model', SETTINGS));
}

const med = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const sgn = (x: number, d = 1): string => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(d)}` : '-');
const cell = (rows: Row[], k: keyof Row, d = 1): string => `${sgn(med(rows.map((r) => r[k])), d)} [${sgn(Math.min(...rows.map((r) => r[k])), d)}..${sgn(Math.max(...rows.map((r) => r[k])), d)}]`;

function report(host: Row[], fwd: Row[]): void {
  console.log(`\n| client placement | TTFT mean error ms | TTFT p99 error ms | ITL p99 error ms | client loop p99 ms | client CPU % | failed |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, rows] of [['on the host (dist/client-node.js over ssh)', host], ['here, through the ssh port forward', fwd]] as const) {
    console.log(`| ${name} | ${cell(rows, 'ttftMeanErr')} | ${cell(rows, 'ttftP99Err')} | ${cell(rows, 'itlP99Err')} | ${med(rows.map((r) => r.loopP99)).toFixed(1)} | ${med(rows.map((r) => r.cpu)).toFixed(0)} | ${med(rows.map((r) => r.failed))} |`);
  }
  const ratio = (k: keyof Row): string => {
    const h = med(host.map((r) => r[k]));
    const f = med(fwd.map((r) => r[k]));
    return `${(f / h).toFixed(1)}x (${sgn(f)} vs ${sgn(h)} ms)`;
  };
  console.log(`\nforward / host, medians of ${RUNS} runs: TTFT mean error ${ratio('ttftMeanErr')}; TTFT p99 error ${ratio('ttftP99Err')}; ITL p99 error ${ratio('itlP99Err')}`);
}

async function main(): Promise<void> {
  const srv = new ServerProc();
  const port = await srv.ready;
  await srv.call({ cmd: 'config', behaviour: BEHAVIOUR });
  const cache = mkdtempSync(join(tmpdir(), 'autobench-placement-'));
  const sshd = await startSshd({ extraConfig: `SetEnv PATH=${resolve(process.execPath, '..')}:/usr/bin:/bin XDG_CACHE_HOME=${cache}` });
  let ex: SshExecutor | undefined;
  try {
    const knownHostsPath = join(sshd.dir, 'known_hosts');
    writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
    ex = await SshExecutor.connect({ host: 'sshd-test', configPath: sshd.writeConfig(), knownHostsPath, agent: false });
    const setup = await prepareHostClient(ex, { bundle: await clientBundle() });
    if (!setup.ok) throw new Error(setup.reason);
    const fwd = await ex.forward(port);
    console.log(`# bench/placement: fake server (own process, TTFT ${BEHAVIOUR.ttftMs} ms from body receipt, ${BEHAVIOUR.itlMs} ms between tokens, ${TOKENS} tokens) behind OpenSSH sshd on 127.0.0.1`);
    console.log(`# ${CONC} concurrent streams, ${REQUESTS} requests (5 waves), rate inf; ${RUNS} run(s) per placement, alternating; errors = client-measured minus the server's truth; cells: median [min..max]`);
    console.log(`# node ${process.version}, ${cpus().length} cpus, load avg at start ${loadavg().map((x) => x.toFixed(2)).join(' ')}; host and this machine are the same box (sshd, the fake server and both clients share its cores)`);
    const host: Row[] = [];
    const forwarded: Row[] = [];
    for (let r = 0; r < RUNS; r++) {
      for (const which of ['host', 'forward'] as const) {
        await srv.call({ cmd: 'reset' });
        const res = which === 'host' ? await onHost(setup.client, port) : await throughForward(fwd.localPort);
        const truth = await srv.call<Truth>({ cmd: 'truth', tokens: TOKENS });
        const row = rowOf(res, truth);
        (which === 'host' ? host : forwarded).push(row);
        console.log(`# run ${r + 1} ${which.padEnd(7)}: TTFT mean err ${sgn(row.ttftMeanErr)} ms, ITL p99 err ${sgn(row.itlP99Err)} ms, ${truth.n} full-length requests, ${row.failed} failed`);
      }
    }
    report(host, forwarded);
    await fwd.close();
  } finally {
    await ex?.close();
    await sshd.close();
    await srv.call({ cmd: 'stop' });
    rmSync(cache, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(`bench/placement: ${(e as Error).message ?? String(e)}`);
  process.exit(1);
});
