// What every stage of a run shares: the options, the plan, the target, the run directory and its manifest, the ledger of finished trials, events, cancellation and the workloads.
import type { RunSecrets } from './run-secrets';
import type { FrameworkKey } from '../core/frameworks/types';
import type { ResultRow } from '../core/results/rows';
import type { RunPlan } from '../core/plan/types';
import type { RunDir } from './artifacts';
import type { Ledger } from './ledger';
import type { FrameworkState, LiveRecord, Manifest } from './run-manifest';
import type { RowContext } from './row-builder';
import { Slots } from './slots';
import type { RunTarget } from './target';
import type { RunEvent, RunOptions } from './types';
import type { Workloads } from './workloads';
import type { CliFacts } from '../exec/slurm/multinode';
import { parseHelp } from '../core/help/parse';
import { readHelpFile } from '../core/help/snapshots';

/** What a server was up for: the preflight smoke, the search (candidates' trials), or repeats of finalists. */
export type GpuPurpose = 'smoke' | 'search' | 'repeat';

/** GPU-seconds held: server up-time (launch to stop) × its GPUs; on the simulator, modelled time (wall × speed). */
export interface GpuTime {
  total: number;
  by_purpose: Record<GpuPurpose, number>;
  by_candidate: Record<string, number>;
}

export const WARMUP_FIRST_TRIAL = 3;
export const WARMUP_LATER = 1;

/** A real server's default wait to come up: first launches of large models (weights, JIT kernels, CUDA graphs) pass 15 minutes; TokenSpeed's own engine start timeout is 1800 s (lightseekorg/tokenspeed cli/_argsplit.py @1e9340c2). */
export const REAL_HEALTH_TIMEOUT_S = 1800;
/** The simulator comes up in seconds. */
export const SIM_HEALTH_TIMEOUT_S = 60;

/** The health wait of a run's servers: --health-timeout, else the target's default. */
export function healthTimeoutS(opts: Pick<RunOptions, 'healthTimeoutS' | 'target'>): number {
  return opts.healthTimeoutS ?? (opts.target === 'sim' ? SIM_HEALTH_TIMEOUT_S : REAL_HEALTH_TIMEOUT_S);
}

export class RunContext {
  manifest!: Manifest;
  rowCtx!: RowContext;
  workloads!: Workloads;
  trialIndex = 0;
  plannedTrials = 0;
  /** Rows of a changed plan a resume moved aside. */
  movedAside = 0;
  /** Per framework × candidate × scenario, what its last trial needed for a steady state: later trials (repeats too) start that long. */
  readonly trialNeeds = new Map<string, { e2eS: number; minCompleted: number }>();
  /**
   * The adaptive strategy's hints per framework × candidate × scenario (trial.ts searchHintKey): the predicted knee
   * where its rate search starts, and the floor under which it cannot win or tie (the search stops when it fails there).
   */
  readonly searchHints = new Map<string, { knee?: number; floor?: number }>();
  /** Launches at once: the target's maxParallel (1 but on slurm). */
  readonly slots: Slots;
  private cancelled = false;
  /** The captured help texts' option strings, by run-relative file (parsed once per run). */
  private readonly helpOptions = new Map<string, readonly string[]>();
  readonly healthTimeoutMs: number;
  readonly trialTimeoutMs: number;
  readonly graceMs: number;

  constructor(
    readonly opts: RunOptions,
    readonly plan: RunPlan,
    readonly dir: RunDir,
    readonly ledger: Ledger,
    readonly target: RunTarget,
    readonly secrets: RunSecrets,
    readonly emit: (e: RunEvent) => void,
    readonly signal: AbortSignal | undefined,
  ) {
    this.slots = new Slots(target.maxParallel);
    const sim = opts.target === 'sim';
    this.healthTimeoutMs = healthTimeoutS(opts) * 1000;
    this.trialTimeoutMs = (opts.trialTimeoutS ?? (sim ? 300 : 3600)) * 1000;
    this.graceMs = opts.stopGraceMs ?? (sim ? 2000 : 10_000);
  }

  /** The simulator's speed (1 on real targets): rates sent are modelled rates × speed. */
  get speed(): number {
    return this.target.sim?.speed ?? 1;
  }

  get aborted(): boolean {
    if (this.signal?.aborted) this.cancelled = true;
    return this.cancelled;
  }

  log(level: 'info' | 'warn', message: string): void {
    this.emit({ type: 'log', level, message });
  }

  saveManifest(): void {
    this.manifest.updated_at = new Date().toISOString();
    this.dir.writeJson('manifest.json', this.manifest);
  }

  addRow(row: ResultRow): void {
    this.dir.appendRow(row);
    this.ledger.add(row);
    this.emit({ type: 'row', row });
  }

  readonly gpuTime: GpuTime = { total: 0, by_purpose: { smoke: 0, search: 0, repeat: 0 }, by_candidate: {} };

  /** Charges a server's up-time to the run's GPU-time (rounded to ms in the manifest). */
  chargeGpu(purpose: GpuPurpose, key: string, wallSeconds: number): void {
    const s = wallSeconds * this.speed * (this.plan.hardware.gpuCount ?? 1);
    this.gpuTime.total += s;
    this.gpuTime.by_purpose[purpose] += s;
    this.gpuTime.by_candidate[key] = (this.gpuTime.by_candidate[key] ?? 0) + s;
    this.manifest.gpu_seconds = this.gpuTime;
  }

  fwState(fw: FrameworkKey): FrameworkState {
    return this.manifest.frameworks[fw] as FrameworkState;
  }

  /** What this run's preflight read of a framework's CLI: the captured flag list's options (none without one) and the version. */
  cliFacts(fw: FrameworkKey): CliFacts {
    const st = this.manifest.frameworks[fw];
    const file = st?.help?.file;
    let options = file ? this.helpOptions.get(file) : undefined;
    if (file && !options) {
      try {
        options = parseHelp(readHelpFile(this.dir.path(file)), { framework: fw, role: 'server' }).optionStrings;
        this.helpOptions.set(file, options);
      } catch {
        options = undefined;
      }
    }
    const version = st?.version?.version;
    return { ...(options ? { options } : {}), ...(version ? { version } : {}) };
  }

  /** Records a server process group while it runs (add) or drops it (a killed runner leaves them for --resume). */
  track(rec: LiveRecord | undefined, pgid: number, add: boolean): void {
    if (add && rec) this.manifest.live_servers.push(rec);
    else this.manifest.live_servers = this.manifest.live_servers.filter((l) => l.pgid !== pgid);
    this.saveManifest();
  }
}
