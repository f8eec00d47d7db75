// The profiler handoff: when SGLang does not win a scenario, name that scenario, its exact lengths
// (or p50/p95 buckets for custom data) and the prefill `input → 1` / decode `1 → output` shapes to
// profile. Never the generic 4090→1 / 1→2048 defaults: unknown lengths are said to be unknown.
import type { PyObject } from '../py/json';
import type { FactsScenario } from './run-facts';
import { pyFloat, pyFormatFixed2, pyGet } from '../py/ops';
import type { HandoffScenario, ProfileShape } from './report-model';

/** Lengths a scenario's rows record: exact pair, or p50/p95 buckets. */
export type ScenarioLengths = HandoffScenario['lengths'];

function num(row: PyObject, path: string): number | undefined {
  const v = pyGet(row, path);
  if (v === undefined || v === null || typeof v === 'boolean') return undefined;
  const f = pyFloat(v);
  return f !== undefined && Number.isFinite(f) && f >= 0 ? f : undefined;
}

/** Lengths from one row: buckets when all four percentiles are there, else the exact pair. */
export function lengthsOfRow(row: PyObject): ScenarioLengths {
  const ip50 = num(row, 'workload.input_len_p50');
  const ip95 = num(row, 'workload.input_len_p95');
  const op50 = num(row, 'workload.output_len_p50');
  const op95 = num(row, 'workload.output_len_p95');
  if (ip50 !== undefined && ip95 !== undefined && op50 !== undefined && op95 !== undefined) {
    // Token counts are whole; a percentile may be interpolated (1799.5), so round it.
    return { kind: 'buckets', inputP50: Math.round(ip50), inputP95: Math.round(ip95), outputP50: Math.round(op50), outputP95: Math.round(op95) };
  }
  const input = num(row, 'workload.input_len');
  const output = num(row, 'workload.output_len');
  if (input !== undefined && output !== undefined) return { kind: 'exact', inputLen: Math.round(input), outputLen: Math.round(output) };
  return { kind: 'unknown' };
}

/** The first row (SGLang rows first) that records lengths, else the plan's scenario of that name. */
export function scenarioLengths(rows: readonly PyObject[], manifestScenario: FactsScenario | undefined): ScenarioLengths {
  const ordered = [...rows.filter((r) => pyGet(r, 'framework') === 'sglang'), ...rows.filter((r) => pyGet(r, 'framework') !== 'sglang')];
  let exact: ScenarioLengths | undefined;
  for (const r of ordered) {
    const l = lengthsOfRow(r);
    if (l.kind === 'buckets') return l;
    if (l.kind === 'exact') exact ??= l;
  }
  if (exact) return exact;
  if (manifestScenario) return { kind: 'exact', inputLen: manifestScenario.inputLen, outputLen: manifestScenario.outputLen };
  return { kind: 'unknown' };
}

const prefill = (bucket: ProfileShape['bucket'], inputLen: number): ProfileShape => ({
  phase: 'prefill',
  bucket,
  inputLen,
  outputLen: 1,
  args: `--prefill-input-len ${inputLen} --prefill-output-len 1`,
});
const decode = (bucket: ProfileShape['bucket'], outputLen: number): ProfileShape => ({
  phase: 'decode',
  bucket,
  inputLen: 1,
  outputLen,
  args: `--decode-input-len 1 --decode-output-len ${outputLen}`,
});

export function profileShapes(l: ScenarioLengths): ProfileShape[] {
  if (l.kind === 'exact') return [prefill('exact', l.inputLen), decode('exact', l.outputLen)];
  if (l.kind === 'buckets') return [prefill('p50', l.inputP50), prefill('p95', l.inputP95), decode('p50', l.outputP50), decode('p95', l.outputP95)];
  return [];
}

export function describeLengths(l: ScenarioLengths): string {
  if (l.kind === 'exact') return `input_len ${l.inputLen}, output_len ${l.outputLen}`;
  if (l.kind === 'buckets') return `input_len p50 ${l.inputP50} / p95 ${l.inputP95}, output_len p50 ${l.outputP50} / p95 ${l.outputP95}`;
  return 'lengths not recorded in the rows or the plan';
}

const rate = (x: number | null) => (x === null ? 'n/a' : `${pyFormatFixed2(x)} req/s`);

export function handoffSummary(h: Omit<HandoffScenario, 'summary'>): string {
  const sg =
    h.sglangCandidate === null
      ? 'SGLang has no SLA-passing candidate here'
      : `SGLang's best is ${h.sglangCandidate} at ${rate(h.sglangRps)}` +
        (h.sglangRps !== null && h.winnerRps !== null && h.winnerRps > 0 ? ` (${Math.round((1 - h.sglangRps / h.winnerRps) * 100)}% behind)` : '');
  return `${h.scenario}: ${h.winnerFramework} wins with ${h.winnerCandidate} at ${rate(h.winnerRps)}; ${sg}.`;
}

/** The note as plain text, for the copy button and the Markdown report. */
export function handoffText(scenarios: readonly HandoffScenario[]): string {
  const out: string[] = ['Profiler handoff: SGLang is not the winner of these scenarios. Profile SGLang (llm-torch-profiler-analysis) with these shapes:'];
  for (const h of scenarios) {
    out.push('', `- ${h.summary}`, `  lengths: ${describeLengths(h.lengths)}`);
    if (h.shapes.length === 0) {
      out.push('  shapes: unknown: record workload.input_len/output_len (or p50/p95 buckets) in the rows; do not fall back to generic defaults');
    }
    for (const s of h.shapes) {
      const shape = s.phase === 'prefill' ? `${s.inputLen} → 1` : `1 → ${s.outputLen}`;
      out.push(`  ${s.phase}${s.bucket === 'exact' ? '' : ` (${s.bucket})`}: ${shape}   ${s.args}`);
    }
    if (h.sglangCommand) out.push(`  SGLang command: ${h.sglangCommand}`);
  }
  return out.join('\n');
}
