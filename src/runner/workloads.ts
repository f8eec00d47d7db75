// The prompts of a run: a tokenizer (the given one, the plan's local one, or the simulator's own on sim), and one workload per scenario built once with the plan's seed.
import { existsSync } from 'node:fs';
import type { Scenario } from '../core/config/model';
import { PlanError, type RunPlan } from '../core/plan/types';
import { buildWorkload } from '../core/workload/build';
import { loadTokenizer, type TokenizerLike } from '../core/workload/tokenizer';
import type { Workload } from '../core/workload/types';
import { SimTokenizer } from './sim-tokenizer';

export class Workloads {
  private readonly byScenario = new Map<string, Workload>();

  constructor(
    private readonly plan: RunPlan,
    private readonly tokenizer: TokenizerLike,
    /** Where the tokenizer came from, in words (the manifest records it). */
    readonly note: string,
  ) {}

  /** Throws PlanError when prompts of exact length cannot be built (no local tokenizer off the simulator). */
  static open(plan: RunPlan, given: string | undefined, simulated: boolean): Workloads {
    const path = given ?? (plan.tokenizer && existsSync(plan.tokenizer) ? plan.tokenizer : undefined);
    if (path) return new Workloads(plan, loadTokenizer(path), path);
    if (simulated) return new Workloads(plan, new SimTokenizer(), 'the simulated engine tokenizer (prompts counted exactly as the sim counts them)');
    throw new PlanError('the plan cannot run', [`a tokenizer is needed to build prompts of exact length: give --tokenizer PATH (a local tokenizer.json or model folder); ${plan.tokenizer ? `'${plan.tokenizer}' is not a local path` : 'the plan names none'}`]);
  }

  /** Built once per scenario with a fixed seed: every framework and candidate gets the same prompts. */
  for(sc: Scenario): Workload {
    let w = this.byScenario.get(sc.name);
    if (!w) {
      const b = this.plan.bench;
      w = buildWorkload({ datasetName: b.datasetKind, numPrompts: b.numPrompts, randomInputLen: sc.inputLen, randomOutputLen: sc.outputLen, randomRangeRatio: 1, seed: b.seed }, this.tokenizer);
      for (const r of w.rows) r.scenario = sc.name;
      this.byScenario.set(sc.name, w);
    }
    return w;
  }
}
