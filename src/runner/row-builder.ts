// Result rows the runner writes: measured trials (metrics in modelled time on the simulator) and rows that explain a candidate that did not run.
import type { ClientPlacement } from './client-placement';
import type { Transport } from './server';
import type { Pace, Validity } from './trial-checks';
import type { LatencyStats } from '../client';
import type { BenchMetrics } from '../client';
import type { FrameworkKey } from '../core/frameworks/types';
import { launchGpuTotal } from '../core/candidates/gpus';
import { shlexJoin } from '../core/candidates/shell';
import type { Executor } from '../exec';
import { SlurmJobExecutor } from '../exec/slurm/job-executor';
import { candidateFlagsJson, type Candidate } from '../core/candidates/candidate';
import type { Scenario } from '../core/config/model';
import type { RunPlan } from '../core/plan/types';
import { fromPlainJson, type PyObject } from '../core/py/json';
import type { ResultRow, RowStatus } from '../core/results/rows';
import { evaluateSla, type SlaVerdict } from '../core/results/sla';
import { rowSlaBlock, type SlaReading } from '../core/sla/limits';
import { unmeasuredFloor, type TtftFloor } from './ttft-floor';
import type { PdSplitBlock } from './pd-split';
import type { PdMetricsBlock } from './pd-metrics';
import type { SpecDecodeBlock } from './spec-metrics';
import type { EnergyBlock } from './energy';
import type { SessionStats } from '../client/sessions';

/** What every row of a run shares. */
export interface RowContext {
  runId: string;
  plan: RunPlan;
  simulated: boolean;
  sim: { speed: number; seed: number; gpu: string | undefined } | undefined;
  host: string;
  clientVersion: string;
  versions: Partial<Record<FrameworkKey, string>>;
  visibleDevices: string | null;
  /** What nvidia-smi saw on the target (the first requested GPU), when it ran. */
  gpuSeen?: { name: string; memoryMiB: number; driver: string };
  /** The Slurm job the row's server ran in. */
  slurmJob?: string;
  /** Its nodes, the head first. */
  nodes?: readonly string[];
  /** On several nodes: the head's command (the candidate's, with the multi-node launch words). */
  multiNodeCommand?: string;
}

export interface TrialInfo {
  key: string;
  mode: 'fixed' | 'search' | 'repeat' | 'candidate';
  rate: number | 'inf' | null;
  concurrency: number | null;
  round: number;
  /** For candidate rows: launch (failed to come up), skip (policy), crash (died during an earlier trial). */
  phase?: 'launch' | 'skip' | 'crash';
}

/** The row context of a server that runs somewhere of its own (a Slurm job's node): its host and its job go into its rows. */
export function placedRowContext(ctx: RowContext, server: { host?: string; slurmJob?: string; executor?: Executor }): RowContext {
  if (server.host === undefined && server.slurmJob === undefined) return ctx;
  const job = server.executor instanceof SlurmJobExecutor ? server.executor : undefined;
  const head = job?.headCommand();
  return {
    ...ctx,
    ...(server.host !== undefined ? { host: server.host } : {}),
    ...(server.slurmJob !== undefined ? { slurmJob: server.slurmJob } : {}),
    ...(job ? { nodes: job.nodes() } : {}),
    ...(head ? { multiNodeCommand: shlexJoin(head) } : {}),
  };
}

/** How a simulated row names its GPU: the modelled profile, never a real device. */
export function simGpuLabel(profile: string | undefined): string {
  return `${profile ?? 'auto'} (simulated)`;
}

/** A row's `trial`: the schema's rate/concurrency/round plus ours (mode, key, phase; the schema allows more), by which resume finds finished trials. */
export type RowTrial = NonNullable<ResultRow['trial']> & { mode: TrialInfo['mode']; key: string; phase?: TrialInfo['phase'] };

function rowTrial(t: TrialInfo): RowTrial {
  return { rate: t.rate, concurrency: t.concurrency, round: t.round, mode: t.mode, key: t.key, ...(t.phase ? { phase: t.phase } : {}) };
}

function gpuCount(ctx: RowContext, cand: Candidate | undefined): number | null {
  if (!cand) return ctx.plan.hardware.gpuCount ?? null;
  // hardware.gpu_count (per node on a multi-node candidate), else what the candidate's parallel sizes ask for.
  return launchGpuTotal(ctx.plan.hardware, cand);
}

