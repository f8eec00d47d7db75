// Client fidelity with sessions: 512 multi-turn conversations at once against the fake server in its own process,
// each later turn due its think time (lognormal, mean 500 ms, cv 1) after the previous answer; prints, per run and as
// medians over runs, how late the client sent those turns (start - due: p50, p99, max) against the 1 ms p99 target.
// Usage: npm run bench:sessions [-- --sessions N --turns T --think-ms MS --runs R --workers W]
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { runBenchmark } from '../src/client/run-benchmark';
import { Rng } from '../src/core/workload/rng';
import { thinkTime } from '../src/core/workload/gsp';
import type { Workload, WorkloadRow } from '../src/core/workload/types';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1] ?? dflt) : dflt;
};

function sessions(n: number, turns: number, thinkMs: number, seed: number): Workload {
  const rng = new Rng(seed);
  const prompt = Array.from({ length: 128 }, (_, i) => `w${i}`).join(' ');
  const rows: WorkloadRow[] = Array.from({ length: n }, () => ({
    prompt,
    promptLen: 128,
    outputLen: 32,
    scenario: 'sessions',
    turns: Array.from({ length: turns - 1 }, (_, t) => `follow-up ${t + 1}`),
    turnLens: Array.from({ length: turns - 1 }, () => 3),
    thinkMs: Array.from({ length: turns - 1 }, () => thinkTime(rng, thinkMs, 1)),
  }));
  return { name: 'sessions', rows, notes: [], promptLenCheck: 'target', timed: false };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
}

async function main(): Promise<void> {
  const [n, turns, think, runs, workers] = [arg('sessions', 512), arg('turns', 4), arg('think-ms', 500), arg('runs', 3), arg('workers', 1)];
  const child = fork(resolve(__dirname, 'fake-server-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((res) => child.on('message', (m: { ready?: number }) => m.ready !== undefined && res(m.ready)));
  console.log(`bench:sessions — ${n} sessions × ${turns} turns at once, think time lognormal mean ${think} ms (cv 1), 32 output tokens per turn; ${workers} client thread(s); fake server in its own process`);
  const p50s: number[] = [];
  const p99s: number[] = [];
  for (let r = 1; r <= runs; r++) {
    const res = await runBenchmark(sessions(n, turns, think, r), { backend: 'openai-chat', baseUrl: `http://127.0.0.1:${port}`, model: 'fake-model', warmupRequests: 1, readyCheckTimeoutS: 10, workers });
    const late = res.records.filter((x) => !x.warmup && x.turn > 0).map((x) => x.startMs - x.arrivalMs);
    const inOrder = [...new Set(res.records.filter((x) => !x.warmup).map((x) => x.index))].every((i) => {
      const t = res.records.filter((x) => !x.warmup && x.index === i).sort((a, b) => a.startMs - b.startMs).map((x) => x.turn);
      return t.every((v, k) => v === k);
    });
    const [p50, p99, max] = [quantile(late, 0.5), quantile(late, 0.99), Math.max(...late)];
    p50s.push(p50);
    p99s.push(p99);
    console.log(`run ${r}: ${late.length} later turns, completed ${res.metrics.completed}/${res.metrics.total}, turns in order: ${inOrder}; lateness p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms, max ${max.toFixed(3)} ms; client CPU ${res.client.cpuPercent.toFixed(0)}%, event-loop p99 ${res.client.eventLoopDelayP99Ms.toFixed(2)} ms`);
  }
  const med = (v: number[]): number => [...v].sort((a, b) => a - b)[v.length >> 1] as number;
  console.log(`median over ${runs} runs: lateness p50 ${med(p50s).toFixed(3)} ms, p99 ${med(p99s).toFixed(3)} ms (target: p99 <= 1 ms)`);
  child.kill();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
