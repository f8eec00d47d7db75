// manifest.json: what a run is (plan hash, target, simulator settings, client, workload, SLA, trial plan) and what it found (versions, help, GPUs, smoke, searches, live servers).
import type { RunSecrets } from './run-secrets';
import { randomBytes } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { FrameworkKey } from '../core/frameworks/types';
import type { SlaLimits } from '../core/sla/limits';
import { randomSpeculativeNote } from '../core/plan/dataset';
import type { RunPlan } from '../core/plan/types';
import type { RepeatsEnd } from '../core/results/report-model';
import type { SearchStrategyRecord } from '../core/plan/strategy';
import type { Bracket } from './rate-search';
import { safeName } from './artifacts';
import type { GpuCheck } from './preflight';
import { LAUNCH_ENV, type RunTarget, type SlurmJobRecord } from './target';
import { SATURATION_TOLERANCE } from '../core/sla/limits';
import type { RunOptions, RunStatus, Tier } from './types';

export interface FrameworkState {
  status: string;
  reason?: string;
  server_command: string;
  help?: { command: string; file?: string; ok: boolean; detail: string; checked_against?: string };
  version?: { command?: string; version?: string };
  /** A framework with P/D units: its router's help and version as the preflight captured them (runner/unit-preflight.ts). */
  router?: { command: string; file?: string; ok: boolean; detail: string; version?: string };
  smoke?: unknown;
  outcome?: string;
  candidates: Array<{ id: string; name: string; command: string; skip?: string; outcome?: string }>;
  searches: Record<string, string>;
  /** Per `<candidate> <scenario> c=<concurrency>`: the rate search's bracket and whether it closed. */
  brackets: Record<string, Bracket>;
}

export interface Manifest {
  run_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus | 'running';
  reason?: string;
  simulated: boolean;
  note?: string;
  plan: { path: string; sha256: string; copy: string; snapshots: string };
  target: { spec: string; describe: string; host: string };
  sim?: { speed: number; seed: number; gpu: string; extra: string; bin: string; time: string };
  client: { name: string; version: string };
  tokenizer: string;
  workload: Record<string, unknown>;
  sla: SlaLimits;
  tier: Tier;
  trial_plan: Record<string, unknown>;
  /** launch_env: the variables every launch got to pin it to the checked GPUs (local/ssh). */
  gpu?: (GpuCheck & { launch_env?: Record<string, string> }) | { status: 'skipped'; detail: string };
  frameworks: Partial<Record<FrameworkKey, FrameworkState>>;
  resumes: Array<{ at: string; finished_trials: number; moved_aside?: number }>;
  /** Why each framework's repeats ended (decided, max_repeats, budget, off): an undecided verdict says which stopped it. */
  repeats_ended?: Record<string, RepeatsEnd>;
  /** Server up-time × GPUs, per purpose and candidate (modelled seconds on the simulator). */
  gpu_seconds?: { total: number; by_purpose: Record<string, number>; by_candidate: Record<string, number> };
  /** The search strategy that ran (grid or adaptive) and where it came from, what it measured and skipped; the report states it (core/results/run-facts.ts). */
  search_strategy?: SearchStrategyRecord;
  /** Servers running right now (process groups on the target); a killed runner leaves them here for --resume to clean up. */
  live_servers: LiveRecord[];
  /** slurm: the partition, how many jobs at once, and every job of the run (earlier attempts' too, on resume). */
  slurm?: { partition: string; max_parallel: number; jobs: SlurmJobRecord[] };
  /** Which secret names went to the target (never a value): the servers' environment, the API key's variable, the client's headers. */
  secrets: RunSecrets['summary'] & { target: string };
}

/** A server process group on the target, recorded while it runs. */
export interface LiveRecord {
  pgid: number;
  target: string;
  framework: FrameworkKey;
  candidate: string;
  program: string;
}

export function newRunId(planPath: string): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
  return `${safeName(basename(planPath).replace(/\.(ya?ml|json)$/i, ''))}-${stamp}-${randomBytes(2).toString('hex')}`;
}

function frameworkStates(plan: RunPlan): Manifest['frameworks'] {
  const fws: Manifest['frameworks'] = {};
  for (const f of plan.frameworks) {
    fws[f.framework] = {
      status: f.status,
      ...(f.reason ? { reason: f.reason } : {}),
      server_command: f.serverCommand,
      candidates: f.candidates.map((c) => ({ id: c.id, name: c.name, command: c.command, ...(c.skip ? { skip: c.skip.reason } : {}) })),
      searches: {},
      brackets: {},
    };
  }
  return fws;
}