function baseRow(ctx: RowContext, fw: FrameworkKey, cand: Candidate | undefined, scenario: Scenario, trial: TrialInfo, status: RowStatus): ResultRow {
  const row: ResultRow = {
    run_id: ctx.runId,
    framework: fw,
    framework_version: ctx.versions[fw] ?? null,
    ...(cand ? { candidate_id: cand.id, candidate_name: cand.name } : {}),
    model: ctx.plan.model,
    status,
    failure_reason: null,
    scenario: scenario.name,
    hardware: {
      gpu_model: ctx.sim ? simGpuLabel(ctx.sim.gpu) : (ctx.gpuSeen?.name ?? ctx.plan.hardware.gpuModel ?? null),
      ...(ctx.sim ? {} : { gpu_model_source: ctx.gpuSeen ? 'nvidia-smi' : 'plan' }),
      ...(ctx.gpuSeen ? { gpu_memory_mib: ctx.gpuSeen.memoryMiB, driver_version: ctx.gpuSeen.driver } : {}),
      gpu_count: gpuCount(ctx, cand),
      visible_devices: ctx.visibleDevices,
      host: ctx.host,
      ...(ctx.slurmJob ? { slurm_job_id: ctx.slurmJob } : {}),
      ...(ctx.nodes ? { multi_node: ctx.nodes.length > 1, nodes: [...ctx.nodes] } : {}),
    },
    workload: {
      scenario: scenario.name,
      kind: ctx.plan.bench.datasetKind,
      dataset_name: ctx.plan.bench.datasetKind,
      num_prompts: ctx.plan.bench.numPrompts,
      input_len: scenario.inputLen,
      output_len: scenario.outputLen,
      request_rate: trial.rate,
      max_concurrency: trial.concurrency,
      endpoint: ctx.plan.bench.endpoint,
    },
    ...(cand ? { server_command: cand.command, server_flags: candidateFlagsJson(cand) } : {}),
    ...(cand?.unit ? { pd_unit: { transfer_backend: cand.unit.transferBackend, prefill_workers: cand.unit.workers.prefill, decode_workers: cand.unit.workers.decode, prefill_tp: cand.unit.tp.prefill, decode_tp: cand.unit.tp.decode, gpus: cand.unit.gpus } } : {}),
    ...(ctx.multiNodeCommand ? { multi_node_command: ctx.multiNodeCommand } : {}),
    simulated: ctx.simulated,
    smoke: false,
    trial: rowTrial(trial),
    client: { name: 'autobench', version: ctx.clientVersion },
  };
  if (ctx.sim) (row as unknown as Record<string, unknown>).sim = { speed: ctx.sim.speed, seed: ctx.sim.seed, time: 'modelled: wall-clock latencies x speed, throughputs / speed' };
  return row;
}

/** A row for a candidate that did not produce a measurement (launch failure, skip, early stop, crash). */
export function candidateRow(ctx: RowContext, fw: FrameworkKey, cand: Candidate | undefined, scenario: Scenario, key: string, status: RowStatus, reason: string, phase: TrialInfo['phase'], serverLog?: string): ResultRow {
  const row = baseRow(ctx, fw, cand, scenario, { key, mode: 'candidate', rate: null, concurrency: null, round: 0, phase }, status);
  row.failure_reason = reason;
  row.sla = { ...rowSlaBlock(ctx.plan.sla?.limits ?? {}), passed: false, reasons: [`status ${status}: not measured`] };
  if (serverLog) row.artifacts = { server_log: serverLog };
  return row;
}

/** Times scale up and rates down by the simulator's speed, so sim rows read in the modelled GPU's time. */
function scaler(speed: number): { t: (x: number | null) => number | null; r: (x: number | null) => number | null } {
  return { t: (x) => (x === null ? null : x * speed), r: (x) => (x === null ? null : x / speed) };
}

/** A modelled time less a sped-up simulator's per-request floor (ttft-floor.ts), never below 0. */
const less = (x: number | null, removed: number): number | null => (x === null || removed === 0 ? x : Math.max(0, x - removed));

/** `removed` (modelled ms) comes off every location statistic; the spread (std) is unchanged by a constant shift. */
function stats(out: Record<string, number | null>, name: string, s: LatencyStats, t: (x: number | null) => number | null, removed = 0): void {
  out[`mean_${name}_ms`] = less(t(s.mean), removed);
  out[`median_${name}_ms`] = less(t(s.median), removed);
  out[`p50_${name}_ms`] = less(t(s.median), removed);
  out[`p90_${name}_ms`] = less(t(s.p90), removed);
  out[`p95_${name}_ms`] = less(t(s.p95), removed);
  out[`p99_${name}_ms`] = less(t(s.p99), removed);
  out[`std_${name}_ms`] = t(s.std);
}

