// The run's orchestration: read the plan once, open the target, write the manifest, check the GPUs, run each framework's stage, then the summaries and the counts.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { version as clientVersion } from '../../package.json';
import { readRunPlan } from '../core/plan/build';
import { randomSpeculativeNote } from '../core/plan/dataset';
import { assertRunnable, PlanError, type RunPlan } from '../core/plan/types';
import type { ResultRow, RowStatus } from '../core/results/rows';
import { RunDir } from './artifacts';
import { RunContext, WARMUP_FIRST_TRIAL, WARMUP_LATER } from './context';
import { runFramework, runGridParallel } from './framework';
import { runAdaptiveStrategy } from './adaptive';
import { writeGridPredictions } from './predictions';
import { resolveStrategy, type SearchStrategyRecord } from '../core/plan/strategy';
import { Ledger, reapLeftovers } from './ledger';
import { checkGpus, type GpuCheck } from './preflight';
import { gpuIdsOf, gpuLaunchEnv, hostVisibleDevices } from './gpu-ids';
import { capturedVersions, initialManifest, type Manifest } from './run-manifest';
import { simGpuLabel } from './row-builder';
import { writeSummary } from './summary';
import { runSecrets } from './run-secrets';
import { openTarget, secretSourceOf } from './target';
import type { RunEvent, RunHooks, RunOptions, RunResult, RunStatus } from './types';
import { Workloads } from './workloads';

/** The run directory already holds a run and `resume` was not asked for. */
export class RunDirInUseError extends Error {
  constructor(readonly dir: string) {
    super(`${dir} already holds a run; pass --resume to continue it, or choose another --out`);
    this.name = 'RunDirInUseError';
  }
}

/** The plan of a run's options: the one given, else read (once) from planText. Throws PlanError when it cannot run. */
export function planOf(opts: RunOptions): RunPlan {
  const plan =
    opts.plan ??
    readRunPlan(
      { text: opts.planText, path: opts.planPath },
      { ...(opts.helpDir ? { helpDir: opts.helpDir } : {}), ...(opts.settingHelpDir ? { settingHelpDir: opts.settingHelpDir } : {}), ...(opts.tier ? { tier: opts.tier } : {}), ...(opts.frameworks ? { frameworks: opts.frameworks } : {}), ...(opts.candidates ? { candidates: opts.candidates } : {}), ...(opts.planReader ? { parse: opts.planReader } : {}) },
    );
  assertRunnable(plan);
  if (plan.literalSecrets.length && !opts.allowPlanSecrets) {
    throw new PlanError('the plan holds secrets written into it; name the environment variables that hold them in its secrets: block (or pass --allow-plan-secrets to run it anyway)', plan.literalSecrets);
  }
  return plan;
}

/** Runs a plan into opts.outDir. Throws PlanError (the plan cannot run) and RunDirInUseError; everything after that ends in a RunResult. */
export async function runPlan(opts: RunOptions, hooks: RunHooks = {}): Promise<RunResult> {
  const plan = planOf(opts);
  const secrets = runSecrets(plan.secrets, opts.secretEnv ?? [], secretSourceOf(opts));
  const dir = new RunDir(resolve(opts.outDir), secrets.values);
  if (dir.hasRun() && !opts.resume) throw new RunDirInUseError(dir.root);
  const emit = (e: RunEvent): void => {
    try {
      hooks.onEvent?.(e);
    } catch {
      /* a listener's bug must not stop the run */
    }
  };
  const prior = opts.resume && existsSync(dir.manifestFile) ? (JSON.parse(readFileSync(dir.manifestFile, 'utf8')) as Manifest) : undefined;
  const ledger = new Ledger(plan, (s) => dir.scrub(s), clientVersion);
  let movedAside = 0;
  if (opts.resume) {
    // Rows of a changed plan (command, workload, prompts, seed, SLA, client) are never reused: moved aside, counted.
    const { keep, stale } = ledger.partition(dir.readRows());
    if (stale.length) dir.moveAside(stale, keep);
    movedAside = stale.length;
    for (const r of keep) ledger.add(r);
  }
  const target = await openTarget(opts, secrets.source, plan.hardware.gpuModel, plan.slurm);
  const ctx = new RunContext(opts, plan, dir, ledger, target, secrets, emit, hooks.signal);
  ctx.movedAside = movedAside;
  return execute(ctx, prior);
}

function countPlannedTrials(plan: RunPlan): number {
  const b = plan.bench;
  const perScenario = b.fixed.length + (b.search ? b.search.maxRounds * b.search.concurrencies.length : 0);
  let n = 0;
  for (const f of plan.frameworks) if (f.status === 'run') n += f.candidates.filter((c) => !c.skip).length * plan.scenarios.length * perScenario;
  return n;
}

