// The simulated engine's own numbers: the highest token rate it streams on loopback (with a bare node:http SSE
// server as the peer), and its scheduling accuracy — modelled vs client-observed inter-token gaps — at 1, 64
// and 512 concurrent streams. The server runs in its own process; prints medians over runs.
// Run: node --import tsx bench/sim.ts [--runs 3] [--conc 1,64,512] [--skip-rate] [--skip-accuracy]
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? def) : def;
};
const RUNS = Number(opt('runs', '3'));
const CONCS = opt('conc', '1,64,512').split(',').map(Number);

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const h = (s.length - 1) * q;
  const lo = Math.floor(h);
  return (s[lo] as number) + (h - lo) * ((s[Math.min(lo + 1, s.length - 1)] as number) - (s[lo] as number));
}
const median = (xs: number[]): number => quantile(xs, 0.5);

class Child {
  private readonly proc: ChildProcess;
  private waiters: Array<(m: Record<string, unknown>) => void> = [];
  constructor() {
    this.proc = fork(resolve(__dirname, 'sim-server-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    this.proc.on('message', (m: Record<string, unknown>) => this.waiters.shift()?.(m));
  }
  call(msg: unknown): Promise<Record<string, unknown>> {
    return new Promise((r) => {
      this.waiters.push(r);
      if (msg !== undefined) this.proc.send(msg as never);
    });
  }
}

interface StreamResult {
  events: number;
  /** Arrival time (ms since start) and modelled time of each token chunk, when the server sends it. */
  arrivals: number[];
  simTimes: number[];
}

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** One streamed completion; counts `data:` events, and records arrival and modelled times when asked. */
function streamOne(url: string, body: object, detailed: boolean, t0: number): Promise<StreamResult> {
  return new Promise((done, fail) => {
    const out: StreamResult = { events: 0, arrivals: [], simTimes: [] };
    const req = request(`${url}/v1/completions`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.now() - t0;
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const ev = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (ev === 'data: [DONE]') continue;
          out.events++;
          if (detailed) {
            const m = /"autobench_sim_time":([\d.]+)/.exec(ev);
            if (m?.[1]) {
              out.arrivals.push(now);
              out.simTimes.push(Number(m[1]));
            }
          }
        }
      });
      res.on('end', () => done(out));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(JSON.stringify(body));
  });
}

async function rate(url: string, streams: number, tokens: number): Promise<number> {
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: streams }, (_, i) => streamOne(url, { prompt: `stream ${i} go`, max_tokens: tokens, ignore_eos: true, stream: true }, false, t0)),
  );
  const secs = (performance.now() - t0) / 1000;
  return results.reduce((a, r) => a + r.events, 0) / secs;
}

async function rates(child: Child): Promise<void> {
  console.log('Highest token rate on loopback (server in its own process; one SSE chunk per token):');
  for (const [streams, tokens] of [
    [64, 3000],
    [256, 1000],
  ] as const) {
    const sims: number[] = [];
    const peers: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const s = await child.call({ cmd: 'sim', args: ['Qwen/Qwen3-0.6B'], speed: 1e7, debugTiming: false });
      sims.push(await rate(String(s.url), streams, tokens));
      const p = await child.call({ cmd: 'peer' });
      peers.push(await rate(String(p.url), streams, tokens));
    }
    const sm = median(sims);
    const pm = median(peers);
    console.log(
      `  ${String(streams).padStart(3)} streams x ${tokens} tokens: simulator median ${Math.round(sm).toLocaleString('en-US')} tokens/s` +
        ` (min ${Math.round(Math.min(...sims)).toLocaleString('en-US')})  | bare node:http SSE peer ${Math.round(pm).toLocaleString('en-US')} tokens/s  (ratio ${(sm / pm).toFixed(2)}x)`,
    );
  }
}

async function accuracy(child: Child): Promise<void> {
  console.log('\nScheduling accuracy at speed 1 (Llama-3.1-8B on a modelled H100; 150 tokens per stream, first token excluded):');
  console.log('  streams | requested gap p50 | actual gap p50 | |error| p50 / p90 / p99 (ms) | actual/requested span');
  for (const c of CONCS) {
    const rows: Array<{ req: number; act: number; e50: number; e90: number; e99: number; span: number }> = [];
    for (let r = 0; r < RUNS; r++) {
      const s = await child.call({ cmd: 'sim', args: ['meta-llama/Llama-3.1-8B-Instruct', '--sim-gpu', 'H100'], speed: 1, debugTiming: true });
      const url = String(s.url);
      // Warm the connection pool so TCP setup is not in the first gaps.
      await streamOne(url, { prompt: 'warm', max_tokens: 2, stream: true }, false, 0);
      const t0 = performance.now();
      const results = await Promise.all(
        Array.from({ length: c }, (_, i) => streamOne(url, { prompt: `request ${i} ${'x '.repeat(60)}`, max_tokens: 150, ignore_eos: true, stream: true }, true, t0)),
      );
      const reqGaps: number[] = [];
      const actGaps: number[] = [];
      const errs: number[] = [];
      let reqSpan = 0;
      let actSpan = 0;
      for (const res of results) {
        for (let k = 1; k < res.arrivals.length; k++) {
          const want = ((res.simTimes[k] as number) - (res.simTimes[k - 1] as number)) * 1000;
          const got = (res.arrivals[k] as number) - (res.arrivals[k - 1] as number);
          reqGaps.push(want);
          actGaps.push(got);
          errs.push(Math.abs(got - want));
          reqSpan += want;
          actSpan += got;
        }
      }
      rows.push({ req: median(reqGaps), act: median(actGaps), e50: quantile(errs, 0.5), e90: quantile(errs, 0.9), e99: quantile(errs, 0.99), span: actSpan / reqSpan });
    }
    const m = (k: keyof (typeof rows)[number]): number => median(rows.map((r) => r[k]));
    console.log(
      `  ${String(c).padStart(7)} | ${m('req').toFixed(2).padStart(14)} ms | ${m('act').toFixed(2).padStart(11)} ms | ${m('e50').toFixed(2)} / ${m('e90').toFixed(2)} / ${m('e99').toFixed(2)}`.padEnd(86) +
        `| ${m('span').toFixed(3)}`,
    );
  }
}

async function main(): Promise<void> {
  const child = new Child();
  await child.call(undefined);
  if (!args.includes('--skip-rate')) await rates(child);
  if (!args.includes('--skip-accuracy')) await accuracy(child);
  await child.call({ cmd: 'stop' });
  agent.destroy();
}

void main();