/**
 * The row's metrics block from the client's metrics (scaled to modelled time on the simulator); `ttftRemovedMs`: the
 * sped-up simulator's TTFT floor (ttft-floor.ts), taken off TTFT and E2E (which contains it), not TPOT or ITL.
 */
/** A multi-turn trial's sessions: per turn its p50 TTFT (modelled time, less the floor), cache hits and send lateness (wall). */
export function sessionsBlock(s: SessionStats, speed: number, ttftRemovedMs = 0): Record<string, unknown> {
  const { t } = scaler(speed);
  return {
    sessions: s.sessions,
    completed_sessions: s.completed,
    turns: s.turns.map((x) => ({ turn: x.turn, requests: x.requests, p50_ttft_ms: less(t(x.p50TtftMs), ttftRemovedMs), cache_hit_fraction: x.cacheHitFraction, p99_late_ms: x.p99LateMs })),
  };
}

export function metricsBlock(m: BenchMetrics, speed: number, ttftRemovedMs = 0): Record<string, number | null> {
  const { t, r } = scaler(speed);
  const out: Record<string, number | null> = {
    request_throughput: r(m.requestThroughput),
    input_token_throughput: r(m.inputThroughput),
    output_token_throughput: r(m.outputThroughput),
    total_token_throughput: r(m.totalThroughput),
  };
  if (m.goodput) out.request_goodput = r(m.goodput.requestGoodput);
  out.steady_request_throughput = r(m.steady.requestThroughput);
  if (m.cacheHitFraction !== null) out.prefix_cache_hit_rate = m.cacheHitFraction;
  stats(out, 'ttft', m.ttft, t, ttftRemovedMs);
  stats(out, 'tpot', m.tpot, t);
  stats(out, 'itl', m.itl, t);
  stats(out, 'e2e', m.e2e, t, ttftRemovedMs);
  Object.assign(out, {
    max_itl_ms: t(m.itl.max),
    success_rate: m.successRate,
    completed: m.completed,
    failed: m.failed,
    total_input_tokens: m.totalInputTokens,
    total_output_tokens: m.totalOutputTokens,
    duration_s: t(m.durationS),
    concurrency: m.concurrency,
    max_concurrent_requests: m.maxConcurrentRequests,
    max_output_tokens_per_s: r(m.maxOutputTokensPerS),
  });
  return out;
}

/** The 95% intervals in the row's units (modelled time on the simulator): throughputs / speed, latencies × speed. */
export function intervalsBlock(m: BenchMetrics, speed: number, ttftRemovedMs = 0): Record<string, [number, number] | null> {
  const iv = m.intervals;
  const rate = (x: [number, number] | null): [number, number] | null => (x ? [x[0] / speed, x[1] / speed] : null);
  const time = (x: [number, number] | null, removed = 0): [number, number] | null => (x ? [less(x[0] * speed, removed) as number, less(x[1] * speed, removed) as number] : null);
  return {
    request_throughput: rate(iv.requestThroughput),
    output_token_throughput: rate(iv.outputThroughput),
    p50_ttft_ms: time(iv.p50TtftMs, ttftRemovedMs),
    p50_tpot_ms: time(iv.p50TpotMs),
    p50_e2e_ms: time(iv.p50E2eMs, ttftRemovedMs),
    success_rate: iv.successRate,
  };
}

export interface MeasuredRowInput {
  fw: FrameworkKey;
  cand: Candidate;
  scenario: Scenario;
  trial: TrialInfo;
  status: RowStatus;
  reason: string | null;
  metrics: BenchMetrics | undefined;
  benchmarkCommand: string;
  artifacts: NonNullable<ResultRow['artifacts']>;
  backend: string;
  /** Prompts the trial sent (more than the plan's when a too-short trial was lengthened). */
  numPrompts?: number;
  /** The server announced itself as the simulated engine (on any target). */
  simulatedServer: boolean;
  /** ssh targets: the port forward's measured overhead (idle, at launch), when the client went through it. */
  transport?: Transport;
  /** Where the load client ran (on the host, through the forward, here), into the row's `client` block. */
  clientPlacement?: ClientPlacement;
  /** Offered vs kept request rates (modelled units): the SLA judge fails a rate the server did not keep. */
  pace?: Pace;
  /** The validity gates' verdict (an invalid trial's status is failed). */
  validity?: Validity;
  /** How cache bias was removed for this trial. */
  cachePolicy?: CachePolicy;
  /** A simulated server's TTFT floor (its launch's probe): removed from TTFT and E2E as it says, recorded as `ttft_floor`. */
  ttftFloor?: TtftFloor;
  /** A simulated P/D unit: the router's split of the trial's modelled TTFTs, recorded as `pd_split`. */
  pdSplit?: PdSplitBlock;
  /** A multi-turn workload: per-turn figures of the trial (client sessions.ts), recorded as `sessions`. */
  sessions?: SessionStats;
  /** Speculative decoding: the server's draft counters over the trial, recorded as `spec_decode` (and metrics.accept_length). */
  specDecode?: SpecDecodeBlock;
  /** A P/D unit: its workers' stage means over the trial from their own /metrics, recorded as `pd_metrics`. */
  pdMetrics?: PdMetricsBlock;
  /** The trial's energy (modelled on the simulator, nvidia-smi on GPUs), recorded as `energy`. */
  energy?: EnergyBlock;
}

