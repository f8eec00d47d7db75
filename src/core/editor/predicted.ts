// Predictions in the editor as plain data: what the language server's predict worker sends back, the lens text and the hover line built from it (no predict import here).
import { pyStr, type PyValue } from '../py/value';

/** One predicted candidate: its overrides as `key`/`value` strings (pyStr), and per scenario its predicted SLA capacity (req/s). */
export interface PredictedCandidate {
  id: string;
  overrides: Array<[key: string, value: string]>;
  status: 'ok' | 'oom' | 'fails' | 'skipped';
  reason?: string;
  /** Scenario name -> highest rate predicted to meet the SLA (0: none does). */
  capacity: Record<string, number>;
}

export interface PredictedFramework {
  framework: string;
  /** Candidates in the plan (the budget may have predicted fewer). */
  total: number;
  candidates: PredictedCandidate[];
}

/** A config's prediction, for one document version. */
export interface EditorPrediction {
  /** Scenario names, in the plan's order. */
  scenarios: string[];
  frameworks: PredictedFramework[];
  /** False when the candidate budget or the deadline cut it short. */
  complete: boolean;
  elapsedMs: number;
  /** The model's measured error on published GPU data (predict/model-error.json), said beside every figure. */
  modelError?: ModelErrorNote;
}

/** The part of the model's measured error the editor says: median |error|, over how many published points, when. */
export interface ModelErrorNote {
  medianAbsError: number;
  points: number;
  measured: string;
}

/** What a framework's lens adds: its predicted leader on a scenario (rate 0: no candidate meets the SLA there). */
export interface PredictedLeader {
  candidate: string;
  rate: number;
  scenario: string;
  /** Set when only some candidates were predicted. */
  predicted?: number;
  total?: number;
  /** The model's median error on published GPU data (a share), when the prediction carries it. */
  error?: number;
}

export function formatRate(r: number): string {
  return r >= 100 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toPrecision(2);
}

/** Per framework, the candidate with the highest predicted capacity on the first scenario. */
export function predictedLeaders(p: EditorPrediction | undefined): Map<string, PredictedLeader> {
  const out = new Map<string, PredictedLeader>();
  const scenario = p?.scenarios[0];
  if (!p || scenario === undefined) return out;
  for (const fw of p.frameworks) {
    let best: PredictedCandidate | undefined;
    for (const c of fw.candidates) if (c.status === 'ok' && (c.capacity[scenario] ?? 0) > (best?.capacity[scenario] ?? 0)) best = c;
    const ok = fw.candidates.some((c) => c.status === 'ok');
    if (!best && !ok) continue;
    const leader: PredictedLeader = { candidate: best?.id ?? '', rate: best?.capacity[scenario] ?? 0, scenario };
    if (fw.candidates.length < fw.total) Object.assign(leader, { predicted: fw.candidates.length, total: fw.total });
    if (p.modelError) leader.error = p.modelError.medianAbsError;
    out.set(fw.framework, leader);
  }
  return out;
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** The text a framework's "N candidates" lens appends: ` · predicted best c3 ≈ 12.4 req/s chat (model, median error 16%)`. */
export function leaderLensText(l: PredictedLeader): string {
  const parts = ['model', ...(l.error !== undefined ? [`median error ${pct(l.error)}`] : []), ...(l.total !== undefined ? [`${l.predicted ?? 0} of ${l.total} predicted`] : [])];
  const note = parts.join(', ');
  if (l.rate <= 0) return ` · predicted: none meets the SLA on ${l.scenario} (${note})`;
  return ` · predicted best ${l.candidate} ≈ ${formatRate(l.rate)} req/s ${l.scenario} (${note})`;
}

/** `predicted (simulated engine model, uncalibrated; median error 16% on 1227 published GPU points, measured 2026-12-07):` */
function hoverPrefix(p: EditorPrediction): string {
  const e = p.modelError;
  const err = e ? `; median error ${pct(e.medianAbsError)} on ${e.points} published GPU points, measured ${e.measured}` : '';
  return `predicted (simulated engine model, uncalibrated${err}):`;
}

function percent(v: number, base: number): string {
  if (base <= 0) return '';
  const d = Math.round((v / base - 1) * 100);
  return ` (${d >= 0 ? '+' : ''}${d}%)`;
}

/**
 * The hover line for a search-space value: the first predicted candidate that sets `key=value`, per scenario against
 * the baseline. Undefined when no prediction covers the framework.
 */
export function predictedEffect(p: EditorPrediction | undefined, framework: string, key: string, value: PyValue): string | undefined {
  const fw = p?.frameworks.find((f) => f.framework === framework);
  if (!p || !fw) return undefined;
  const v = pyStr(value);
  const setting = `${key}=${v}`;
  const cand = fw.candidates.find((c) => c.overrides.some(([k, x]) => k === key && x === v));
  const prefix = hoverPrefix(p);
  if (!cand) return `${prefix} no predicted candidate sets ${setting}`;
  if (cand.status !== 'ok') {
    const what = cand.status === 'oom' ? 'out of memory at startup' : cand.status === 'fails' ? 'fails at startup' : 'skipped';
    return `${prefix} ${setting} → ${what}${cand.reason ? `: ${cand.reason}` : ''}`;
  }
  const base = fw.candidates.find((c) => c.id === 'baseline' && c.status === 'ok');
  const parts = p.scenarios.map((s) => {
    const r = cand.capacity[s] ?? 0;
    const b = base?.capacity[s];
    return `${s} ${formatRate(r)} req/s${b === undefined ? '' : ` vs baseline ${formatRate(b)}${percent(r, b)}`}`;
  });
  return `${prefix} ${setting} → ${parts.join(', ')}`;
}
