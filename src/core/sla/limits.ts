// The one SLA reader: every SLA key name (current, deprecated, legacy), which metric each limit judges, and how a limits mapping is read.
import { PyFloat } from '../py/value';
import { pyFloat } from '../py/ops';

/** Targets that can be applied; undefined means "not set" (it always passes). */
export interface SlaLimits {
  max_p50_ttft_ms?: number;
  max_p50_tpot_ms?: number;
  max_p50_e2e_ms?: number;
  min_success_rate?: number;
  /** Deprecated tail limits, still judged when a row or plan sets them. */
  max_p99_ttft_ms?: number;
  max_p99_tpot_ms?: number;
  max_p99_e2e_ms?: number;
}

export type SlaKey = keyof SlaLimits;

/** A row's recorded `sla` block: the limits it was judged against, the verdict and its reasons. */
export type SlaBlock = Partial<Record<SlaKey, number | null>> & { passed?: boolean | string | null; reasons?: string[] };

export interface SlaTarget {
  key: SlaKey;
  label: string;
  /** Metric fields to read, first present wins (p50 and median are the same statistic). */
  metrics: string[];
  kind: 'max-ms' | 'min-rate';
  /** What the latency charts call this limit, when they draw it. */
  chart?: 'ttft' | 'tpot' | 'successRate';
}

/** In judging order. */
export const SLA_TARGETS: readonly SlaTarget[] = [
  { key: 'max_p50_ttft_ms', label: 'p50 TTFT', metrics: ['p50_ttft_ms', 'median_ttft_ms'], kind: 'max-ms', chart: 'ttft' },
  { key: 'max_p50_tpot_ms', label: 'p50 TPOT', metrics: ['p50_tpot_ms', 'median_tpot_ms'], kind: 'max-ms', chart: 'tpot' },
  { key: 'max_p50_e2e_ms', label: 'p50 E2E', metrics: ['p50_e2e_ms', 'median_e2e_ms'], kind: 'max-ms' },
  { key: 'min_success_rate', label: 'success rate', metrics: ['success_rate'], kind: 'min-rate', chart: 'successRate' },
  { key: 'max_p99_ttft_ms', label: 'p99 TTFT', metrics: ['p99_ttft_ms'], kind: 'max-ms' },
  { key: 'max_p99_tpot_ms', label: 'p99 TPOT', metrics: ['p99_tpot_ms'], kind: 'max-ms' },
  { key: 'max_p99_e2e_ms', label: 'p99 E2E', metrics: ['p99_e2e_ms'], kind: 'max-ms' },
];

export const SLA_KEYS: readonly SlaKey[] = SLA_TARGETS.map((t) => t.key);

/** The keys the playbook accepts in a config's `sla`, in the playbook's order. */
export const PLAYBOOK_SLA_KEYS: readonly SlaKey[] = ['max_p50_ttft_ms', 'max_p50_tpot_ms', 'min_success_rate', 'max_p50_e2e_ms'];

/** The limits a run records in each row's `sla` block (the playbook's keys). */
export const ROW_SLA_KEYS: readonly SlaKey[] = ['max_p50_ttft_ms', 'max_p50_tpot_ms', 'max_p50_e2e_ms', 'min_success_rate'];

/** Deprecated tail limits: still judged as tail limits when a row or a report's plan sets them. */
export const DEPRECATED_SLA: readonly SlaKey[] = ['max_p99_ttft_ms', 'max_p99_tpot_ms', 'max_p99_e2e_ms'];

/** Un-prefixed names of old configs: judged as the p50 limit they were meant to be. */
const LEGACY_NAMES: Readonly<Record<string, SlaKey>> = { max_ttft_ms: 'max_p50_ttft_ms', max_tpot_ms: 'max_p50_tpot_ms', max_e2e_ms: 'max_p50_e2e_ms' };

/** A deprecated or legacy key -> the current key a config should use instead (the playbook's error names it). */
export const SLA_REPLACEMENTS: Readonly<Record<string, SlaKey>> = {
  max_p99_ttft_ms: 'max_p50_ttft_ms',
  max_p99_tpot_ms: 'max_p50_tpot_ms',
  max_p99_e2e_ms: 'max_p50_e2e_ms',
  ...LEGACY_NAMES,
};

/** The percentile a limit judges (`p50`, `p99`), read off the metric it reads first; undefined for a rate. */
export function slaPercentile(key: SlaKey): string | undefined {
  return /^p\d+(?=_)/.exec(slaTarget(key).metrics[0] ?? '')?.[0];
}

/**
 * When renaming a deprecated key to its replacement changes which percentile the limit judges (`max_p99_ttft_ms` ->
 * `max_p50_ttft_ms`: p99 -> p50, so the same value becomes a looser limit): the two percentiles. Undefined for a legacy
 * name (`max_ttft_ms` is read as the p50 limit it was meant to be) and for keys that are not deprecated.
 */
