// The editor's prediction of one config text, under a budget: at most N candidates (each framework's baseline first, then round robin) and a deadline, checked between candidates; plain data out.
import type { Candidate } from '../core/candidates/candidate';
import type { EditorPrediction, PredictedCandidate, PredictedFramework } from '../core/editor/predicted';
import type { FrameworkKey } from '../core/frameworks/types';
import { readRunPlan } from '../core/plan/build';
import type { RunPlan } from '../core/plan/types';
import { pyStr } from '../core/py/value';
import { predictCandidate } from './plan';
import { MODEL_ERROR } from './model-error';

export interface EditorPredictInput {
  text: string;
  /** The document's path ('' when it has none): the snapshot resolver reads modelines and manifests beside it. */
  path: string;
  settingHelpDir?: string;
  workspaceRoots?: string[];
}

export interface EditorPredictOptions {
  /** At most this many candidates per file. */
  maxCandidates: number;
  /** Stop starting candidates after this many ms (a candidate already started finishes). */
  deadlineMs: number;
  /** Checked between candidates: true stops the job (a newer version replaced it) and returns undefined. */
  cancelled?: () => boolean;
}

export const EDITOR_MAX_CANDIDATES = 40;
export const EDITOR_DEADLINE_MS = 2000;

/** Baselines first, then each framework's next candidate in turn, up to `max`. */
function budgetOrder(plan: RunPlan, max: number): Array<[FrameworkKey, Candidate]> {
  const lists = plan.frameworks.filter((f) => f.status === 'run').map((f) => f.candidates.map((c): [FrameworkKey, Candidate] => [f.framework, c]));
  const out: Array<[FrameworkKey, Candidate]> = [];
  for (let i = 0; out.length < max && lists.some((l) => i < l.length); i++) {
    for (const l of lists) if (l[i] && out.length < max) out.push(l[i]!);
  }
  return out;
}

function predictOne(plan: RunPlan, fw: FrameworkKey, cand: Candidate, hints: Map<string, number>): PredictedCandidate {
  const overrides = [...cand.overrides].map(([k, v]): [string, string] => [k, pyStr(v)]);
  try {
    const p = predictCandidate(plan, fw, cand, hints);
    const capacity: Record<string, number> = {};
    for (const s of p.scenarios) capacity[s.scenario] = s.capacity;
    return { id: cand.id, overrides, status: p.status, ...(p.reason ? { reason: p.reason } : {}), capacity };
  } catch (e) {
    return { id: cand.id, overrides, status: 'fails', reason: `prediction failed: ${(e as Error).message}`, capacity: {} };
  }
}

/** Undefined when cancelled, or when the config has nothing to predict (no scenario, no framework that runs). */
export function predictForEditor(input: EditorPredictInput, o: EditorPredictOptions): EditorPrediction | undefined {
  const t0 = performance.now();
  const plan = readRunPlan({ text: input.text, path: input.path }, { ...(input.settingHelpDir ? { settingHelpDir: input.settingHelpDir } : {}), workspaceRoots: input.workspaceRoots ?? [] });
  const running = plan.frameworks.filter((f) => f.status === 'run' && f.candidates.length > 0);
  if (plan.scenarios.length === 0 || running.length === 0 || o.cancelled?.()) return undefined;
  const frameworks = new Map<string, PredictedFramework>(running.map((f) => [f.framework, { framework: f.framework, total: f.candidates.length, candidates: [] }]));
  const hints = new Map<string, Map<string, number>>(running.map((f) => [f.framework, new Map()]));
  const order = budgetOrder(plan, o.maxCandidates);
  let done = 0;
  for (const [fw, cand] of order) {
    if (o.cancelled?.()) return undefined;
    if (performance.now() - t0 > o.deadlineMs) break;
    frameworks.get(fw)!.candidates.push(predictOne(plan, fw, cand, hints.get(fw)!));
    done++;
  }
  const total = running.reduce((n, f) => n + f.candidates.length, 0);
  const modelError = { medianAbsError: MODEL_ERROR.median_abs_error, points: MODEL_ERROR.points, measured: MODEL_ERROR.measured };
  return { scenarios: plan.scenarios.map((s) => s.name), frameworks: [...frameworks.values()], complete: done === total, elapsedMs: performance.now() - t0, modelError };
}
