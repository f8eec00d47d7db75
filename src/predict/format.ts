// `autobench predict`'s table: one block per file, headed as a PREDICTION of the simulated engine, one line per candidate with its capacity and latencies per scenario, then the leader and the Pareto fronts.
import { SLA_TARGETS } from '../core/sla/limits';
import type { FrameworkCalibrationSource } from './calibrated';
import { modelErrorLines } from './model-error';
import type { PlanFacts } from './folder';
import type { CandidatePrediction, ParetoPoint, PlanPrediction, ScenarioFront, ScenarioPrediction } from './types';

/** The first line of every block: a prediction is never a GPU measurement. */
export const PREDICTED_HEADER = 'PREDICTED (simulated engine model, not measured)';

/** Lines are kept to this width (reasons and front lists are cut with `...`). */
export const TABLE_WIDTH = 120;

const FW_W = 13;
const ID_W = 10;
const GPU_W = 4;
const STATUS_W = 8;
const CELL_W = 9;
const SCEN_W = CELL_W * 3 + 2;

/** `s` cut to `width` characters, `...` marking the cut. */
export function truncate(s: string, width: number): string {
  return s.length <= width ? s : `${s.slice(0, Math.max(0, width - 3))}...`;
}

/** A multi-line reason (a server's error output) on one line. */
function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function num(v: number, digits: number): string {
  return Number.isFinite(v) ? v.toFixed(digits) : '-';
}

/** A capacity as 4 significant digits; `>=` when no simulated rate above it failed (the search ran out of doublings). */
export function capacityText(s: ScenarioPrediction): string {
  if (s.capacity <= 0) return 'none';
  const text = String(Number(s.capacity.toPrecision(4)));
  return unbracketed(s) ? `>=${text}` : text;
}

/** True when the capacity is only a lower bound: every simulated rate passed. */
export function unbracketed(s: ScenarioPrediction): boolean {
  return s.capacity > 0 && !s.curve.some((p) => !p.passed && p.rate > s.capacity);
}

function slaText(sla: Record<string, number>): string {
  const parts = SLA_TARGETS.filter((t) => sla[t.key] !== undefined).map((t) => (t.kind === 'min-rate' ? `${t.label} >= ${sla[t.key]}` : `${t.label} <= ${sla[t.key]} ms`));
  return parts.length ? parts.join(', ') : 'none';
}

function prefix(c: CandidatePrediction): string {
  const gpus = c.gpus > 0 ? String(c.gpus) : '-';
  return `${c.framework.padEnd(FW_W)}${truncate(c.candidate, ID_W - 1).padEnd(ID_W)}${gpus.padStart(GPU_W)}  ${c.status.padEnd(STATUS_W)}`;
}

function scenarioCells(s: ScenarioPrediction | undefined): string {
  if (!s) return ''.padEnd(SCEN_W);
  const at = s.atCapacity;
  return [capacityText(s).padStart(CELL_W), (at ? num(at.p50TtftMs, 1) : '-').padStart(CELL_W), (at ? num(at.p50TpotMs, 2) : '-').padStart(CELL_W)].join(' ');
}

function candidateLine(c: CandidatePrediction, scenarios: readonly string[]): string {
  const head = prefix(c);
  if (c.status !== 'ok') return `${head}${truncate(oneLine(c.reason ?? ''), TABLE_WIDTH - head.length)}`;
  return `${head}${scenarios.map((name) => scenarioCells(c.scenarios.find((s) => s.scenario === name))).join('   ')}`.trimEnd();
}

function headerLines(facts: PlanFacts, scenarios: readonly string[]): string[] {
  const lead = ' '.repeat(FW_W + ID_W + GPU_W + 2 + STATUS_W);
  const names = scenarios.map((name) => {
    const sc = facts.scenarios.find((s) => s.name === name);
    return truncate(`${name}${sc ? ` (${sc.inputLen}/${sc.outputLen} tok)` : ''}`, SCEN_W).padStart(SCEN_W);
  });
  const cols = scenarios.map(() => ['cap req/s', 'TTFT ms', 'TPOT ms'].map((h) => h.padStart(CELL_W)).join(' '));
  return [`${lead}${names.join('   ')}`.trimEnd(), `${'framework'.padEnd(FW_W)}${'candidate'.padEnd(ID_W)}${'GPUs'.padStart(GPU_W)}  ${'status'.padEnd(STATUS_W)}${cols.join('   ')}`];
}

function idOf(x: { framework: string; candidate: string }): string {
  return `${x.framework} ${x.candidate}`;
}

/** The distinct candidates on a front, in the front's order (throughput per GPU ascending). */
export function frontMembers(points: readonly ParetoPoint[]): string[] {
  return [...new Set(points.map(idOf))];
}

