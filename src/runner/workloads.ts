// The prompts of a run: a tokenizer (the given one, the plan's local one, or the simulator's own on sim), and each scenario's prompt sets of the plan's dataset kind, built once per set.
import { existsSync } from 'node:fs';
import type { Scenario } from '../core/config/model';
import { randomSpeculativeNote } from '../core/plan/dataset';
import { PlanError, type RunPlan } from '../core/plan/types';
import { buildWorkload } from '../core/workload/build';
import { FILE_KINDS } from '../core/workload/dataset-keys';
import type { DatasetOptions } from '../core/workload/options';
import { loadTokenizer, type TokenizerLike } from '../core/workload/tokenizer';
import type { Workload } from '../core/workload/types';
import { SIM_TOKENIZER_ARG, SimTokenizer } from './sim-tokenizer';

/** Set 0 is the plan's seed (the prompts of earlier versions); each further set its own. */
export function promptSeed(seed: number, set: number): number {
  return set === 0 ? seed : seed + 7919 * set;
}

/** A prompt set that had to re-send rows of a file dataset (the manifest's workload.prompt_reuse). */
export interface PromptReuse {
  scenario: string;
  set: number;
  factor: number;
  rows: number;
  of: number;
}

export class Workloads {
  private readonly byScenario = new Map<string, Workload>();
  /** A file dataset's rows (sharegpt: shuffled once by the plan's seed; custom: file order), and the next unsent one. */
  private pool: Workload | undefined;
  private cursor = 0;
  /** Prompt sets that re-sent rows because the file is too small for fresh prompts. */
  readonly reused: PromptReuse[] = [];
  /** Told once per prompt set that re-sends rows (the run's log). */
  onWarn: ((message: string) => void) | undefined;
  constructor(
    private readonly plan: RunPlan,
    /** The run's tokenizer: prompts are built with it, and output tokens counted with it where a server reports no usage. */
    readonly tokenizer: TokenizerLike,
    /** Where the tokenizer came from, in words (the manifest records it). */
    readonly note: string,
    /** The `--tokenizer` value that loads it again (a benchmark command's). */
    readonly arg: string,
    /** Wall-clock time per modelled time of the servers (1 / the simulator's speed): a trace's gaps are replayed in modelled time. */
    private readonly timeScale = 1,
  ) {}

  /** Throws PlanError when prompts of exact length cannot be built (no local tokenizer off the simulator) or a file dataset cannot be read. */
  static open(plan: RunPlan, given: string | undefined, simulated: boolean, timeScale = 1): Workloads {
    const path = given ?? (plan.tokenizer && existsSync(plan.tokenizer) ? plan.tokenizer : undefined);
    let w: Workloads;
    if (path) w = new Workloads(plan, loadTokenizer(path), path, path, timeScale);
    else if (simulated) w = new Workloads(plan, new SimTokenizer(), 'the simulated engine tokenizer (prompts counted exactly as the sim counts them)', SIM_TOKENIZER_ARG, timeScale);
    else throw new PlanError('the plan cannot run', [`a tokenizer is needed to build prompts of exact length: give --tokenizer PATH (a local tokenizer.json or model folder); ${plan.tokenizer ? `'${plan.tokenizer}' is not a local path` : 'the plan names none'}`]);
    w.check();
    return w;
  }

