// Which stage bounded a P/D unit's SLA capacity, per scenario: read at the first rate its search found over the SLA
// (else its highest passing one) against its lowest measured rate. A TPOT miss alone is its decode workers'; a TTFT or
// E2E miss goes to the stage whose share of the TTFT grew most: prefill (its queue and prefill), the KV transfer,
// decode (its queue and first token), or the router (what the measured TTFT holds beyond the workers' split). The split
// is the simulated router's where a row has it, else the workers' own /metrics (pd_metrics, real units too).
import type { PyJson, PyObject } from '../../py/json';
import { pyFloat, pyGet, pyStr } from '../../py/ops';
import type { Work } from './work';

export type Stage = 'prefill' | 'transfer' | 'decode' | 'router' | 'unknown';

export interface LimitingStage {
  scenario: string;
  framework: string;
  candidate: string;
  stage: Stage;
  /** The rate it was read at (req/s) and whether that rate missed the SLA. */
  rate: number;
  overSla: boolean;
  /** In words: what missed, and how much each stage grew. */
  because: string;
}

function num(v: PyJson | undefined): number | undefined {
  const n = v === undefined || v === null || typeof v === 'boolean' ? undefined : pyFloat(v);
  return n === undefined || !Number.isFinite(n) ? undefined : n;
}

const rateOf = (row: PyObject): number => num(pyGet(row, 'trial.rate')) ?? num(pyGet(row, 'workload.request_rate')) ?? NaN;

type Shares = Record<Exclude<Stage, 'unknown'>, number>;

/**
 * Stage shares of the TTFT (ms): prefill, transfer, decode, and the router's rest of the measured TTFT. From the
 * simulated router's split (medians against the p50 TTFT) where the row has one, else from the workers' own metrics
 * (means against the mean TTFT); a transfer the metrics do not give on its own is left inside the decode queue.
 */
function sharesOf(row: PyObject): Shares | undefined {
  return splitShares(row) ?? metricShares(row);
}

function splitShares(row: PyObject): Shares | undefined {
  const p = (k: string): number | undefined => num(pyGet(row, `pd_split.p50.${k}`));
  const [pq, pf, tr, dq, fd, ttft] = ['prefill_queue_ms', 'prefill_ms', 'transfer_ms', 'decode_queue_ms', 'first_decode_ms', 'ttft_ms'].map(p);
  const measured = num(pyGet(row, 'metrics.p50_ttft_ms')) ?? num(pyGet(row, 'metrics.median_ttft_ms'));
  if ([pq, pf, tr, dq, fd, ttft, measured].some((x) => x === undefined)) return undefined;
  return { prefill: (pq as number) + (pf as number), transfer: tr as number, decode: (dq as number) + (fd as number), router: Math.max(0, (measured as number) - (ttft as number)) };
}

function metricShares(row: PyObject): Shares | undefined {
  const m = (k: string): number | undefined => num(pyGet(row, `pd_metrics.mean_ms.${k}`));
  const [pq, pf, dq, fd] = ['prefill_queue_ms', 'prefill_ms', 'decode_queue_ms', 'first_decode_ms'].map(m);
  const tr = m('transfer_ms') ?? 0;
  const measured = num(pyGet(row, 'metrics.mean_ttft_ms'));
  if ([pq, pf, dq, fd, measured].some((x) => x === undefined)) return undefined;
  const prefill = (pq as number) + (pf as number);
  const decode = (dq as number) + (fd as number);
  return { prefill, transfer: tr, decode, router: Math.max(0, (measured as number) - prefill - tr - decode) };
}

/** Why a row has no shares: its workers' metrics' notes where it has that block. */
function noSharesWhy(row: PyObject): string {
  const notes = pyGet(row, 'pd_metrics.notes');
  const said = Array.isArray(notes) ? notes.filter((n): n is string => typeof n === 'string') : [];
  if (pyGet(row, 'pd_metrics') !== undefined) return `its workers\u2019 /metrics gave no complete split${said.length ? ` (${said.join('; ')})` : ''}`;
  return 'the rows have no per-role TTFT split (neither the simulated router\u2019s nor the workers\u2019 /metrics)';
}