export function slaPercentileChange(key: string): { from: string; to: string } | undefined {
  const replacement = Object.hasOwn(SLA_REPLACEMENTS, key) ? SLA_REPLACEMENTS[key] : undefined;
  if (!replacement || !(SLA_KEYS as readonly string[]).includes(key)) return undefined;
  const from = slaPercentile(key as SlaKey);
  const to = slaPercentile(replacement);
  return from && to && from !== to ? { from, to } : undefined;
}

export function slaTarget(key: SlaKey): SlaTarget {
  return SLA_TARGETS.find((t) => t.key === key) as SlaTarget;
}

export function slaLabel(key: SlaKey): string {
  return SLA_TARGETS.find((t) => t.key === key)?.label ?? key;
}

export interface SlaReading {
  limits: SlaLimits;
  /** Deprecated or legacy keys the mapping used (max_p99_*, max_ttft_ms, ...). */
  deprecated: string[];
  /** Limits the plan did not set that a run applies by default (stated in the report). */
  defaulted?: SlaKey[];
}

/** A run judges success rate even when the plan sets no limit for it: most requests failing is never a pass. */
export const DEFAULT_MIN_SUCCESS_RATE = 0.99;

/** The SLA a run applies: the plan's, with min_success_rate defaulted when the plan has none. */
export function withRunDefaults(r: SlaReading | undefined): SlaReading {
  const base = r ?? { limits: {}, deprecated: [] };
  if (base.limits.min_success_rate !== undefined) return base;
  return { limits: { ...base.limits, min_success_rate: DEFAULT_MIN_SUCCESS_RATE }, deprecated: [...base.deprecated], defaulted: [...(base.defaulted ?? []), 'min_success_rate'] };
}

/** A trial whose completions span longer than its arrivals by more than this fraction did not keep up: saturated. */
export const SATURATION_TOLERANCE = 0.1;

/** A value's number as Python's float() reads it; booleans and NaN are not limits. */
function limitValue(v: unknown): number | undefined {
  if (typeof v === 'boolean') return undefined;
  const raw = v instanceof PyFloat ? v.value : v;
  if (!(typeof raw === 'number' || typeof raw === 'string' || typeof raw === 'bigint')) return undefined;
  const n = pyFloat(raw);
  return n === undefined || Number.isNaN(n) ? undefined : n;
}

/** Limits from an `sla` mapping (a plan's, a row's), whether YAML-, Python-JSON- or plain-JSON-shaped. */
export function readSlaLimits(sla: unknown): SlaReading {
  const limits: SlaLimits = {};
  const deprecated: string[] = [];
  const entries: Array<[unknown, unknown]> = sla instanceof Map ? [...sla.entries()] : sla && typeof sla === 'object' && !Array.isArray(sla) ? Object.entries(sla) : [];
  for (const [k, v] of entries) {
    if (typeof k !== 'string') continue;
    const key = (SLA_KEYS as readonly string[]).includes(k) ? (k as SlaKey) : LEGACY_NAMES[k];
    const n = limitValue(v);
    if (!key || n === undefined) continue;
    if (key !== k || DEPRECATED_SLA.includes(key)) deprecated.push(k);
    // An explicit modern key wins over a legacy spelling of the same target.
    if (key !== k && limits[key] !== undefined) continue;
    limits[key] = n;
  }
  return { limits, deprecated };
}

/** The limits a row records in its `sla` block. */
export function rowSlaBlock(limits: SlaLimits): SlaBlock {
  const out: SlaBlock = {};
  for (const k of ROW_SLA_KEYS) if (limits[k] !== undefined) out[k] = limits[k];
  return out;
}

/** The limits the latency charts draw (null: not set). */
export function chartLimits(limits: SlaLimits): { ttft: number | null; tpot: number | null; successRate: number | null } {
  const out = { ttft: null as number | null, tpot: null as number | null, successRate: null as number | null };
  for (const t of SLA_TARGETS) if (t.chart) out[t.chart] = limits[t.key] ?? null;
  return out;
}

/** The p50 TTFT limit (ms), if the limits set one: for readers outside the SLA code that only need this number. */
export function p50TtftLimitMs(l: SlaLimits): number | undefined {
  return l.max_p50_ttft_ms;
}

/** The p50 TPOT limit (ms), if the limits set one. */
export function p50TpotLimitMs(l: SlaLimits): number | undefined {
  return l.max_p50_tpot_ms;
}

/** The smallest TTFT limit the limits set (p50, or the deprecated p99), or null: what the simulator's TTFT floor is weighed against. */
export function smallestTtftLimitMs(l: SlaLimits | undefined): number | null {
  const xs = [l?.max_p50_ttft_ms, l?.max_p99_ttft_ms].filter((x): x is number => typeof x === 'number' && x > 0);
  return xs.length ? Math.min(...xs) : null;
}