  /** Reads a file dataset once before any launch: a file the builder refuses is a plan error naming the key and the path. */
  private check(): void {
    const d = this.plan.bench.dataset;
    if (!FILE_KINDS.includes(d.kind)) return;
    try {
      if (d.kind === 'mooncake' || d.kind === 'trace-csv') this.for(this.plan.scenarios[0] as Scenario);
      else this.poolOf();
    } catch (e) {
      throw new PlanError('the plan cannot run', [`${d.pathKey ?? 'dataset.path'} (dataset.kind ${d.kind}): ${(e as Error).message}`]);
    }
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
      const kind = this.plan.bench.datasetKind;
      w = kind === 'sharegpt' || kind === 'custom' ? this.window(sc, set, factor) : this.build(sc, set, factor);
      for (const r of w.rows) r.scenario = sc.name;
      this.byScenario.set(key, w);
    }
    return w;
  }

  /** The builder's options for a set: the plan's kind and options, the scenario's lengths (per-scenario kinds), the set's seed. */
  private options(sc: Scenario, seed: number, numPrompts: number): Partial<DatasetOptions> & Pick<DatasetOptions, 'datasetName'> {
    const b = this.plan.bench;
    const o = b.dataset.options;
    const out: Partial<DatasetOptions> & Pick<DatasetOptions, 'datasetName'> = { ...o, datasetName: b.datasetKind, numPrompts, randomInputLen: sc.inputLen, randomOutputLen: sc.outputLen, randomRangeRatio: 1, seed, chatBackend: b.endpoint === '/v1/chat/completions' };
    if (b.dataset.path) out.datasetPath = b.dataset.path;
    if (b.datasetKind === 'mooncake' || b.datasetKind === 'trace-csv') out.mooncakeSlowdownFactor = (o.mooncakeSlowdownFactor ?? 1) * this.timeScale;
    // Think times are the model's time, as a trace's timestamps: a sped-up simulator waits them out faster.
    if (b.datasetKind === 'generated-shared-prefix' && o.gspTurnDelayMs !== undefined) out.gspTurnDelayMs = o.gspTurnDelayMs * this.timeScale;
    return out;
  }

  /**
   * Generated kinds: the set's own seed gives prompts no other set sends (a trace keeps its rows and timing, its prompt
   * text is the seed's; a lengthened generated-shared-prefix trial has `factor` times the groups).
   */
  private build(sc: Scenario, set: number, factor: number): Workload {
    const b = this.plan.bench;
    const o = this.options(sc, promptSeed(b.seed, set) + (factor > 1 ? 104_729 * factor : 0), b.numPrompts * factor);
    if (b.datasetKind === 'generated-shared-prefix') o.gspNumGroups = (o.gspNumGroups ?? 1) * factor;
    const w = buildWorkload(o, this.tokenizer);
    const understated = randomSpeculativeNote(b.dataset);
    if (understated) w.notes.push(understated);
    return w;
  }

  private poolOf(): Workload {
    this.pool ??= buildWorkload(this.options(this.plan.scenarios[0] as Scenario, this.plan.bench.seed, 0), this.tokenizer);
    return this.pool;
  }

  /**
   * A file dataset's set: the next rows no earlier set took, in the order the run first asks for each set (a set keeps
   * its rows for the run, so every framework's trial of that set sends the same ones). Past the file's end rows are
   * sent again: said in the set's notes, the log and the manifest (a server that does not flush its cache sees them cached).
   */
  private window(sc: Scenario, set: number, factor: number): Workload {
    const pool = this.poolOf();
    const n = this.plan.bench.numPrompts * factor;
    const total = pool.rows.length;
    const start = this.cursor;
    const rows = [];
    for (let k = 0; k < n; k++) {
      const r = pool.rows[(start + k) % total] as Workload['rows'][number];
      rows.push({ ...r, ...(r.metadata ? { metadata: { ...r.metadata } } : {}) });
    }
    this.cursor += n;
    const reusedRows = Math.min(n, Math.max(0, this.cursor - total));
    const notes = [...pool.notes, `${pool.name}: prompt set ${set} sends rows ${(start % total) + 1}..${((start + n - 1) % total) + 1} of the ${total} usable rows`];
    if (reusedRows > 0) {
      const msg = `${pool.name} ${this.plan.bench.dataset.path ?? ''}: ${total} usable rows are too few for fresh prompts: prompt set ${set} of scenario ${sc.name} re-sends ${reusedRows} of its ${n} rows an earlier trial of this run sent; on a server whose prefix cache is not flushed before the trial (TensorRT-LLM) they hit the cache and the trial is cache-biased, not a verdict. Give a larger file or a smaller dataset.num_prompts`;
      notes.push(msg);
      this.reused.push({ scenario: sc.name, set, factor, rows: reusedRows, of: n });
      this.onWarn?.(msg);
    }
    return { name: pool.name, rows, notes, promptLenCheck: pool.promptLenCheck, timed: false, ...(reusedRows > 0 ? { reusedRows } : {}) };
  }

  /** The `autobench bench` dataset flags that rebuild a set of this scenario (a row's benchmark command); undefined for the random-length kinds, whose flags the command has. */
  benchFlags(numPrompts: number): string[] | undefined {
    const b = this.plan.bench;
    if (['random', 'random-ids', 'builtin-text'].includes(b.datasetKind)) return undefined;
    const argv = ['--dataset-name', b.datasetKind, '--num-prompts', String(numPrompts)];
    if (b.dataset.path) argv.push('--dataset-path', b.dataset.path);
    for (const [k, v] of Object.entries(b.dataset.options)) {
      const flag = `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      if (typeof v === 'boolean') {
        if (v) argv.push(flag);
      } else argv.push(flag, String(v));
    }
    return argv;
  }
}