/** `label` then the items joined by ', ', wrapped under the first item so no member is cut. */
export function wrapList(label: string, items: readonly string[], width = TABLE_WIDTH): string[] {
  const pad = ' '.repeat(label.length);
  const lines: string[] = [];
  let line = label;
  items.forEach((item, i) => {
    const piece = i < items.length - 1 ? `${item},` : item;
    const fresh = line === label || line === pad;
    if (!fresh && line.length + 1 + piece.length > width) {
      lines.push(line);
      line = pad;
    }
    line = line === label || line === pad ? `${line}${piece}` : `${line} ${piece}`;
  });
  lines.push(line);
  return lines;
}

function frontLines(f: ScenarioFront): string[] {
  const list = (pts: readonly ParetoPoint[]): string[] => (pts.length ? frontMembers(pts) : ['none (no rate meets the SLA)']);
  return [`  ${f.scenario}:`, ...wrapList('    throughput/GPU vs tokens/s per user: ', list(f.byUserTps)), ...wrapList('    throughput/GPU vs p50 TTFT:          ', list(f.byTtft))];
}

function leaderText(f: ScenarioFront, p: PlanPrediction): string {
  if (!f.leader) return `${f.scenario}: none (no candidate meets the SLA at any rate)`;
  const s = p.candidates.find((c) => c.framework === f.leader?.framework && c.candidate === f.leader.candidate)?.scenarios.find((x) => x.scenario === f.scenario);
  return `${f.scenario}: ${idOf(f.leader)} (${s ? capacityText(s) : f.leader.capacity} req/s)`;
}

function footnotes(p: PlanPrediction, facts: PlanFacts): string[] {
  const out: string[] = [];
  if (p.candidates.some((c) => c.scenarios.some(unbracketed))) out.push('>=X: every simulated rate up to X met the SLA; the capacity is at least X');
  for (const n of facts.notPredicted) out.push(truncate(oneLine(`not predicted: ${n}`), TABLE_WIDTH));
  const unit = p.candidates.find((c) => c.basis);
  // Clauses of the unit's basis, then its error: wrapped between clauses.
  if (unit) out.push(...wrapList('P/D units: ', [...(unit.basis ?? '').split(', '), `relative error ~${Math.round(unit.relError * 100)}%`]));
  return out;
}

/** Which store entry calibrated each framework: one line each, the entry in parentheses on a second line when it does not fit. */
function calibrationLines(sources: readonly FrameworkCalibrationSource[]): string[] {
  if (!sources.some((s) => s.store !== null)) return [];
  const out = ["calibration (the model's speed factors, from a store of measured candidates):"];
  for (const s of sources) {
    const line = `  ${s.text}`;
    const cut = line.indexOf(' (');
    if (line.length <= TABLE_WIDTH || cut < 0) out.push(truncate(line, TABLE_WIDTH));
    else {
      const head = line.slice(0, cut);
      out.push(truncate(head, TABLE_WIDTH), truncate(`${' '.repeat(s.framework.length + 4)}${line.slice(cut + 1)}`, TABLE_WIDTH));
    }
  }
  return out;
}

/** The block for one predicted file (with, when a store was consulted, which entry calibrated each framework). */
export function formatPrediction(p: PlanPrediction & { calibration?: FrameworkCalibrationSource[] }, facts: PlanFacts): string {
  const scenarios = p.fronts.map((f) => f.scenario);
  const gpu = p.gpu === 'auto' ? 'auto (per candidate, the smallest that fits)' : p.gpu;
  const fws = p.calibration ?? [];
  const some = fws.filter((s) => s.calibrated).length;
  const cal = !p.calibrated ? `uncalibrated (relative error ~${Math.round((p.candidates[0]?.relError ?? 0.3) * 100)}%)` : some > 0 && some < fws.length ? `calibrated (${some} of ${fws.length} frameworks)` : 'calibrated';
  const lines = [
    `${PREDICTED_HEADER}: ${p.file}`,
    truncate(`model: ${p.model || '?'}   GPU: ${gpu}${facts.gpuOverridden ? ' (--gpu)' : ''}   ${cal}`, TABLE_WIDTH),
    truncate(`model shapes: ${p.modelShapes}`, TABLE_WIDTH),
    ...modelErrorLines(),
    truncate(`SLA: ${slaText(facts.sla)}   concurrency: ${facts.concurrency ?? 'no cap'}`, TABLE_WIDTH),
    ...calibrationLines(p.calibration ?? []),
    'cap: the highest request rate predicted to meet the SLA; TTFT, TPOT: p50 at that rate',
    '',
    ...headerLines(facts, scenarios),
    ...p.candidates.map((c) => candidateLine(c, scenarios)),
  ];
  if (p.candidates.length === 0) lines.push('(no candidate to predict)');
  lines.push('', 'predicted leader (highest capacity):', ...p.fronts.map((f) => `  ${leaderText(f, p)}`));
  lines.push('Pareto front (candidates with a point no other beats on both axes):', ...p.fronts.flatMap(frontLines));
  const notes = footnotes(p, facts);
  if (notes.length) lines.push('', ...notes);
  return `${lines.join('\n')}\n`;
}