async function start(ctx: RunContext, prior: Manifest | undefined): Promise<void> {
  const { plan, target } = ctx;
  ctx.manifest = initialManifest({ opts: ctx.opts, plan, target, clientVersion, warmup: { first_trial: WARMUP_FIRST_TRIAL, later: WARMUP_LATER }, prior, secrets: ctx.secrets.summary });
  ctx.rowCtx = { runId: ctx.manifest.run_id, plan, simulated: target.simulated, sim: target.sim ? { speed: target.sim.speed, seed: target.sim.seed, gpu: target.sim.gpu } : undefined, host: target.host, clientVersion, versions: {}, visibleDevices: null };
  watchJobs(ctx);
  if (prior) {
    for (const line of await reapLeftovers(prior.live_servers ?? [], ctx.opts.target, ctx.graceMs)) ctx.log('warn', line);
    for (const line of await ctx.target.cancelLeftoverJobs?.(prior.slurm?.jobs ?? []) ?? []) ctx.log('warn', line);
    ctx.manifest.resumes.push({ at: new Date().toISOString(), finished_trials: ctx.ledger.size, moved_aside: ctx.movedAside });
    if (ctx.movedAside) ctx.log('warn', `${ctx.movedAside} row(s) of a changed plan were moved aside to rows.stale.jsonl and will be measured again`);
    if (prior.plan.sha256 !== ctx.manifest.plan.sha256) ctx.log('warn', 'the plan changed since this run started; trials it defines differently are measured again');
  }
  ctx.workloads = Workloads.open(plan, ctx.opts.tokenizer, target.simulated, 1 / ctx.speed);
  ctx.workloads.onWarn = (m) => ctx.log('warn', m);
  ctx.manifest.tokenizer = ctx.workloads.note;
  ctx.manifest.workload = { ...ctx.manifest.workload, prompt_reuse: ctx.workloads.reused };
  const d = plan.bench.dataset;
  const understated = randomSpeculativeNote(d);
  if (understated) ctx.log('warn', `dataset: ${understated}`);
  if (d.source === 'speculative-default') ctx.log('info', `dataset: builtin-text, since the plan names no dataset.kind and ${d.speculative.length} candidate(s) use speculative decoding (${d.speculative.slice(0, 3).join('; ')}): random ids understate acceptance`);
  ctx.dir.writeText('plan.yaml', ctx.opts.planText);
  ctx.saveManifest();
  ctx.plannedTrials = countPlannedTrials(plan);
  const frameworks = plan.frameworks.map((f) => ({ framework: f.framework, status: f.status, candidates: f.candidates.length, ...(f.reason ? { reason: f.reason } : {}) }));
  ctx.emit({ type: 'run-start', runId: ctx.manifest.run_id, outDir: ctx.dir.root, target: ctx.opts.target, simulated: target.simulated, resumed: Boolean(prior), frameworks, plannedTrials: ctx.plannedTrials, finishedTrials: ctx.ledger.size, movedAside: ctx.movedAside });
  for (const w of plan.warnings) ctx.log('warn', `plan: ${w}`);
}

/** Every change of a Slurm job of this run goes into the manifest (saved) and out as an event (the live panel). */
function watchJobs(ctx: RunContext): void {
  ctx.target.observeJobs?.((job) => {
    const list = ctx.manifest.slurm?.jobs;
    if (!list) return;
    const i = list.findIndex((j) => j.job_id === job.job_id);
    if (i >= 0) list[i] = { ...job };
    else list.push({ ...job });
    ctx.saveManifest();
    ctx.emit({ type: 'job', framework: job.framework, candidateId: job.candidate, jobId: job.job_id, state: job.state, purpose: job.purpose, ...(job.node ? { node: job.node } : {}), ...(job.reason ? { reason: job.reason } : {}) });
  });
}

/**
 * --gpus, else the target host's own CUDA_VISIBLE_DEVICES (read through the executor: on ssh it is the host's, not
 * ours): hardware.gpu_count of them, or as many as the largest P/D unit holds.
 */
async function requestedGpus(ctx: RunContext): Promise<number[]> {
  const visible = ctx.opts.gpus?.length ? undefined : await hostVisibleDevices(ctx.target.executor);
  const units = ctx.plan.frameworks.flatMap((f) => (f.status === 'run' ? f.candidates : [])).map((c) => (c.unit && !c.skip ? c.unit.gpus : 0));
  return gpuIdsOf(ctx.opts.gpus, visible, Math.max(ctx.plan.hardware.gpuCount ?? 1, ...units));
}

