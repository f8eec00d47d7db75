// A sped-up simulator's TTFT floor: a wall-clock cost per request (HTTP, timers, busy event loops, the client) that
// the row's speed scaling multiplies. Probed once per launch at idle (one-token streams that ask the engine for their
// modelled times by header), then per trial from the trial's own requests: their wall TTFTs against the engine's
// account of their modelled TTFTs. Removed from the row's TTFT and E2E figures, or marked when too unsteady.
// Never probes a server that did not say it is simulated.
import * as http from 'node:http';
import type { LiveServer } from './server';
import { smallestTtftLimitMs, type SlaLimits } from '../core/sla/limits';

/** The request header by which the probe asks the simulated engine for its modelled times (src/sim/http/openai.ts). */
export const SIM_TIMING_HEADER = 'x-autobench-sim-timing';
/** The response header with the request's modelled arrival (simulated seconds). */
export const SIM_ARRIVAL_HEADER = 'x-autobench-sim-arrival';
/** The simulator's account of its requests' modelled TTFTs (src/sim/http/ttft-report.ts). */
export const SIM_TTFTS_PATH = '/autobench/sim/ttfts';
/** Measured requests a trial needs for a floor of its own; fewer: the launch's idle floor stands. */
export const MIN_TRIAL_SAMPLES = 8;
/** Requests whose floors are kept, after WARM_REQUESTS discarded ones (a fresh process's first requests are slow). */
export const PROBE_REQUESTS = 16;
const WARM_REQUESTS = 3;
/** The launch probe gives up after this long in all (a slow speed-1 server): the floors measured so far stand. */
const PROBE_BUDGET_MS = 3000;
const REQUEST_TIMEOUT_MS = 5000;
/** Under this share of the TTFT limit the inflation is negligible: recorded, not removed. */
export const NEGLIGIBLE_SHARE = 0.02;
/** Over this share of the TTFT limit, the floor's spread × (speed − 1) makes the removed figure uncertain: marked. */
export const UNCERTAIN_SHARE = 0.05;

/** What the rows of a simulated launch record as `ttft_floor`. */
export interface TtftFloor {
  /** Median per-request wall-clock cost beyond the modelled TTFT (ms); null when not measured. */
  wall_ms: number | null;
  /** under-load: from the trial's own requests; idle: the launch's probe (the trial had too few requests, or the engine could not say). */
  basis?: 'under-load' | 'idle';
  /** The launch's idle floor (wall ms), for comparison. */
  idle_wall_ms?: number | null;
  /** Half the spread between the floors at the quartiles (wall ms). */
  spread_ms: number | null;
  samples: number;
  speed: number;
  /** (speed − 1) × wall_ms: what the floor adds to a row's modelled TTFT next to a speed-1 run (ms). */
  inflation_ms: number | null;
  /** What was taken off the row's TTFT and E2E figures (ms, modelled). */
  removed_ms: number;
  /** The smallest TTFT limit of the plan the decision was taken against (ms), null when it has none. */
  limit_ms: number | null;
  /**
   * subtracted: removed from TTFT/E2E; negligible: under NEGLIGIBLE_SHARE of the limit (or speed 1), kept;
   * uncertain: removed, but (speed − 1) × spread exceeds UNCERTAIN_SHARE of the limit (rerun at a lower --sim-speed);
   * unmeasured: the probe failed (nothing removed).
   */
  action: 'subtracted' | 'negligible' | 'uncertain' | 'unmeasured';
  note?: string;
}

/** One probe request's wall-clock TTFT and the engine's modelled TTFT (ms). */
export interface FloorSample {
  wallMs: number;
  modelMs: number;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (i - lo);
}

/** The smallest TTFT limit the plan sets (p50 or the deprecated p99), if any. */
export const ttftLimitOf = smallestTtftLimitMs;

/** A probe that did not measure: its rows say so and nothing is removed. */
export function unmeasuredFloor(speed: number, why: string): TtftFloor {
  return { wall_ms: null, spread_ms: null, samples: 0, speed, inflation_ms: null, removed_ms: 0, limit_ms: null, action: 'unmeasured', note: why };
}

/**
 * The floor from the probe's samples, and what to do with it at `speed` against the plan's TTFT limit: at speed K a
 * request reads model + K·o modelled ms where a speed-1 run reads model + o, so (K − 1)·o is removed.
 */