/** How every trial avoids prefix-cache bias (each row's cache_policy says which applied). */
const CACHE_NOTE =
  'every trial sends prompts no earlier trial on its server sent (the k-th trial of every framework the same prompts; warm-ups use a set no trial measures); ' +
  'and the cache is flushed before each measurement where the framework has a route: SGLang and TokenSpeed /flush_cache, vLLM /reset_prefix_cache (VLLM_SERVER_DEV_MODE=1 at launch); ' +
  'TensorRT-LLM has none (fresh prompts only); servers restart between candidates and for each repeat';

/** The manifest's workload: kind and why (a speculative plan that names none runs builtin-text), a file kind's file and options, prompts, seed, scenarios. */
function workloadRecord(p: RunPlan): Record<string, unknown> {
  const b = p.bench;
  const d = b.dataset;
  const why =
    d.source === 'speculative-default'
      ? { kind_source: 'speculative-default', kind_note: `builtin-text: the plan names no dataset.kind and candidates use speculative decoding (${d.speculative.join('; ')}); random ids understate acceptance` }
      : { kind_source: d.source, ...(randomSpeculativeNote(d) ? { kind_note: randomSpeculativeNote(d) } : {}) };
  const file = d.path ? { dataset_path: d.path, dataset_path_key: d.pathKey } : {};
  const options = Object.keys(d.options).length ? { dataset_options: d.options } : {};
  return { kind: b.datasetKind, ...why, ...file, ...options, num_prompts: b.numPrompts, seed: b.seed, endpoint: b.endpoint, range_ratio: 1, extra_request_body: b.extraBody, scenarios: p.scenarios };
}

export interface ManifestInput {
  opts: RunOptions;
  plan: RunPlan;
  target: RunTarget;
  clientVersion: string;
  warmup: { first_trial: number; later: number };
  prior: Manifest | undefined;
  secrets: RunSecrets['summary'];
}

/** The manifest a run starts with (a resumed run keeps its id, creation time and resumes). */
export function initialManifest(i: ManifestInput): Manifest {
  const { plan: p, target, prior } = i;
  const sim = target.sim;
  return {
    run_id: prior?.run_id ?? newRunId(i.opts.planPath),
    created_at: prior?.created_at ?? new Date().toISOString(),
    updated_at: '',
    status: 'running',
    simulated: target.simulated,
    ...(target.simulated ? { note: 'SIMULATED: every server was the built-in simulated engine; no number here is a GPU measurement.' } : {}),
    plan: { path: resolve(i.opts.planPath), sha256: p.source.sha256, copy: 'plan.yaml', snapshots: p.snapshots.note },
    target: { spec: i.opts.target, describe: target.executor.describe(), host: target.host },
    ...(sim ? { sim: { speed: sim.speed, seed: sim.seed, gpu: sim.gpu ?? 'auto', extra: sim.extra, bin: sim.binDir, time: 'rows report modelled time: wall-clock latencies x speed, throughputs and rates / speed' } } : {}),
    client: { name: 'autobench', version: i.clientVersion },
    tokenizer: '',
    workload: workloadRecord(p),
    sla: { ...p.sla?.limits },
    tier: p.budget.tier,
    trial_plan: { fixed: p.bench.fixed, search: p.bench.search ?? null, warmup_requests: i.warmup, cache: CACHE_NOTE, launch_env: LAUNCH_ENV, saturation: `a finite rate fails when completions keep pace at less than ${100 - SATURATION_TOLERANCE * 100}% of the offered arrivals` },
    frameworks: frameworkStates(p),
    resumes: [...(prior?.resumes ?? [])],
    live_servers: [],
    secrets: { target: i.opts.target, ...i.secrets },
    ...(target.kind === 'slurm' ? { slurm: { partition: target.partition ?? '', max_parallel: target.maxParallel, jobs: [...(prior?.slurm?.jobs ?? [])] } } : {}),
  };
}

/** Versions captured at preflight (and the help files), over what the plan says, for the report. */
export function capturedVersions(m: Manifest): Record<string, { packageVersion?: string; serverHelp?: string }> {
  const out: Record<string, { packageVersion?: string; serverHelp?: string }> = {};
  for (const [fw, st] of Object.entries(m.frameworks)) {
    const v = st?.version?.version;
    const h = st?.help?.file;
    if (v || h) out[fw] = { ...(v ? { packageVersion: v } : {}), ...(h ? { serverHelp: h } : {}) };
  }
  return out;
}
