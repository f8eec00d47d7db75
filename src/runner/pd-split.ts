// A simulated P/D unit's TTFT split per trial: the simulated router's account of each request's modelled prefill
// queue, prefill, KV transfer, decode queue and first decode (src/sim/pd-timing.ts), read around the trial and kept
// for the trial's row as `pd_split` (medians and p90s of the trial's measured requests). Never asked of a server that
// did not say it is simulated; a real unit's rows have none.
import type { LiveServer } from './server';

/** The simulator's route (src/sim/pd-timing.ts PD_SPLIT_PATH) and the header its own routes need. */
const SPLIT_PATH = '/autobench/sim/pd-split';
const TIMING_HEADER = 'x-autobench-sim-timing';
const TIMEOUT_MS = 5000;

export const SPLIT_PARTS = ['prefill_queue_ms', 'prefill_ms', 'transfer_ms', 'decode_queue_ms', 'first_decode_ms', 'ttft_ms'] as const;
export type SplitPart = (typeof SPLIT_PARTS)[number];

/** What a unit's row records as `pd_split`: modelled ms, from the router's account of the trial's requests. */
export interface PdSplitBlock {
  basis: 'modelled';
  samples: number;
  p50: Record<SplitPart, number>;
  p90: Record<SplitPart, number>;
}

async function readSplit(server: Pick<LiveServer, 'baseUrl' | 'headers'>, after: number): Promise<{ seq: number; split: Array<Record<string, unknown>> } | undefined> {
  try {
    const r = await fetch(new URL(`${SPLIT_PATH}?after=${after}`, server.baseUrl), { headers: { ...(server.headers ?? {}), [TIMING_HEADER]: '1' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!r.ok) return undefined;
    const j = (await r.json()) as { seq?: unknown; split?: unknown };
    return typeof j.seq === 'number' && Array.isArray(j.split) ? { seq: j.seq, split: j.split as Array<Record<string, unknown>> } : undefined;
  } catch {
    return undefined;
  }
}

function quantile(sorted: readonly number[], q: number): number {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (i - lo);
}

/** Medians and p90s of each part over the requests' splits; undefined with none. */
export function summarizeSplit(entries: readonly Record<string, unknown>[]): PdSplitBlock | undefined {
  const ok = entries.filter((e) => SPLIT_PARTS.every((k) => typeof e[k] === 'number' && Number.isFinite(e[k])));
  if (!ok.length) return undefined;
  const at = (q: number): Record<SplitPart, number> => {
    const out = {} as Record<SplitPart, number>;
    for (const k of SPLIT_PARTS) out[k] = Math.round(quantile(ok.map((e) => e[k] as number).sort((a, b) => a - b), q) * 1000) / 1000;
    return out;
  };
  return { basis: 'modelled', samples: ok.length, p50: at(0.5), p90: at(0.9) };
}

const splits = new WeakMap<LiveServer, PdSplitBlock>();

/** What withPdSplit reads of a trial's outcome: how many warm-up requests it sent first. */
interface TrialWarmups {
  result?: { warmup: readonly unknown[] };
}

/** Runs a trial; on a simulated unit, keeps the split of the trial's measured requests (its warm-ups, noted first, left out). */
export async function withPdSplit<T extends TrialWarmups | { kind: string }>(server: LiveServer, run: () => Promise<T>): Promise<T> {
  if (!server.simulated || !server.companions?.length) return run();
  splits.delete(server);
  const mark = await readSplit(server, Number.MAX_SAFE_INTEGER);
  const outcome = await run();
  const result = (outcome as TrialWarmups).result;
  const got = mark && result ? await readSplit(server, mark.seq) : undefined;
  const block = got && result ? summarizeSplit(got.split.slice(result.warmup.length)) : undefined;
  if (block) splits.set(server, block);
  return outcome;
}

/** The split of the last trial on this server (undefined: not a simulated unit, or the router could not say). */
export function pdSplitOf(server: LiveServer): PdSplitBlock | undefined {
  return splits.get(server);
}