export function decideFloor(samples: readonly FloorSample[], speed: number, limitMs: number | null): TtftFloor {
  if (samples.length === 0) return unmeasuredFloor(speed, 'the probe got no timed response');
  const floors = samples.map((s) => s.wallMs - s.modelMs / speed).sort((a, b) => a - b);
  return floorDecision(quantile(floors, 0.5), (quantile(floors, 0.75) - quantile(floors, 0.25)) / 2, samples.length, speed, limitMs);
}

/**
 * A trial's floor from its own requests: their wall TTFTs (ms) and the engine's modelled TTFTs (simulated ms), paired
 * by quantile (the engine does not know the client's request order): o = wall_q − model_q / speed at the median, its
 * spread half the difference between the quartiles' (a constant cost shifts every quantile alike).
 */
export function trialFloorOf(wallMs: readonly number[], modelMs: readonly number[], speed: number, limitMs: number | null): TtftFloor | undefined {
  if (wallMs.length < MIN_TRIAL_SAMPLES || modelMs.length < MIN_TRIAL_SAMPLES) return undefined;
  const w = [...wallMs].sort((a, b) => a - b);
  const m = [...modelMs].sort((a, b) => a - b);
  const at = (q: number): number => quantile(w, q) - quantile(m, q) / speed;
  return { ...floorDecision(at(0.5), Math.abs(at(0.75) - at(0.25)) / 2, Math.min(w.length, m.length), speed, limitMs), basis: 'under-load' };
}

/** The decision for a floor of `floorMs` wall ms (spread `spreadMs`) at `speed` against the TTFT limit. */
function floorDecision(floorMs: number, spreadMs: number, samples: number, speed: number, limitMs: number | null): TtftFloor {
  const wall = Math.max(0, floorMs);
  const spread = spreadMs;
  const k = Math.max(0, speed - 1);
  const inflation = k * wall;
  const base = { wall_ms: round(wall), spread_ms: round(spread), samples, speed, inflation_ms: round(inflation), limit_ms: limitMs };
  if (k === 0 || (limitMs !== null && inflation < NEGLIGIBLE_SHARE * limitMs)) return { ...base, removed_ms: 0, action: 'negligible' };
  if (limitMs !== null && k * spread > UNCERTAIN_SHARE * limitMs) {
    const note = `the floor varies by ±${round(k * spread)} ms at x${speed}, over ${UNCERTAIN_SHARE * 100}% of the ${limitMs} ms TTFT limit: measure again with a lower --sim-speed`;
    return { ...base, removed_ms: round(inflation), action: 'uncertain', note };
  }
  return { ...base, removed_ms: round(inflation), action: 'subtracted' };
}

/** The first `"autobench_sim_time":X` in a stream's text (simulated seconds). */
function firstSimTime(text: string): number | undefined {
  const m = /"autobench_sim_time":(-?[0-9.eE+-]+)/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** One tiny streaming completion with the timing header: its wall TTFT and the engine's modelled TTFT. */
function probeOnce(url: URL, agent: http.Agent, body: string, headers: Readonly<Record<string, string>>): Promise<FloorSample> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), [SIM_TIMING_HEADER]: '1' }, timeout: REQUEST_TIMEOUT_MS });
    let t0 = 0;
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const arrival = Number(res.headers[SIM_ARRIVAL_HEADER]);
      let text = '';
      let first: FloorSample | undefined;
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        const t = performance.now();
        if (first) return;
        text += c;
        const at = firstSimTime(text);
        if (at !== undefined) first = { wallMs: t - t0, modelMs: (at - arrival) * 1000 };
      });
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
        else if (!first || !Number.isFinite(first.modelMs)) reject(new Error('the response carried no modelled times (a simulator without the timing header?)'));
        else resolve(first);
      });
      res.on('error', reject);
    });
    t0 = performance.now();
    req.end(body);
  });
}

/** The probe: WARM_REQUESTS then PROBE_REQUESTS sequential one-token streaming completions on an idle simulated server. */
export async function probeSamples(server: Pick<LiveServer, 'baseUrl' | 'model' | 'headers'>, n = PROBE_REQUESTS): Promise<FloorSample[]> {
  const url = new URL('/v1/completions', server.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ ...(server.model ? { model: server.model } : {}), prompt: 'Hello', max_tokens: 1, stream: true });
  const out: FloorSample[] = [];
  const end = performance.now() + PROBE_BUDGET_MS;
  try {
    for (let i = 0; i < WARM_REQUESTS + n && performance.now() < end; i++) {
      const s = await probeOnce(url, agent, body, server.headers ?? {});
      if (i >= WARM_REQUESTS) out.push(s);
    }
  } finally {
    agent.destroy();
  }
  return out;
}

