// Test helpers for the simulated engine: start a server in-process, post JSON, read SSE streams, run shims.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startSimServer, type SimServer, type StartSimOptions } from '../../src/sim';

export const REPO = path.resolve(__dirname, '../..');
export const SHIM_DIR = path.join(REPO, 'bin', 'sim');

/** Starts a simulated server on a free loopback port; the caller closes it. */
export function sim(framework: string, args: string[], o: Partial<StartSimOptions> = {}): Promise<SimServer> {
  return startSimServer({ framework, args, port: 0, host: '127.0.0.1', ...o, sim: { logIntervalMs: 0, ...o.sim } });
}

export async function withSim<T>(framework: string, args: string[], fn: (s: SimServer) => Promise<T>, o: Partial<StartSimOptions> = {}): Promise<T> {
  const s = await sim(framework, args, o);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

export async function post(s: SimServer, route: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${s.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function postJson(s: SimServer, route: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const r = await post(s, route, body);
  return { status: r.status, json: (await r.json()) as Record<string, unknown>, headers: r.headers };
}

export interface SseEvent {
  /** Milliseconds from the request to this event's arrival. */
  at: number;
  data: string;
}

/** Posts and reads an SSE response; every `data:` line becomes one event with its arrival time. */
export async function stream(s: SimServer, route: string, body: unknown): Promise<{ status: number; headers: Headers; events: SseEvent[] }> {
  const t0 = performance.now();
  const r = await post(s, route, body);
  const events: SseEvent[] = [];
  if (!r.body) return { status: r.status, headers: r.headers, events };
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      for (const line of block.split('\n')) {
        if (line.startsWith('data: ')) events.push({ at: performance.now() - t0, data: line.slice(6) });
      }
    }
  }
  return { status: r.status, headers: r.headers, events };
}

export function jsonEvents(events: SseEvent[]): Array<Record<string, unknown>> {
  return events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as Record<string, unknown>);
}

/** A prompt of about `n` simulator tokens (one short word each). */
export function promptOf(n: number, salt = ''): string {
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(`w${salt}${i % 97}`.replace(/\d/g, (d) => 'abcdefghij'[Number(d)] ?? 'k'));
  return words.join(' ');
}

let bundle: string | undefined;

/** Builds dist/sim.js's source into a temp dir once, so shim tests never run a stale bundle. */
export async function simBundle(): Promise<string> {
  if (bundle) return bundle;
  const { build } = await import('esbuild');
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'autobench-sim-')), 'sim.js');
  await build({ entryPoints: [path.join(REPO, 'src/sim/main.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: out, logLevel: 'error' });
  bundle = out;
  return out;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a shim from bin/sim with a fresh bundle; once output matches `until`, runs `onMatch`, then sends SIGTERM. */
export async function runShimProcess(
  program: string,
  args: string[],
  o: { env?: Record<string, string>; until?: RegExp; onMatch?: (out: string) => Promise<void>; timeoutMs?: number; keepAlive?: boolean } = {},
): Promise<RunResult> {
  const js = await simBundle();
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(SHIM_DIR, program), args, {
      env: { ...process.env, PATH: `${SHIM_DIR}${path.delimiter}${process.env.PATH ?? ''}`, AUTOBENCH_SIM_JS: js, AUTOBENCH_NODE: process.execPath, ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let matched = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${program} ${args.join(' ')} did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, o.timeoutMs ?? 20_000);
    const check = (): void => {
      if (!o.until || matched) return;
      const all = stdout + stderr;
      if (o.until.test(all)) {
        matched = true;
        (o.onMatch ? o.onMatch(all) : Promise.resolve())
          .catch((e: unknown) => {
            stderr += `\n[test] ${String(e)}`;
          })
          .finally(() => {
            // keepAlive: the process is expected to end by itself (a crash fault).
            if (!o.keepAlive) child.kill('SIGTERM');
          });
      }
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      check();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      check();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
