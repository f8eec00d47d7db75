// The prompts of a run: a tokenizer (the given one, the plan's local one, or the simulator's own on sim), and one workload per scenario built once with the plan's seed.
import { existsSync } from 'node:fs';
import type { Scenario } from '../core/config/model';
import { PlanError, type RunPlan } from '../core/plan/types';
import { buildWorkload } from '../core/workload/build';
import { loadTokenizer, type TokenizerLike } from '../core/workload/tokenizer';
import type { Workload } from '../core/workload/types';
import { SIM_TOKENIZER_ARG, SimTokenizer } from './sim-tokenizer';

/** Set 0 is the plan's seed (the prompts of earlier versions); each further set its own. */
export function promptSeed(seed: number, set: number): number {
  return set === 0 ? seed : seed + 7919 * set;
}

export class Workloads {
  private readonly byScenario = new Map<string, Workload>();

  constructor(
    private readonly plan: RunPlan,
    /** The run's tokenizer: prompts are built with it, and output tokens counted with it where a server reports no usage. */
    readonly tokenizer: TokenizerLike,
    /** Where the tokenizer came from, in words (the manifest records it). */
    readonly note: string,
    /** The `--tokenizer` value that loads it again (a benchmark command's). */
    readonly arg: string,
  ) {}

  /** Throws PlanError when prompts of exact length cannot be built (no local tokenizer off the simulator). */
  static open(plan: RunPlan, given: string | undefined, simulated: boolean): Workloads {
    const path = given ?? (plan.tokenizer && existsSync(plan.tokenizer) ? plan.tokenizer : undefined);
    if (path) return new Workloads(plan, loadTokenizer(path), path, path);
    if (simulated) return new Workloads(plan, new SimTokenizer(), 'the simulated engine tokenizer (prompts counted exactly as the sim counts them)', SIM_TOKENIZER_ARG);
    throw new PlanError('the plan cannot run', [`a tokenizer is needed to build prompts of exact length: give --tokenizer PATH (a local tokenizer.json or model folder); ${plan.tokenizer ? `'${plan.tokenizer}' is not a local path` : 'the plan names none'}`]);
  }

  /**
   * The prompts of one scenario's prompt set `set` (a trial's index within its candidate and scenario): every
   * trial gets prompts no earlier trial on that server sent, and every framework's k-th trial the same ones. A
   * lengthened trial (`factor` × the plan's prompts) draws a set of its own: its first attempt's prompts are cached.
   */
  for(sc: Scenario, set = 0, factor = 1): Workload {
    const key = `${sc.name}\u0000${set}\u0000${factor}`;
    let w = this.byScenario.get(key);
    if (!w) {
      const b = this.plan.bench;
      w = buildWorkload({ datasetName: b.datasetKind, numPrompts: b.numPrompts * factor, randomInputLen: sc.inputLen, randomOutputLen: sc.outputLen, randomRangeRatio: 1, seed: promptSeed(b.seed, set) + (factor > 1 ? 104_729 * factor : 0) }, this.tokenizer);
      for (const r of w.rows) r.scenario = sc.name;
      this.byScenario.set(key, w);
    }
    return w;
  }
}
