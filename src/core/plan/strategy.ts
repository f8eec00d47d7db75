// The search strategy: which candidates of the bounded list a run measures. `grid` measures every one in order;
// `adaptive` predicts each with the engine model, measures those that can still win and skips the rest with a reason.
// The plan's `search.strategy` names it, `--strategy` overrides it, and the default lives here, once.
import { FRAMEWORKS, isFrameworkKey, type FrameworkKey } from '../frameworks/types';
import type { Obj } from './read-json';
import type { PlanSearchStrategy, RunPlan, SearchStrategyName } from './types';

export type { PlanSearchStrategy, SearchStrategyName } from './types';

/** Every strategy, in the order messages and help name them. */
export const SEARCH_STRATEGIES: readonly SearchStrategyName[] = ['grid', 'adaptive'];

/** The strategy of a run whose plan and command line name none. */
export const DEFAULT_SEARCH_STRATEGY: SearchStrategyName = 'adaptive';

/** What each strategy does, in one line (help texts). */
export const SEARCH_STRATEGY_TEXT: Readonly<Record<SearchStrategyName, string>> = {
  grid: "the playbook's exact bounded list, every candidate measured",
  adaptive: 'predict with the engine model, measure the candidates that can still win, skip the rest with the reason',
};

/** Where the strategy of a run came from: `--strategy` (RunOptions.strategy), the plan's search.strategy, or the default. */
export type StrategySource = 'option' | 'plan' | 'default';

export interface ResolvedStrategy {
  name: SearchStrategyName;
  source: StrategySource;
}

export function isSearchStrategy(v: unknown): v is SearchStrategyName {
  return typeof v === 'string' && (SEARCH_STRATEGIES as readonly string[]).includes(v);
}

/** `grid or adaptive`: the allowed values as a message names them. */
export const STRATEGY_CHOICES = SEARCH_STRATEGIES.join(' or ');

/** The value as a message quotes it: strings in quotes, anything else as JSON (`null`, `3`, `[...]`). */
const shown = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : (JSON.stringify(v) ?? String(v)));

/** The plan's `search.strategy` (a `search:` block's plain-JSON view); a value that is no strategy is a problem that keeps the plan from running. */
export function readSearchStrategy(search: Obj, problems: string[]): PlanSearchStrategy {
  if (!('strategy' in search)) return { name: DEFAULT_SEARCH_STRATEGY, source: 'default' };
  const v = search.strategy;
  if (isSearchStrategy(v)) return { name: v, source: 'plan' };
  problems.push(`search.strategy must be ${STRATEGY_CHOICES}, got ${shown(v)} (grid: ${SEARCH_STRATEGY_TEXT.grid}; adaptive: ${SEARCH_STRATEGY_TEXT.adaptive})`);
  return { name: DEFAULT_SEARCH_STRATEGY, source: 'default' };
}

/** The strategy a run uses: `--strategy` (RunOptions.strategy) over the plan's search.strategy over the default. */
export function resolveStrategy(plan: Pick<RunPlan, 'searchStrategy'>, opts: { strategy?: SearchStrategyName | undefined }): ResolvedStrategy {
  if (opts.strategy !== undefined) return { name: opts.strategy, source: 'option' };
  return { name: plan.searchStrategy.name, source: plan.searchStrategy.source };
}

/** One `--force` value: `FRAMEWORK:ID` (`vllm:c3`) names one candidate, a bare `ID` (`c3`) that id in every framework. */
export interface ForcedCandidate {
  framework?: FrameworkKey;
  candidate: string;
}

/** Parses a `--force` value; a string says what is wrong with it. */
export function parseForced(spec: string): ForcedCandidate | string {
  const s = spec.trim();
  const colon = s.indexOf(':');
  const fw = colon < 0 ? undefined : s.slice(0, colon);
  const id = colon < 0 ? s : s.slice(colon + 1);
  if (fw !== undefined && !isFrameworkKey(fw)) return `unknown framework '${fw}' in '${spec}'; give FRAMEWORK:ID with one of ${FRAMEWORKS.join(', ')}, or just ID`;
  if (!/^[A-Za-z0-9_.-]+$/.test(id)) return `'${spec}' is not a candidate; give FRAMEWORK:ID (e.g. vllm:c3) or just ID (e.g. c3)`;
  return fw !== undefined && isFrameworkKey(fw) ? { framework: fw, candidate: id } : { candidate: id };
}

/** Whether `--force` (RunOptions.force) names this candidate: adaptive measures it even when it would skip it. */
export function isForced(force: readonly string[] | undefined, framework: string, candidateId: string): boolean {
  for (const spec of force ?? []) {
    const f = parseForced(spec);
    if (typeof f !== 'string' && f.candidate === candidateId && (f.framework === undefined || f.framework === framework)) return true;
  }
  return false;
}

/**
 * manifest.json's `search_strategy` (written by the runner, read by the report's run facts): which strategy ran and
 * where it came from, the candidates it measured and skipped, and for adaptive what the grid would have cost.
 */
export interface SearchStrategyRecord {
  name: SearchStrategyName;
  source: StrategySource;
  /** Candidates measured, each `<framework> <candidateId>` (the keys of gpu_seconds.by_candidate). */
  measured: string[];
  /** Candidates adaptive did not measure, with why. */
  skipped: Array<{ framework: string; candidate: string; reason: string }>;
  /** adaptive: searches stopped at their floor, the rate that failed (under it the candidate could neither win nor tie). */
  stopped?: Array<{ framework: string; candidate: string; scenario: string; rate: number }>;
  /** adaptive: the GPU-seconds the grid (every candidate) would have spent, as predicted by the engine model. */
  grid_gpu_seconds_predicted?: number;
  /** adaptive: per framework, the model's median relative prediction error before and after calibrating on the measured candidates. */
  calibration?: Array<{ framework: string; before_median_error: number | null; after_median_error: number | null }>;
}