/** Which basis the shares came from, for the sentence. */
const basisOf = (row: PyObject): string => (splitShares(row) ? 'p50 TTFT parts' : 'mean TTFT parts (workers\u2019 /metrics)');

const ms = (x: number): string => `${x >= 100 ? Math.round(x) : Math.round(x * 10) / 10} ms`;

/** The stage of one unit in one scenario, from its measured trials (search and repeats). */
function stageOf(ws: readonly Work[]): Omit<LimitingStage, 'scenario' | 'framework' | 'candidate'> | undefined {
  const measured = ws.filter((w) => pyGet(w.row, 'status') === 'ok' && Number.isFinite(rateOf(w.row))).sort((a, b) => rateOf(a.row) - rateOf(b.row));
  const low = measured[0];
  if (!low) return undefined;
  const best = measured.filter((w) => w.verdict.passed).pop();
  const over = measured.find((w) => !w.verdict.passed && (!best || rateOf(w.row) > rateOf(best.row)));
  const at = over ?? best ?? low;
  const rate = rateOf(at.row);
  const missed = at.verdict.checks.filter((c) => !c.passed && c.value !== undefined).map((c) => c.key);
  const missText = missed.length ? `misses ${missed.join(', ')} at ${rate} req/s` : `highest passing rate ${rate} req/s`;
  if (missed.length && missed.every((k) => k.includes('tpot'))) return { stage: 'decode', rate, overSla: true, because: `${missText}: inter-token latency is the decode workers' batch` };
  const a = sharesOf(low.row);
  const b = sharesOf(at.row);
  if (!a || !b) return { stage: 'unknown', rate, overSla: !!over, because: `${missText}; ${noSharesWhy(a ? at.row : low.row)}` };
  // Measured at one rate only: nothing to compare with, so the stage holding the largest share of the p50 TTFT.
  if (low === at) {
    const shares = (Object.keys(b) as Array<keyof typeof b>).map((k) => ({ k, d: b[k] })).sort((x, y) => y.d - x.d);
    const top = shares[0] as { k: Exclude<Stage, 'unknown'>; d: number };
    return { stage: top.k, rate, overSla: !!over, because: `${missText}, its lowest measured rate; ${basisOf(at.row)} there: ${shares.map((g) => `${g.k} ${ms(g.d)}`).join(', ')}` };
  }
  const growth = (Object.keys(b) as Array<keyof typeof b>).map((k) => ({ k, d: b[k] - a[k] })).sort((x, y) => y.d - x.d);
  const top = growth[0] as { k: Exclude<Stage, 'unknown'>; d: number };
  const parts = growth.map((g) => `${g.k} ${g.d >= 0 ? '+' : ''}${ms(g.d)}`).join(', ');
  return { stage: top.k, rate, overSla: !!over, because: `${missText}; ${basisOf(at.row)} grew from ${rateOf(low.row)} req/s: ${parts}` };
}

/** Per scenario and P/D unit (rows with pd_unit), the stage that bounded its SLA capacity. */
export function limitingStages(work: readonly Work[], scenarios: readonly string[]): LimitingStage[] {
  const out: LimitingStage[] = [];
  for (const scenario of scenarios) {
    const units = new Map<string, Work[]>();
    for (const w of work) {
      if (w.scenario !== scenario || w.smoke || pyGet(w.row, 'pd_unit') === undefined || pyGet(w.row, 'trial.superseded') === true) continue;
      const mode = pyGet(w.row, 'trial.mode');
      if (mode !== 'search' && mode !== 'repeat' && mode !== 'fixed') continue;
      const k = `${w.framework}\u0000${pyStr(pyGet(w.row, 'candidate_id') ?? '')}`;
      units.set(k, [...(units.get(k) ?? []), w]);
    }
    for (const [k, ws] of units) {
      const [framework, candidate] = k.split('\u0000') as [string, string];
      const s = stageOf(ws);
      if (s) out.push({ scenario, framework, candidate, ...s });
    }
  }
  return out;
}
