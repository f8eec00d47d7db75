// HTTP legs of the simulated P/D routers (router.ts, trtllm-front.ts) to their workers: a POST that asks for the
// worker's modelled times, reading an answer whole, a GET with a timeout, a worker's /health, and the unit's energy.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { TIMING_HEADER } from './http/ttft-report';
import { ENERGY_PATH, type EnergyReading } from './power';

export interface Upstream {
  status: number;
  headers: IncomingMessage['headers'];
  res: IncomingMessage;
}

/** A leg to a worker, always asking for its modelled times (the router's TTFT account and split need them). */
export function postLeg(url: string, path: string, body: object, signal: AbortSignal): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), [TIMING_HEADER]: '1' };
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers, signal }, (res) => resolve({ status: res.statusCode ?? 502, headers: res.headers, res }));
    req.on('error', reject);
    req.end(text);
  });
}

export function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

export function getText(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', timeout: 5000, headers }, (res) => {
      readAll(res).then((text) => resolve({ status: res.statusCode ?? 502, text }), reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

export async function healthy(url: string): Promise<boolean> {
  try {
    return (await getText(`${url}/health`)).status === 200;
  } catch {
    return false;
  }
}

/** AUTOBENCH_SIM_PORTMAP `30000:41234,30001:41235`: a worker's port in the command line or config -> where the simulator put it. */
export function portMap(env: NodeJS.ProcessEnv): Map<number, number> {
  const m = new Map<number, number>();
  for (const pair of (env.AUTOBENCH_SIM_PORTMAP ?? '').split(',').filter(Boolean)) {
    const [from, to] = pair.split(':').map(Number);
    if (Number.isInteger(from) && Number.isInteger(to)) m.set(from as number, to as number);
  }
  return m;
}

/** A unit's modelled energy: every worker's counter summed, output tokens from its decode (generation) workers only. */
export async function unitEnergy(workers: ReadonlyArray<{ url: string; decode: boolean }>): Promise<EnergyReading> {
  const readings = await Promise.all(workers.map(async (w) => ({ w, e: JSON.parse((await getText(`${w.url}${ENERGY_PATH}`, { [TIMING_HEADER]: '1' })).text) as EnergyReading })));
  const sum: EnergyReading = { joules: 0, seconds: 0, output_tokens: 0, gpus: 0, basis: 'modelled' };
  for (const { w, e } of readings) {
    sum.joules += e.joules;
    sum.seconds = Math.max(sum.seconds, e.seconds);
    sum.gpus += e.gpus;
    if (w.decode) sum.output_tokens += e.output_tokens;
  }
  return sum;
}