async function gpuPreflight(ctx: RunContext): Promise<GpuCheck | undefined> {
  if (ctx.target.simulated || ctx.target.kind === 'slurm') {
    ctx.manifest.gpu = { status: 'skipped', detail: ctx.target.simulated ? 'simulated target: no GPU is used' : 'slurm: each job is given its GPUs by the scheduler (GRES), no other job shares them' };
    return undefined;
  }
  const requested = await requestedGpus(ctx);
  ctx.rowCtx.visibleDevices = requested.join(',');
  // Every launch is pinned to them (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER=PCI_BUS_ID): recorded in the manifest's gpu.
  ctx.target.gpus = requested;
  ctx.emit({ type: 'preflight', framework: null, step: 'gpu', status: 'start', detail: `GPU ${requested.join(', ')}` });
  const g = await checkGpus(ctx.target.executor, requested);
  ctx.manifest.gpu = { ...g, launch_env: gpuLaunchEnv(requested) };
  ctx.target.gpusWatched = g.status !== 'unavailable';
  // Provenance: the GPU nvidia-smi saw, over the plan's claim (which stays the fallback, flagged in the report).
  const seen = g.gpus.find((x) => x.index === requested[0]);
  if (seen) ctx.rowCtx.gpuSeen = { name: seen.name, memoryMiB: seen.memoryTotalMiB, driver: seen.driver };
  ctx.saveManifest();
  ctx.emit({ type: 'preflight', framework: null, step: 'gpu', status: g.status === 'free' ? 'ok' : g.status === 'unavailable' ? 'warn' : 'failed', detail: g.detail });
  return g;
}

/** Runs every framework; the status and why the run stopped early, when it did. */
async function runAll(ctx: RunContext, prior: Manifest | undefined): Promise<{ status: RunStatus; reason?: string }> {
  try {
    await start(ctx, prior);
    const gpu = await gpuPreflight(ctx);
    if (gpu && gpu.status !== 'free' && gpu.status !== 'unavailable') return { status: 'gpu-busy', reason: gpu.detail };
    const strategy = resolveStrategy(ctx.plan, ctx.opts);
    const record: SearchStrategyRecord = { name: strategy.name, source: strategy.source, measured: [], skipped: [] };
    ctx.manifest.search_strategy = record;
    ctx.log('info', `search strategy: ${strategy.name} (${strategy.source === 'option' ? '--strategy' : strategy.source === 'plan' ? 'the plan' : 'the default'})`);
    if (strategy.name === 'adaptive') await runAdaptiveStrategy(ctx, record);
    else if (ctx.slots.size > 1) {
      await runGridParallel(ctx);
      writeGridPredictions(ctx);
      record.measured = measuredKeys(ctx);
    } else {
      for (const f of ctx.plan.frameworks) {
        if (ctx.aborted) break;
        await runFramework(ctx, f);
      }
      writeGridPredictions(ctx);
      record.measured = measuredKeys(ctx);
    }
    ctx.saveManifest();
    return { status: 'completed' };
  } catch (e) {
    if (e instanceof PlanError) throw e;
    ctx.log('warn', `run failed: ${(e as Error).message}`);
    return { status: 'failed', reason: (e as Error).message };
  } finally {
    await ctx.target.close().catch(() => undefined);
  }
}

/** Candidates the grid measured (launched and came up), as `<framework> <candidateId>`. */
function measuredKeys(ctx: RunContext): string[] {
  return ctx.plan.frameworks.flatMap((f) => (ctx.manifest.frameworks[f.framework]?.candidates ?? []).filter((c) => c.outcome === 'measured').map((c) => `${f.framework} ${c.id}`));
}

function summarize(ctx: RunContext): Pick<RunResult, 'summary' | 'report'> {
  try {
    const w = writeSummary({ dir: ctx.dir, plan: ctx.plan, runId: ctx.manifest.run_id, versions: capturedVersions(ctx.manifest), ...(ctx.target.sim ? { gpuModel: simGpuLabel(ctx.target.sim.gpu) } : {}), ...(ctx.opts.renderHtml ? { renderHtml: ctx.opts.renderHtml } : {}) });
    return { summary: w.files, report: w.model };
  } catch (e) {
    ctx.log('warn', `the summary could not be written: ${(e as Error).message}`);
    return { summary: null, report: null };
  }
}

function countRows(rows: ResultRow[]): Partial<Record<RowStatus | 'sla_failing', number>> {
  const counts: Partial<Record<RowStatus | 'sla_failing', number>> = {};
  for (const r of rows) {
    const k = r.status === 'ok' && r.sla?.passed === false ? 'sla_failing' : r.status;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

async function execute(ctx: RunContext, prior: Manifest | undefined): Promise<RunResult> {
  const ended = await runAll(ctx, prior);
  const status: RunStatus = ctx.aborted && ended.status === 'completed' ? 'cancelled' : ended.status;
  ctx.manifest.status = status;
  if (ended.reason) ctx.manifest.reason = ended.reason;
  ctx.saveManifest();
  const { summary, report } = summarize(ctx);
  const rows = ctx.dir.readRows();
  ctx.emit({ type: 'run-end', status, summary, counts: countRows(rows) });
  return { runId: ctx.manifest.run_id, outDir: ctx.dir.root, status, ...(ended.reason ? { reason: ended.reason } : {}), rows, summary, report, simulated: ctx.target.simulated };
}