/** The floor of a freshly launched server, or undefined for a server that is not the simulated engine (never probed). */
export async function probeTtftFloor(server: LiveServer, speed: number, limits: SlaLimits | undefined): Promise<TtftFloor | undefined> {
  if (!server.simulated) return undefined;
  try {
    return decideFloor(await probeSamples(server), speed, ttftLimitOf(limits));
  } catch (e) {
    return unmeasuredFloor(speed, `the TTFT-floor probe failed: ${(e as Error).message}`);
  }
}

/** The engine's modelled TTFTs noted after entry `after` (ms), and its count so far; undefined when it cannot say. */
export async function readModelTtfts(server: Pick<LiveServer, 'baseUrl' | 'headers'>, after = 0): Promise<{ seq: number; ttftMs: number[] } | undefined> {
  try {
    const r = await fetch(new URL(`${SIM_TTFTS_PATH}?after=${after}`, server.baseUrl), { headers: { ...(server.headers ?? {}), [SIM_TIMING_HEADER]: '1' }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (!r.ok) return undefined;
    const j = (await r.json()) as { seq?: unknown; ttft_ms?: unknown };
    if (typeof j.seq !== 'number' || !Array.isArray(j.ttft_ms)) return undefined;
    return { seq: j.seq, ttftMs: j.ttft_ms.filter((x): x is number => typeof x === 'number') };
  } catch {
    return undefined;
  }
}

/** What withFloorProbe reads of a trial's outcome: the client's measured and warm-up requests. */
interface TrialRecords {
  result?: { records: readonly { warmup: boolean; success: boolean; ttftMs: number }[]; warmup: readonly unknown[] };
}

/**
 * Runs a trial on a server; on a simulated one, the server's floor is then this trial's, from its requests' wall
 * TTFTs and the engine's modelled ones (its warm-ups, noted first, left out), else the launch's idle floor.
 */
export async function withFloorProbe<T extends TrialRecords | { kind: string }>(server: LiveServer, speed: number, limits: SlaLimits | undefined, run: () => Promise<T>): Promise<T> {
  if (!server.simulated) return run();
  const mark = await readModelTtfts(server, Number.MAX_SAFE_INTEGER);
  const outcome = await run();
  const result = (outcome as TrialRecords).result;
  const model = mark && result ? await readModelTtfts(server, mark.seq) : undefined;
  const idle = idleFloors.get(server);
  const wall = result ? result.records.filter((r) => !r.warmup && r.success && Number.isFinite(r.ttftMs)).map((r) => r.ttftMs) : [];
  const trial = model && result ? trialFloorOf(wall, model.ttftMs.slice(result.warmup.length), speed, ttftLimitOf(limits)) : undefined;
  const floor = trial ? { ...trial, idle_wall_ms: idle?.wall_ms ?? null } : idle;
  if (floor) setFloor(server, floor);
  return outcome;
}

const floors = new WeakMap<LiveServer, TtftFloor>();
/** Each launch's idle floor (the fallback of a trial with too few under-load samples). */
const idleFloors = new WeakMap<LiveServer, TtftFloor>();

/** Keeps a launch's floor for its rows. */
export function setFloor(server: LiveServer, floor: TtftFloor | undefined): void {
  if (floor) floors.set(server, floor);
}

/** The floor of the launch a server came from (undefined: not simulated, or not probed). */
export function floorOf(server: LiveServer): TtftFloor | undefined {
  return floors.get(server);
}

/** The modelled ms to take off a trial's TTFT and E2E figures on this server. */
export function removedOf(server: LiveServer): number {
  return floors.get(server)?.removed_ms ?? 0;
}

/** Probes a just-launched simulated server and keeps its floor (a no-op for any other server); the log line, when probed. */
export async function probeLaunch(server: LiveServer, speed: number, limits: SlaLimits | undefined): Promise<string | undefined> {
  const probed = await probeTtftFloor(server, speed, limits);
  const floor = probed && probed.action !== 'unmeasured' ? { ...probed, basis: 'idle' as const } : probed;
  setFloor(server, floor);
  if (floor) idleFloors.set(server, floor);
  if (!floor) return undefined;
  if (floor.action === 'unmeasured') return `TTFT floor not measured: ${floor.note ?? ''}`;
  return `TTFT floor ${floor.wall_ms} ms wall (±${floor.spread_ms}) at x${speed}: ${floor.inflation_ms} ms modelled, ${floor.action}${floor.note ? ` (${floor.note})` : ''}`;
}
