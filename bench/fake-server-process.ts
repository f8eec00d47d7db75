// bench/client's server side: the test fake server in its own process, driven over IPC, reporting its truth as summary statistics.
import { FakeServer, truthMetrics, type FakeBehaviour } from '../test/support/fake-server';
import { summarize } from '../src/core/workload/stats';

type Msg = { id: number; cmd: 'config'; behaviour: Partial<FakeBehaviour> } | { id: number; cmd: 'reset' } | { id: number; cmd: 'truth'; tokens: number } | { id: number; cmd: 'stop' };

const server = new FakeServer({ detailed: false });
let cpu0 = process.cpuUsage();
let t0 = performance.now();

function send(v: unknown): void {
  process.send?.(v);
}

process.on('message', (m: Msg) => {
  switch (m.cmd) {
    case 'config':
      server.setBehaviour(m.behaviour);
      send({ id: m.id });
      break;
    case 'reset':
      server.reset();
      cpu0 = process.cpuUsage();
      t0 = performance.now();
      send({ id: m.id });
      break;
    case 'truth': {
      // Only full-length requests count (the client's warmup asks for fewer tokens).
      const rows = server.truths.filter((t) => t.completionTokens === m.tokens && t.outcome === 'complete').map(truthMetrics);
      const ttft = summarize(rows.map((r) => r.ttftMs));
      const itl = summarize(rows.flatMap((r) => r.itlMs));
      // The busy window: first request body to last event, for server CPU.
      const firstBody = Math.min(...server.truths.map((t) => t.tBody));
      const lastEnd = Math.max(...server.truths.map((t) => t.tEnd).filter((x) => Number.isFinite(x)));
      const cpu = process.cpuUsage(cpu0);
      const wall = performance.now() - t0;
      send({ id: m.id, n: rows.length, ttft, itl, cpuPercent: ((cpu.user + cpu.system) / 1000 / wall) * 100, windowMs: lastEnd - firstBody });
      break;
    }
    case 'stop':
      void server.close().then(() => {
        send({ id: m.id });
        process.exit(0);
      });
      break;
  }
});

void server.listen(0).then((port) => send({ ready: port }));
