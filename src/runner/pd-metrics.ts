// A P/D unit's stage times from its workers' own Prometheus /metrics, read before and after each trial: the mean of
// each stage over the requests the window saw (Δsum / Δcount of the engine's histograms, summed over a role's workers),
// kept for the trial's row as `pd_metrics`. Real and simulated units alike; which series mean which stage is per engine
// (docs/ENGINES.md "Worker metrics of a P/D unit"). A worker without metrics (SGLang without --enable-metrics) says so.
import type { FrameworkKey } from '../core/frameworks/types';
import type { UnitRole } from '../core/candidates/unit';
import type { LiveServer } from './server';

const TIMEOUT_MS = 5000;

export const STAGE_PARTS = ['prefill_queue_ms', 'prefill_ms', 'transfer_ms', 'decode_queue_ms', 'first_decode_ms', 'tpot_ms'] as const;
export type StagePart = (typeof STAGE_PARTS)[number];

/** A histogram series a stage is read from: its role's workers, the metric, and a label it must carry. */
interface Source {
  role: UnitRole;
  metric: string;
  label?: [string, string];
}

/** vLLM V1 (stats.py @28ed1fb8, nixl/stats.py @bd33ba3e): a decode worker's queue holds its wait for the remote KV. */
const VLLM: Partial<Record<StagePart | 'decode_wait_ms', Source>> = {
  prefill_queue_ms: { role: 'prefill', metric: 'vllm:request_queue_time_seconds' },
  prefill_ms: { role: 'prefill', metric: 'vllm:request_prefill_time_seconds' },
  transfer_ms: { role: 'decode', metric: 'vllm:nixl_xfer_time_seconds' },
  decode_wait_ms: { role: 'decode', metric: 'vllm:request_queue_time_seconds' },
  first_decode_ms: { role: 'decode', metric: 'vllm:request_prefill_time_seconds' },
  tpot_ms: { role: 'decode', metric: 'vllm:inter_token_latency_seconds' },
};

/** SGLang with --enable-metrics (metrics_collector.py @016d8605, req_time_stats.py @602413bc): per-stage latencies. */
const stage = (role: UnitRole, name: string): Source => ({ role, metric: 'sglang:per_stage_req_latency_seconds', label: ['stage', name] });
const SGLANG: Partial<Record<StagePart | 'decode_wait_ms', Source>> = {
  prefill_queue_ms: { role: 'prefill', metric: 'sglang:queue_time_seconds' },
  prefill_ms: stage('prefill', 'prefill_forward'),
  transfer_ms: stage('prefill', 'prefill_transfer_kv_cache'),
  decode_queue_ms: stage('decode', 'decode_waiting'),
  first_decode_ms: stage('decode', 'fake_output'),
  tpot_ms: { role: 'decode', metric: 'sglang:inter_token_latency_seconds' },
};

const SOURCES: Partial<Record<FrameworkKey, typeof VLLM>> = { vllm: VLLM, sglang: SGLANG };

/** What a unit's row records as `pd_metrics`. */
export interface PdMetricsBlock {
  basis: 'worker_metrics';
  /** Means over the window's requests (ms); null where the engine's metrics do not give the stage. */
  mean_ms: Record<StagePart, number | null>;
  /** Requests the window's histograms counted, per role (a trial's warm-ups included). */
  requests: Record<UnitRole, number>;
  /** Workers read, per role, of the unit's. */
  workers_read: Record<UnitRole, string>;
  /** Each stage's series: `metric{label} (role workers)`. */
  sources: Partial<Record<StagePart, string>>;
  notes: string[];
}

type Sums = Map<string, { sum: number; count: number }>;

/** `name{labels}` → value for every `_sum` and `_count` sample of a Prometheus text. */
export function histogramSums(text: string): Sums {
  const out: Sums = new Map();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][\w:]*)_(sum|count)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const v = Number(m[4]);
    if (!Number.isFinite(v)) continue;
    const key = `${m[1] as string}${m[3] ?? ''}`;
    const e = out.get(key) ?? { sum: 0, count: 0 };
    if (m[2] === 'sum') e.sum = v;
    else e.count = v;
    out.set(key, e);
  }
  return out;
}

/** A source's sum and count over one scrape: every series of the metric that carries its label. */
function pick(s: Sums, src: Source): { sum: number; count: number } {
  let sum = 0;
  let count = 0;
  for (const [key, v] of s) {
    const brace = key.indexOf('{');
    if ((brace < 0 ? key : key.slice(0, brace)) !== src.metric) continue;
    if (src.label && !key.includes(`${src.label[0]}="${src.label[1]}"`)) continue;
    sum += v.sum;
    count += v.count;
  }
  return { sum, count };
}

interface Scrape {
  role: UnitRole;
  sums: Sums | undefined;
}

