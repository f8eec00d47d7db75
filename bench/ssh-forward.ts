// What the ssh port forward costs the load client: small HTTP GET latency and 32-way throughput, direct vs through SshExecutor.forward() to a throwaway sshd on loopback. Prints medians.
// Run: node --import tsx bench/ssh-forward.ts [--requests N]   (needs /usr/sbin/sshd: apt-get install -y openssh-server)
import { Agent, createServer, request } from 'node:http';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { SshExecutor } from '../src/exec/ssh';
import { startSshd } from '../test/support/sshd';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const REQUESTS = arg('--requests', 1000);
const ROUNDS = 10; // direct and forwarded alternate in rounds, so drift on a shared machine hits both
const BODY = JSON.stringify({ object: 'list', data: [{ id: 'simulated/model', object: 'model' }] });

function get(port: number, agent: Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port, path: '/v1/models', agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e3));
    });
    req.on('error', reject);
    req.end();
  });
}

function pct(samples: number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

async function sequential(ports: { direct: number; fwd: number }, keepAlive: boolean, n: number): Promise<{ direct: number[]; fwd: number[] }> {
  const out = { direct: [] as number[], fwd: [] as number[] };
  const agents = { direct: new Agent({ keepAlive, maxSockets: 1 }), fwd: new Agent({ keepAlive, maxSockets: 1 }) };
  for (const k of ['direct', 'fwd'] as const) for (let i = 0; i < 20; i++) await get(ports[k], keepAlive ? agents[k] : false);
  const per = Math.ceil(n / ROUNDS);
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of ['direct', 'fwd'] as const) {
      for (let i = 0; i < per; i++) out[k].push(await get(ports[k], keepAlive ? agents[k] : false));
    }
  }
  agents.direct.destroy();
  agents.fwd.destroy();
  return out;
}

async function throughput(port: number, concurrency: number, total: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        await get(port, agent);
      }
    }),
  );
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  agent.destroy();
  return total / s;
}

function line(label: string, d: number[], f: number[]): void {
  const dm = pct(d, 0.5);
  const fm = pct(f, 0.5);
  console.log(
    `${label.padEnd(30)} direct median ${dm.toFixed(0).padStart(5)} µs p90 ${pct(d, 0.9).toFixed(0).padStart(5)} p99 ${pct(d, 0.99).toFixed(0).padStart(5)}` +
      ` | forwarded median ${fm.toFixed(0).padStart(5)} µs p90 ${pct(f, 0.9).toFixed(0).padStart(5)} p99 ${pct(f, 0.99).toFixed(0).padStart(5)}` +
      ` | +${(fm - dm).toFixed(0)} µs (${(fm / dm).toFixed(2)}x)`,
  );
}

async function main(): Promise<void> {
  const sshd = await startSshd();
  let http: Server | undefined;
  let ex: SshExecutor | undefined;
  try {
    http = createServer((_q, s) => {
      s.setHeader('content-type', 'application/json');
      s.end(BODY);
    });
    await new Promise<void>((r) => http?.listen(0, '127.0.0.1', r));
    const addr = http.address();
    const port = addr && typeof addr === 'object' ? addr.port : 0;
    const knownHostsPath = join(sshd.dir, 'known_hosts');
    writeFileSync(knownHostsPath, sshd.knownHostsLine + '\n');
    ex = await SshExecutor.connect({ host: 'sshd-test', configPath: sshd.writeConfig(), knownHostsPath, agent: false });
    const fwd = await ex.forward(port);
    const ports = { direct: port, fwd: fwd.localPort };
    console.log(`ssh forward overhead on loopback (${ex.describe()}, OpenSSH sshd, ${REQUESTS} requests per case, medians)`);
    const ka = await sequential(ports, true, REQUESTS);
    line('GET keep-alive, sequential', ka.direct, ka.fwd);
    const fresh = await sequential(ports, false, Math.ceil(REQUESTS / 4));
    line('GET new connection each', fresh.direct, fresh.fwd);
    const tput: { direct: number[]; fwd: number[] } = { direct: [], fwd: [] };
    for (let r = 0; r < 5; r++) {
      tput.direct.push(await throughput(ports.direct, 32, REQUESTS));
      tput.fwd.push(await throughput(ports.fwd, 32, REQUESTS));
    }
    const td = pct(tput.direct, 0.5);
    const tf = pct(tput.fwd, 0.5);
    console.log(`${'32 concurrent keep-alive'.padEnd(30)} direct median ${td.toFixed(0)} req/s | forwarded median ${tf.toFixed(0)} req/s | ${(tf / td).toFixed(2)}x`);
    await fwd.close();
  } finally {
    await ex?.close();
    await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
    await sshd.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
