// `autobench predict --at`'s table: one block per file, headed as a PREDICTION, one line per candidate × scenario with
// the load client's throughputs, means and medians at the operating point.
import type { AtPoint, AtPrediction } from './at';
import type { FrameworkCalibrationSource } from './calibrated';
import type { PlanFacts } from './folder';
import { PREDICTED_HEADER, TABLE_WIDTH, truncate, wrapList } from './format';
import { modelErrorLines } from './model-error';

/** The operating point in words. */
export function atText(at: AtPrediction['at']): string {
  const load = at.kind === 'rate' ? `${at.rate} req/s (Poisson arrivals)` : at.kind === 'concurrency' ? `${at.concurrency} requests in flight (closed loop)` : 'every request at once (offline)';
  return `${load}, ${at.requests} requests, arrivals of seed ${at.seed} as the load client sends them`;
}

const cell = (v: number | null, digits: number, w: number): string => (v === null ? '-' : v.toFixed(digits)).padStart(w);

const HEAD = `${'framework'.padEnd(13)} ${'candidate'.padEnd(10)} ${'scenario'.padEnd(14)} ${'req/s'.padStart(8)} ${'tok/s'.padStart(9)} ${'TTFT mean'.padStart(9)} ${'p50'.padStart(8)} ${'TPOT mean'.padStart(9)} ${'p50'.padStart(7)} ${'ITL mean'.padStart(8)} ${'p50'.padStart(7)} ${'E2E p50'.padStart(9)}`;

function line(p: AtPoint): string {
  const id = `${p.framework.padEnd(13)} ${p.candidate.padEnd(10)} ${p.scenario.padEnd(14)}`;
  if (p.status !== 'ok') return truncate(`${id} ${p.status}: ${(p.reason ?? '').replace(/\s+/g, ' ')}`, TABLE_WIDTH);
  const preempt = p.preemptions ? `  (${p.preemptions} preempted)` : '';
  return `${id} ${cell(p.request_throughput, 2, 8)} ${cell(p.output_throughput, 0, 9)} ${cell(p.mean_ttft_ms, 1, 9)} ${cell(p.p50_ttft_ms, 1, 8)} ${cell(p.mean_tpot_ms, 2, 9)} ${cell(p.p50_tpot_ms, 2, 7)} ${cell(p.mean_itl_ms, 2, 8)} ${cell(p.p50_itl_ms, 2, 7)} ${cell(p.p50_e2e_ms, 0, 9)}${preempt}`;
}

/** The block for one file predicted at an operating point. */
export function formatAt(p: AtPrediction & { calibration?: FrameworkCalibrationSource[] }, facts: PlanFacts): string {
  const gpu = p.gpu === 'auto' ? 'auto (per candidate, the smallest that fits)' : p.gpu;
  const cal = p.calibration?.some((s) => s.calibrated) ? 'calibrated' : 'uncalibrated';
  const kv = [...new Set(p.points.filter((x) => x.status === 'ok').map((x) => `${x.framework} ${x.candidate} ${x.kv_capacity_tokens}`))];
  const lines = [
    `${PREDICTED_HEADER}: ${p.file}`,
    truncate(`model: ${p.model || '?'}   GPU: ${gpu}${facts.gpuOverridden ? ' (--gpu)' : ''}   ${cal}`, TABLE_WIDTH),
    truncate(`model shapes: ${p.modelShapes}`, TABLE_WIDTH),
    ...modelErrorLines(),
    truncate(`at: ${atText(p.at)}`, TABLE_WIDTH),
    'throughput: completions over the measured span; latencies in ms (modelled time); ITL: the gap between streamed chunks',
    '',
    HEAD,
    ...p.points.map(line),
  ];
  if (p.points.length === 0) lines.push('(no candidate to predict)');
  if (kv.length) lines.push('', ...wrapList('KV cache (tokens per replica): ', kv));
  for (const n of facts.notPredicted) lines.push(truncate(`not predicted: ${n.replace(/\s+/g, ' ')}`, TABLE_WIDTH));
  return `${lines.join('\n')}\n`;
}