async function scrape(w: LiveServer, role: UnitRole): Promise<Scrape> {
  try {
    const r = await fetch(new URL('/metrics', w.baseUrl), { headers: { ...(w.headers ?? {}) }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { role, sums: r.ok ? histogramSums(await r.text()) : undefined };
  } catch {
    return { role, sums: undefined };
  }
}

/** The window's mean of one source over its role's workers (ms), and how many requests it counted. */
function windowMean(before: readonly Scrape[], after: readonly Scrape[], src: Source): { ms: number; n: number } | undefined {
  let sum = 0;
  let count = 0;
  after.forEach((a, i) => {
    const b = before[i];
    if (a.role !== src.role || !a.sums || !b?.sums) return;
    const x = pick(a.sums, src);
    const y = pick(b.sums, src);
    sum += x.sum - y.sum;
    count += x.count - y.count;
  });
  return count > 0 ? { ms: (sum / count) * 1000, n: count } : undefined;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/** The block from the scrapes around a trial (every mean null, and why, when no worker answered); undefined for an engine without a table. */
export function stageMeans(fw: FrameworkKey, before: readonly Scrape[], after: readonly Scrape[]): PdMetricsBlock | undefined {
  const table = SOURCES[fw];
  const read = (role: UnitRole): number => after.filter((a, i) => a.role === role && a.sums && before[i]?.sums).length;
  if (!table) return undefined;
  const of = (role: UnitRole): number => after.filter((a) => a.role === role).length;
  const mean_ms = Object.fromEntries(STAGE_PARTS.map((k) => [k, null])) as Record<StagePart, number | null>;
  const sources: PdMetricsBlock['sources'] = {};
  const requests: Record<UnitRole, number> = { prefill: 0, decode: 0 };
  const notes: string[] = [];
  const got = (k: StagePart | 'decode_wait_ms'): number | undefined => {
    const src = table[k];
    const m = src && windowMean(before, after, src);
    if (!src || !m) return undefined;
    // Per-token series count tokens, not requests.
    if (k !== 'tpot_ms') requests[src.role] = Math.max(requests[src.role], m.n);
    if (k !== 'decode_wait_ms') sources[k] = `${src.metric}${src.label ? `{${src.label[0]}="${src.label[1]}"}` : ''} (${src.role} workers)`;
    return m.ms;
  };
  for (const k of STAGE_PARTS) {
    const v = got(k);
    if (v !== undefined) mean_ms[k] = round(v);
  }
  const wait = got('decode_wait_ms');
  if (wait !== undefined) {
    // vLLM: the decode worker's queue holds the remote KV load; the transfer's own time, where NIXL reports it, is taken out.
    mean_ms.decode_queue_ms = round(Math.max(0, wait - (mean_ms.transfer_ms ?? 0)));
    sources.decode_queue_ms = `${table.decode_wait_ms?.metric ?? ''} (decode workers)${mean_ms.transfer_ms === null ? ', the KV wait included' : ' less the transfer'}`;
    if (mean_ms.transfer_ms === null) notes.push('the decode workers report no transfer time of their own (no NIXL metrics): the KV wait is inside the decode queue');
  }
  for (const role of ['prefill', 'decode'] as const) if (read(role) < of(role)) notes.push(`${of(role) - read(role)} of ${of(role)} ${role} workers answered no /metrics${fw === 'sglang' ? ' (SGLang serves them only with --enable-metrics)' : ''}`);
  return { basis: 'worker_metrics', mean_ms, requests, workers_read: { prefill: `${read('prefill')}/${of('prefill')}`, decode: `${read('decode')}/${of('decode')}` }, sources, notes };
}

const blocks = new WeakMap<LiveServer, PdMetricsBlock>();

/** Runs a trial on a unit's router; its workers' metrics are read before and after (prefill workers first in `companions`). */
export async function withWorkerMetrics<T>(server: LiveServer, fw: FrameworkKey, prefillWorkers: number | undefined, run: () => Promise<T>): Promise<T> {
  const workers = server.companions ?? [];
  if (prefillWorkers === undefined || !workers.length || !SOURCES[fw]) return run();
  blocks.delete(server);
  const roleOf = (i: number): UnitRole => (i < prefillWorkers ? 'prefill' : 'decode');
  const before = await Promise.all(workers.map((w, i) => scrape(w, roleOf(i))));
  const outcome = await run();
  const after = await Promise.all(workers.map((w, i) => scrape(w, roleOf(i))));
  const block = stageMeans(fw, before, after);
  if (block) blocks.set(server, block);
  return outcome;
}

/** The stage means of the last trial on this unit (undefined: not a unit, or an engine whose metrics are not read). */
export function pdMetricsOf(server: LiveServer): PdMetricsBlock | undefined {
  return blocks.get(server);
}
