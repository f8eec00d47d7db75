// The simulator's own account of its requests' modelled TTFTs, for the runner's TTFT floor (runner/ttft-floor.ts):
// each generation request's first-token time less its arrival, in simulated ms, kept as its response closes and read
// back over `GET /autobench/sim/ttfts?after=N` (only with the probe's header; no real engine has this route).
import type { ServerResponse } from 'node:http';
import { sendJson } from './io';

/** What is read of a job: its request's modelled arrival and first-token times (jobs.ts Job; not imported: jobs.ts calls us). */
interface Timed {
  request: { arrivalAt: number; firstAt: number; receivedAt?: number };
}

export const TTFTS_PATH = '/autobench/sim/ttfts';
export const TIMING_HEADER = 'x-autobench-sim-timing';
/** Entries kept at least (up to twice as many; the oldest go first); `seq` still counts every one. */
const KEEP = 100_000;

interface Account {
  /** Entries ever noted; ttfts[i] is entry seq - ttfts.length + i. */
  seq: number;
  ttfts: number[];
}

/** Per server, keyed by its context (jobs.ts ServerContext). */
const accounts = new WeakMap<object, Account>();

function accountOf(ctx: object): Account {
  let a = accounts.get(ctx);
  if (!a) accounts.set(ctx, (a = { seq: 0, ttfts: [] }));
  return a;
}

/** Notes the modelled TTFT of each job that produced a token (called as its response closes). */
export function noteTtfts(ctx: object, jobs: readonly Timed[]): void {
  const a = accountOf(ctx);
  for (const j of jobs) {
    const r = j.request;
    // A P/D decode worker's request counts from when it came in, its KV transfer included.
    const from = Number.isFinite(r.receivedAt) ? (r.receivedAt as number) : r.arrivalAt;
    if (!Number.isFinite(r.firstAt) || !Number.isFinite(from)) continue;
    a.ttfts.push((r.firstAt - from) * 1000);
    a.seq++;
  }
  // Trimmed in bulk, so a long run pays for it once per KEEP requests.
  if (a.ttfts.length > 2 * KEEP) a.ttfts.splice(0, a.ttfts.length - KEEP);
}

/** `{ seq, ttft_ms }`: the modelled TTFTs noted after entry `after` (all kept ones without it). */
export function sendTtfts(ctx: object, url: string, res: ServerResponse): void {
  const a = accountOf(ctx);
  const q = url.indexOf('?');
  const after = Number(new URLSearchParams(q >= 0 ? url.slice(q + 1) : '').get('after') ?? '0');
  const first = a.seq - a.ttfts.length;
  const from = Math.max(0, (Number.isFinite(after) ? after : 0) - first);
  sendJson(res, 200, { seq: a.seq, ttft_ms: a.ttfts.slice(from) });
}
