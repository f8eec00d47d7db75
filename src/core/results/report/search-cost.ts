// The search-cost section: which strategy ran (grid or adaptive) and where it came from, the run's GPU-seconds in
// total, per purpose and per candidate (modelled on the simulator), and for adaptive the grid's predicted
// GPU-seconds, the share spent and the candidates it skipped with their reasons. From the run facts only.
import type { FactsSearchStrategy, RunFacts } from '../run-facts';
import type { GpuTimeEntry, SearchCost } from '../report-model';
import { frameworkCompare } from './values';

const PURPOSE_ORDER = ['smoke', 'search', 'repeat'];

/** GPU-seconds as the report writes them: whole seconds from 100 up, else one decimal. */
export function gpuSecondsText(n: number): string {
  return Math.abs(n) >= 100 ? String(Math.round(n)) : n.toFixed(1);
}

/** A share as a whole percentage ('23%'; '<1%' for a little above nothing). */
function percent(part: number, whole: number): string {
  if (!(whole > 0)) return '';
  const p = (part / whole) * 100;
  return p > 0 && p < 0.5 ? '<1%' : `${Math.round(p)}%`;
}

const SOURCE_TEXT: Record<FactsSearchStrategy['source'], string> = { option: 'from --strategy', plan: "from the plan's search.strategy", default: 'the default' };

/** `vllm c3` → vllm, c3 (the manifest's by_candidate key). */
function splitKey(key: string): { framework: string; candidate: string } {
  const at = key.indexOf(' ');
  return at < 0 ? { framework: '', candidate: key } : { framework: key.slice(0, at), candidate: key.slice(at + 1) };
}

function purposes(byPurpose: Record<string, number>): SearchCost['byPurpose'] {
  const keys = Object.keys(byPurpose);
  const order = [...PURPOSE_ORDER.filter((p) => keys.includes(p)), ...keys.filter((k) => !PURPOSE_ORDER.includes(k))];
  return order.map((purpose) => ({ purpose, gpuSeconds: byPurpose[purpose] ?? 0, text: gpuSecondsText(byPurpose[purpose] ?? 0) }));
}

function candidates(byCandidate: Record<string, number>, total: number): GpuTimeEntry[] {
  return Object.entries(byCandidate).map(([key, s]) => ({ ...splitKey(key), gpuSeconds: s, text: gpuSecondsText(s), share: percent(s, total) }));
}

/** The one sentence: what the run spent, and for adaptive how that compares with the grid's prediction. */
function summaryOf(c: Omit<SearchCost, 'summary'>): string {
  const who = c.strategy?.name ?? 'the run';
  const unit = c.modelled ? 'modelled GPU-s (simulated)' : 'GPU-s';
  if (!c.total) return `${who} ran; its GPU time was not recorded.`;
  const spent = `${who} spent ${c.total.text} ${unit}`;
  if (c.gridPredicted && c.gridShare) return `${spent}, ${c.gridShare} of the ${c.gridPredicted.text} GPU-s the grid would have spent (predicted).`;
  const parts = c.byPurpose.map((p) => `${p.purpose} ${p.text}`);
  return `${spent}${parts.length ? `: ${parts.join(', ')}` : ''}.`;
}

/** The search cost, or null when the run facts record neither a strategy nor GPU time (a plan alone, an older run). */
export function searchCostSection(runFacts: RunFacts | undefined, simulatedRows: number): SearchCost | null {
  const gpu = runFacts?.gpuSeconds;
  const strategy = runFacts?.searchStrategy;
  if (!gpu && !strategy) return null;
  const modelled = Boolean(gpu?.modelled) || simulatedRows > 0;
  const adaptive = strategy?.name === 'adaptive';
  const grid = adaptive && strategy.gridGpuSecondsPredicted !== undefined ? strategy.gridGpuSecondsPredicted : undefined;
  const cost: Omit<SearchCost, 'summary'> = {
    strategy: strategy ? { name: strategy.name, source: strategy.source, from: SOURCE_TEXT[strategy.source] } : null,
    unit: modelled ? 'modelled GPU-seconds (simulated)' : 'GPU-seconds',
    modelled,
    total: gpu ? { gpuSeconds: gpu.total, text: gpuSecondsText(gpu.total) } : null,
    byPurpose: gpu ? purposes(gpu.byPurpose) : [],
    byCandidate: gpu ? candidates(gpu.byCandidate, gpu.total) : [],
    gridPredicted: grid !== undefined ? { gpuSeconds: grid, text: gpuSecondsText(grid) } : null,
    gridShare: grid !== undefined && gpu ? percent(gpu.total, grid) || null : null,
    skipped: [...(strategy?.skipped ?? [])].sort((a, b) => frameworkCompare(a.framework, b.framework)),
    calibration: (strategy?.calibration ?? []).map((k) => ({ framework: k.framework, before: k.beforeMedianError === null ? '' : percent(k.beforeMedianError, 1), after: k.afterMedianError === null ? '' : percent(k.afterMedianError, 1) })),
  };
  return { ...cost, summary: summaryOf(cost) };
}
