// The caveats a reader must see before trusting the numbers: simulated or synthetic data, smoke
// rows, bounded or uneven searches, substitutions, unfair comparisons, SLA oddities, scenarios
// without a winner and schema problems. Their order is the report's order.
import { pyGet } from '../../py/ops';
import type { RunFacts } from '../run-facts';
import type { BestEntry, Caveat } from '../report-model';
import { fmtValue } from '../compare';
import { distinct, numberOf, strAt } from './values';
import type { Work } from './work';
import { ttftFloorText } from './ttft-floor';

const SYNTHETIC_KINDS = new Set(['random', 'random-ids', 'generated-shared-prefix', 'image']);

export interface CaveatInput {
  work: readonly Work[];
  runFacts: RunFacts | undefined;
  scenarios: readonly string[];
  frameworks: readonly string[];
  best: readonly BestEntry[];
  simulatedRows: number;
  /** Dataset kinds and load clients, as the workload section found them. */
  kinds: readonly string[];
  clients: readonly string[];
  deprecatedKeys: ReadonlySet<string>;
  /** Schema problems found while reading the rows. */
  issueCount: number;
}

/** What the data is: simulated, synthetic, smoke settings, too few prompts to compare. */
function dataCaveats(c: CaveatInput, out: Caveat[]): void {
  if (c.simulatedRows > 0) {
    out.push({ kind: 'simulated', text: `${c.simulatedRows} of ${c.work.length} rows come from the built-in simulated engine: their numbers are simulated, not performance results.` });
    const floor = ttftFloorText(c.work);
    if (floor) out.push({ kind: 'simulated', text: floor });
  }
  const synthetic = c.kinds.filter((k) => SYNTHETIC_KINDS.has(k));
  if (synthetic.length) {
    out.push({ kind: 'synthetic', text: `Synthetic workload (${synthetic.join(', ')}): good for bring-up and a first comparison, not enough to choose a production deployment; rerun with the real request distribution.` });
  }
  const smokeRows = c.work.filter((w) => w.smoke).length;
  const claimed = c.work.filter((w) => pyGet(w.row, 'hardware.gpu_model_source') === 'plan').length;
  if (claimed) out.push({ kind: 'fairness', text: `${claimed} row(s) name their GPU from the plan's hardware.gpu_model only: nvidia-smi did not run on the target, so the GPU was not checked.` });
  if (smokeRows) out.push({ kind: 'smoke', text: `${smokeRows} smoke row(s) (smoke: true, eager mode or CUDA graphs off): shown, never chosen as best.` });
  const flowCheck = c.work.filter((w) => {
    const n = numberOf(pyGet(w.row, 'workload.num_prompts'));
    return n !== null && n <= 20;
  }).length;
  if (flowCheck) out.push({ kind: 'smoke', text: `${flowCheck} row(s) measured with 20 prompts or fewer: a flow check, not a throughput comparison.` });
}

/** How complete the search was: the budget's cut, and frameworks measured much less than the deepest. */
function searchCaveats(c: CaveatInput, out: Caveat[]): void {
  for (const f of c.runFacts?.frameworks ?? []) {
    if (!f.enabled || f.userExcluded) continue;
    if (f.untried.length > 0) {
      const list = f.untried.slice(0, 6).join(', ') + (f.untried.length > 6 ? `, … (${f.untried.length})` : '');
      out.push({ kind: 'incomplete-search', text: `${f.framework}: the bounded search lists ${f.candidates} candidates out of ${f.totalCombinations} combinations; never tried: ${list}.` });
    } else if (f.totalCombinations > f.candidates - 1) {
      // The baseline is candidate 0; the rest come from the search space.
      out.push({ kind: 'incomplete-search', text: `${f.framework}: the budget (max_candidates_per_framework) lists ${f.candidates} candidates for ${f.totalCombinations} search combinations; the search is bounded, not exhaustive.` });
    }
  }
  const measuredPerFw = new Map<string, Set<string>>();
  for (const w of c.work) {
    if (pyGet(w.row, 'status') !== 'ok') continue;
    const s = measuredPerFw.get(w.framework) ?? new Set<string>();
    s.add(fmtValue(pyGet(w.row, 'candidate_id')));
    measuredPerFw.set(w.framework, s);
  }
  const deepest = Math.max(0, ...[...measuredPerFw.values()].map((s) => s.size));
  for (const fw of c.frameworks) {
    const n = measuredPerFw.get(fw)?.size ?? 0;
    if (deepest >= 2 && n < deepest / 2) out.push({ kind: 'incomplete-search', text: `${fw}: ${n} candidate(s) measured against ${deepest} for the deepest framework; its search is not as complete.` });
  }
}