/** How a trial avoided prefix-cache hits from earlier trials: the server's flush route, a restart, prompts never sent before, or nothing. */
export type CachePolicy = 'flushed' | 'restarted' | 'fresh-prompts' | 'reused-prompts' | 'none';

/** A trial's row with its SLA verdict (recomputed from the metrics by the results module's rules). */
export function measuredRow(ctx: RowContext, i: MeasuredRowInput): { row: ResultRow; verdict: SlaVerdict } {
  const row = baseRow(ctx, i.fw, i.cand, i.scenario, i.trial, i.status);
  // A GPU target running the simulator's shims still gets simulated rows: the engine says what it is.
  if (i.simulatedServer && !ctx.simulated) {
    row.simulated = true;
    if (row.hardware) row.hardware.gpu_model = simGpuLabel(undefined);
  }
  row.failure_reason = i.reason;
  if (row.workload) row.workload.backend = i.backend;
  if (row.workload && i.numPrompts !== undefined) row.workload.num_prompts = i.numPrompts;
  const speed = ctx.sim?.speed ?? 1;
  // Every simulated row says what its TTFT floor was and what was done with it (a real engine's rows have none).
  const floor = i.ttftFloor ?? (row.simulated ? unmeasuredFloor(speed, 'the launch was not probed') : undefined);
  const removed = floor?.removed_ms ?? 0;
  if (floor) Object.assign(row, { ttft_floor: floor });
  if (i.pdSplit) Object.assign(row, { pd_split: i.pdSplit });
  if (i.pdMetrics) Object.assign(row, { pd_metrics: i.pdMetrics });
  if (i.energy) Object.assign(row, { energy: i.energy });
  if (i.metrics) row.metrics = metricsBlock(i.metrics, speed, removed);
  if (i.sessions) Object.assign(row, { sessions: sessionsBlock(i.sessions, speed, removed) });
  if (row.metrics && i.pace) Object.assign(row.metrics, { offered_request_rate: i.pace.offered, completion_request_rate: i.pace.kept });
  if (i.specDecode) {
    Object.assign(row, { spec_decode: i.specDecode });
    if (row.metrics) Object.assign(row.metrics, { accept_length: i.specDecode.mean_accept_length });
  }
  if (i.validity) Object.assign(row, { validity: i.validity });
  if (i.metrics) Object.assign(row, { intervals: intervalsBlock(i.metrics, speed, removed), steady: { duration_s: i.metrics.steady.durationS * speed, completed: i.metrics.steady.completed, too_short: i.metrics.steady.tooShort } });
  if (i.metrics && i.metrics.cacheHitFraction !== null) Object.assign(row, { cache: { prefix_cache_hit_rate: i.metrics.cacheHitFraction, cached_prompt_tokens: i.metrics.cachedPromptTokens } });
  if (i.cachePolicy) Object.assign(row, { cache_policy: i.cachePolicy });
  row.benchmark_command = i.benchmarkCommand;
  row.artifacts = i.artifacts;
  row.validated_cli_flags = { server: i.cand.usedKeys };
  if (i.transport) Object.assign(row, { transport: i.transport });
  if (i.clientPlacement) row.client = { ...row.client, ...i.clientPlacement };
  const verdict = judge(row, ctx.plan.sla);
  row.sla = { ...rowSlaBlock(ctx.plan.sla?.limits ?? {}), passed: verdict.passed, reasons: verdict.reasons };
  return { row, verdict };
}

/** The results module's SLA verdict for a row the runner just built (the same judge the report uses). */
export function judge(row: ResultRow, sla: SlaReading | undefined): SlaVerdict {
  return evaluateSla(fromPlainJson(row) as PyObject, { limits: sla?.limits ?? {}, deprecated: [] });
}