/** Whether the rows compare like with like: flags the runner replaced, load clients, GPU counts. */
function fairnessCaveats(c: CaveatInput, out: Caveat[]): void {
  for (const s of c.runFacts?.substitutions ?? []) {
    out.push({ kind: 'substitution', text: `${s.framework ? `${s.framework}: ` : ''}${s.from}${s.to ? ` replaced by ${s.to}` : ' dropped'}${s.reason ? ` (${s.reason})` : ''}.` });
  }
  if (c.clients.length > 1) out.push({ kind: 'fairness', text: `Rows were measured by different load clients (${c.clients.join('; ')}); compare them side by side only with care.` });
  const gpuCounts = distinct(c.work.filter((w) => pyGet(w.row, 'status') === 'ok').map((w) => strAt(w.row, 'hardware.gpu_count')));
  if (gpuCounts.length > 1) out.push({ kind: 'fairness', text: `GPU counts differ between rows (${gpuCounts.join(', ')}); fewer GPUs only break ties.` });
}

/**
 * Servers report cached prompt tokens only when asked: SGLang with `--enable-cache-report` (its UsageInfo
 * `prompt_tokens_details`, python/sglang/srt/entrypoints/openai/protocol.py @004c82e0), vLLM with
 * `--enable-prompt-tokens-details`, TokenSpeed's engine with `--enable-cache-report` (still an engine flag @f4d8ec6e);
 * TensorRT-LLM always fills them.
 */
const CACHE_REPORT_FLAG: Record<string, string> = { sglang: '--enable-cache-report', tokenspeed: '--enable-cache-report', vllm: '--enable-prompt-tokens-details' };

/** A framework whose measured rows have no cache hit rate while another's do: its empty column is unreported, not zero. */
function cacheReportCaveats(c: CaveatInput, out: Caveat[]): void {
  const ok = c.work.filter((w) => pyGet(w.row, 'status') === 'ok');
  const has = (w: Work): boolean => numberOf(pyGet(w.row, 'metrics.cache_hit_rate')) !== null;
  if (!ok.some(has)) return;
  for (const fw of c.frameworks) {
    const rows = ok.filter((w) => w.framework === fw);
    if (!rows.length || rows.some(has)) continue;
    const flag = CACHE_REPORT_FLAG[fw];
    const started = flag !== undefined && rows.some((w) => ` ${strAt(w.row, 'server_command')} `.includes(` ${flag} `));
    const why = !flag
      ? 'its server sent no prompt_tokens_details.cached_tokens'
      : started
        ? `its server sent no prompt_tokens_details.cached_tokens although started with ${flag}`
        : `its server reports cached tokens only when started with ${flag}; add it to base_server_flags to fill the column`;
    out.push({ kind: 'fairness', text: `${fw}: Cache hit is empty, not zero: ${why}.` });
  }
}

/** Stale sla.passed values, deprecated SLA keys, and scenarios no candidate won. */
function slaCaveats(c: CaveatInput, out: Caveat[]): void {
  const disagree = c.work.filter((w) => w.verdict.disagrees);
  if (disagree.length) {
    const first = disagree[0] as Work;
    out.push({
      kind: 'sla',
      text: `${disagree.length} row(s) carry an sla.passed that the metrics contradict; the report uses the recomputed verdict (e.g. line ${first.rec.line}: ${first.verdict.reasons[0] ?? 'passes'}).`,
    });
  }
  if (c.deprecatedKeys.size) out.push({ kind: 'sla', text: `Deprecated SLA keys were applied (${[...c.deprecatedKeys].join(', ')}); use the max_p50_* names.` });
  for (const sc of c.scenarios) {
    if (!c.best.some((b) => b.scenario === sc)) out.push({ kind: 'no-winner', text: `Scenario ${sc}: no candidate passed the SLA; there is no best command for it.` });
  }
}

export function caveatList(c: CaveatInput): Caveat[] {
  const caveats: Caveat[] = [];
  dataCaveats(c, caveats);
  searchCaveats(c, caveats);
  fairnessCaveats(c, caveats);
  cacheReportCaveats(c, caveats);
  slaCaveats(c, caveats);
  if (c.issueCount) caveats.push({ kind: 'schema', text: `${c.issueCount} schema problem(s) in the rows (listed under Input problems); those fields may be misread.` });
  return caveats;
}
