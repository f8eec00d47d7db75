// A candidate's lifecycle: launch (the exact command), health wait, its scenarios measured, teardown; and the preflight smoke server on the first candidate.
import { readsConfigFile, serverSecrets } from './run-secrets';
import { removeKeyFile, writeKeyFile, type KeyFile } from './key-file';
import { basename } from 'node:path';
import type { Candidate } from '../core/candidates/candidate';
import { candidateFlagsJson } from '../core/candidates/candidate';
import type { Scenario } from '../core/config/model';
import type { PlanFramework } from '../core/plan/types';
import type { RowStatus } from '../core/results/rows';
import { safeName } from './artifacts';
import { closeHostClient } from './client-placement';
import { backendFor } from './client-trial';
import type { GpuPurpose, RunContext } from './context';
import { recordNotRun } from './not-run';
import { smokeTest } from './preflight';
import { candidateNodes, launchGpuTotal } from '../core/candidates/gpus';
import { failureOf, launchServer, stopServer, type LaunchResult, type LiveServer } from './server';
import { gpusFreeBeforeLaunch } from './gpu-env';
import type { PlaceRefused, Placement, RunTarget } from './target-types';
import { runScenario } from './trial';
import { probeLaunch } from './ttft-floor';
import { reachViaOf, withReachableHost } from './bind-address';
import { launchUnit, unitUnsupported } from './unit-launch';

/** Servers up now: when their launch began, what they are for (their GPU time is charged when they stop) and the place they hold. */
const held = new WeakMap<LiveServer, { t0: number; purpose: GpuPurpose; key: string; placement: Placement | undefined }>();

/** A candidate that did not come up (or failed its smoke): status, reason and its server log. */
export interface LaunchFailure {
  cand: Candidate;
  status: RowStatus;
  reason: string;
  log: string;
}

export function serverLogFile(ctx: RunContext, f: PlanFramework, label: string): string {
  return ctx.dir.path('servers', safeName(`${f.framework}-${label}`), 'server.log');
}

/** The GPUs a launch asks a scheduler for: the plan's hardware.gpu_count, else the candidate's parallel sizes. */
export function launchGpus(ctx: RunContext, cand: Candidate): number {
  return launchGpuTotal(ctx.plan.hardware, cand);
}

/** Where this launch runs: the run's target, or a place of its own (a Slurm job) that is released when the server stops. */
async function placeOf(ctx: RunContext, f: PlanFramework, cand: Candidate, purpose: GpuPurpose, argv: readonly string[]): Promise<{ target: RunTarget; placement?: Placement } | PlaceRefused> {
  if (!ctx.target.place) return { target: ctx.target };
  const nodes = candidateNodes(cand);
  const shape = { multiNode: ctx.plan.hardware.multiNode === true, ...(nodes !== undefined ? { nodes } : {}), argv: [...argv], cli: ctx.cliFacts(f.framework) };
  const placed = await ctx.target.place({ framework: f.framework, candidateId: cand.id, purpose, gpus: launchGpus(ctx, cand), ...shape }, ctx.signal);
  return 'refused' in placed ? placed : { target: placed.target, placement: placed };
}

export async function launch(ctx: RunContext, f: PlanFramework, cand: Candidate, logFile: string, purpose: GpuPurpose = 'search'): Promise<LaunchResult | { ok: false; status: 'skipped'; reason: string }> {
  if (cand.unit) return launchUnitOf(ctx, f, cand, logFile, purpose);
  const ref = { framework: f.framework, candidateId: cand.id };
  // Reached over a network (a Slurm node's NodeAddr): an engine that binds loopback by default gets --host 0.0.0.0;
  // cand.command (rows, lenses, resume) stays the candidate's, the added words are logged (and in a multi-node head's command).
  const bind = withReachableHost(f.framework, cand.argv, candidateFlagsJson(cand), reachViaOf(ctx.target));
  if (bind.added.length > 0) ctx.log('info', `${f.framework} ${cand.id}: launched with ${bind.added.join(' ')} added: the runner reaches the server from another host, and ${f.framework} binds loopback by default`);
  if (bind.unreachable) ctx.log('warn', `${f.framework} ${cand.id}: ${bind.unreachable}`);
  const place = await placeOf(ctx, f, cand, purpose, bind.argv);
  if ('refused' in place) return place.refused === 'skipped' ? { ok: false, status: 'skipped', reason: `not run: ${place.reason}` } : { ok: false, status: place.refused, reason: place.reason };
  // A server of this run was stopped on these GPUs: they must be free again, else this launch fails naming the holder (not an `oom` row).
  const gpusBusy = await gpusFreeBeforeLaunch(place.target, ctx.signal);
  if (gpusBusy) return { ok: false, status: 'failed', reason: gpusBusy };
  const t0 = performance.now();
  const secrets = serverSecrets(ctx.secrets, f.framework, readsConfigFile(ctx.plan, f.framework, ctx.opts.container !== undefined));
  let keyFile: KeyFile | undefined;
  try {
    if (secrets.configFlag) keyFile = await writeKeyFile(place.target.executor, ctx.dir.path('keys'));
  } catch (e) {
    await place.placement?.release();
    return { ok: false, status: 'failed', reason: (e as Error).message };
  }
  const r = await launchServer(place.target, {
    framework: f.framework,
    argv: [...bind.argv, ...secrets.extraArgv, ...(keyFile && secrets.configFlag ? [secrets.configFlag, keyFile.file] : [])],
    flags: candidateFlagsJson(cand),
    logFile,
    secretEnv: secrets.secretEnv,
    redactValues: ctx.secrets.values,
    headers: ctx.secrets.headers,
    healthTimeoutMs: ctx.healthTimeoutMs,
    stopGraceMs: ctx.graceMs,
    signal: ctx.signal,
    onState: (state, info) => {
      // Recorded as soon as the group exists, so a killed runner leaves its servers findable.
      if (state === 'waiting' && info.pid) ctx.track({ pgid: info.pid, target: ctx.opts.target, framework: f.framework, candidate: cand.id, program: basename(cand.argv[0] ?? '') }, info.pid, true);
      ctx.emit({ type: 'server', ...ref, state, ...info });
    },
  });
  // The server has read its key file once it answered (or it never will): the key does not stay on the host.
  const left = keyFile ? await removeKeyFile(place.target.executor, keyFile) : undefined;
  if (left) ctx.log('warn', left);
  if (!r.ok && r.status !== 'cancelled' && r.pid) ctx.track(undefined, r.pid, false);
  if (!r.ok && r.status === 'cancelled') ctx.manifest.live_servers = [];
  if (r.ok) {
    r.server.host = place.target.host;
    if (place.placement) r.server.executor = place.target.executor;
    if (place.placement?.jobId) r.server.slurmJob = place.placement.jobId;
    held.set(r.server, { t0, purpose, key: `${f.framework} ${cand.id}`, placement: place.placement });
    // A simulated server's TTFT floor (ttft-floor.ts): probed at idle, before any trial; never on a real engine.
    const floor = purpose === 'smoke' ? undefined : await probeLaunch(r.server, ctx.speed, ctx.plan.sla?.limits);
    if (floor) ctx.log('info', `${f.framework} ${cand.id}: ${floor}`);
  } else {
    ctx.chargeGpu(purpose, `${f.framework} ${cand.id}`, (performance.now() - t0) / 1000);
    await place.placement?.release();
  }
  return r;
}

/**
 * A P/D unit: every process on the run's host, or in a Slurm job laid out over its nodes (unit-nodes.ts); tracked for
 * reaping; GPU time charged for the whole unit; the job released when the unit stops or fails to start.
 */
async function launchUnitOf(ctx: RunContext, f: PlanFramework, cand: Candidate, logFile: string, purpose: GpuPurpose): Promise<LaunchResult | { ok: false; status: 'skipped'; reason: string }> {
  const why = unitUnsupported(ctx.target);
  if (why) return { ok: false, status: 'skipped', reason: `not run: ${why}` };
  const ref = { framework: f.framework, candidateId: cand.id };
  let placement: Placement | undefined;
  if (ctx.target.place && cand.unit) {
    const placed = await ctx.target.place({ framework: f.framework, candidateId: cand.id, purpose, gpus: cand.unit.gpus, unit: cand.unit }, ctx.signal);
    if ('refused' in placed) return placed.refused === 'skipped' ? { ok: false, status: 'skipped', reason: `not run: ${placed.reason}` } : { ok: false, status: placed.refused, reason: placed.reason };
    placement = placed;
  }
  const gpusBusy = placement ? undefined : await gpusFreeBeforeLaunch(ctx.target, ctx.signal);
  if (gpusBusy) return { ok: false, status: 'failed', reason: gpusBusy };
  const t0 = performance.now();
  const pids: number[] = [];
  // The unit's workers listen behind its router; the router takes no API key option of ours yet.
  if (ctx.secrets.apiKey) ctx.log('warn', `${f.framework} ${cand.id}: a P/D unit runs without the plan's API key (its workers listen behind the router; the router is not given one)`);
  const r = await launchUnit(ctx, f, cand, {
    logFile,
    secretEnv: ctx.secrets.serverEnv,
    ...(placement ? { placement } : {}),
    onPid: (pid, p) => {
      pids.push(pid);
      ctx.track({ pgid: pid, target: ctx.opts.target, framework: f.framework, candidate: cand.id, program: basename(p.argv[0] ?? '') }, pid, true);
      ctx.emit({ type: 'server', ...ref, state: 'waiting', pid, port: p.port });
    },
    onLaunched: (line) => ctx.log('info', `${f.framework} ${cand.id}: ${line}`),
  });
  if (!r.ok) {
    for (const pid of pids) ctx.track(undefined, pid, false);
    ctx.chargeGpu(purpose, `${f.framework} ${cand.id}`, (performance.now() - t0) / 1000);
    await placement?.release();
    return r;
  }
  r.server.host = (placement?.target ?? ctx.target).host;
  if (placement) r.server.executor = placement.target.executor;
  if (placement?.jobId) r.server.slurmJob = placement.jobId;
  held.set(r.server, { t0, purpose, key: `${f.framework} ${cand.id}`, placement });
  const floor = purpose === 'smoke' ? undefined : await probeLaunch(r.server, ctx.speed, ctx.plan.sla?.limits);
  if (floor) ctx.log('info', `${f.framework} ${cand.id}: ${floor}`);
  ctx.emit({ type: 'server', ...ref, state: 'ready', pid: r.server.proc.pid, port: r.server.port });
  return r;
}

export async function stop(ctx: RunContext, f: PlanFramework, cand: Candidate, server: LiveServer): Promise<void> {
  ctx.emit({ type: 'server', framework: f.framework, candidateId: cand.id, state: 'stopping', pid: server.proc.pid });
  await stopServer(server, ctx.graceMs);
  const h = held.get(server);
  held.delete(server);
  if (h) ctx.chargeGpu(h.purpose, h.key, (performance.now() - h.t0) / 1000);
  // The client that served the place's trials (a Slurm job's srun step) ends before the place: its input closed, its folder removed.
  if (h?.placement && server.executor) await closeHostClient(server.executor);
  await h?.placement?.release();
  ctx.track(undefined, server.proc.pid, false);
  for (const c of server.companions ?? []) ctx.track(undefined, c.proc.pid, false);
  ctx.emit({ type: 'server', framework: f.framework, candidateId: cand.id, state: 'stopped', pid: server.proc.pid });
}

/** The preflight smoke: the model list, one streaming request and a short burst on the first candidate that will run. */
export async function smoke(ctx: RunContext, f: PlanFramework, cand: Candidate): Promise<LaunchFailure | undefined> {
  const fw = f.framework;
  const st = ctx.fwState(fw);
  const logFile = serverLogFile(ctx, f, 'preflight-smoke');
  ctx.emit({ type: 'preflight', framework: fw, step: 'smoke', status: 'start', detail: `${cand.id}: ${cand.command}` });
  const launched = await launch(ctx, f, cand, logFile, 'smoke');
  if (!launched.ok) {
    if (launched.status === 'cancelled') return undefined;
    st.smoke = { candidate: cand.id, command: cand.command, ok: false, status: launched.status, reason: launched.reason, server_log: ctx.dir.rel(logFile) };
    ctx.emit({ type: 'preflight', framework: fw, step: 'smoke', status: 'failed', detail: launched.reason });
    return { cand, status: launched.status, reason: `preflight smoke: ${launched.reason}`, log: ctx.dir.rel(logFile) };
  }
  const server = launched.server;
  try {
    const sc = ctx.plan.scenarios[0] as Scenario;
    const res = await smokeTest(server, backendFor(fw, ctx.plan.bench.endpoint), ctx.workloads.for(sc), Math.max(5, ctx.opts.smokeRequests ?? 5), ctx.signal);
    st.smoke = { candidate: cand.id, command: cand.command, ok: res.ok, models: res.models ?? null, stream: res.stream, bench: res.bench, server_log: ctx.dir.rel(logFile) };
    ctx.emit({ type: 'preflight', framework: fw, step: 'smoke', status: res.ok ? 'ok' : 'warn', detail: `models: ${res.models ?? '?'}; streaming request: ${res.stream.detail}; smoke: ${res.bench.detail}` });
  } finally {
    await stop(ctx, f, cand, server);
  }
  return undefined;
}

/** Launch, warm, measure every unfinished trial, tear down. 'ok' once the server came up (trial failures are rows of their own). */
export async function runCandidate(ctx: RunContext, f: PlanFramework, cand: Candidate): Promise<'ok' | 'cancelled' | LaunchFailure> {
  const fw = f.framework;
  const logFile = serverLogFile(ctx, f, cand.id);
  const launched = await launch(ctx, f, cand, logFile);
  if (!launched.ok) {
    if (launched.status === 'cancelled') return 'cancelled';
    ctx.emit({ type: 'server', framework: fw, candidateId: cand.id, state: 'failed', ...('pid' in launched && launched.pid ? { pid: launched.pid } : {}), detail: launched.reason });
    return { cand, status: launched.status, reason: launched.reason, log: ctx.dir.rel(logFile) };
  }
  const server = launched.server;
  // Shared by the launch's scenarios: only its first measured trial, in whichever scenario, is warmed up (trial.ts).
  const warmth = { cold: true };
  let dead: { status: RowStatus; reason: string } | undefined;
  try {
    for (const sc of ctx.plan.scenarios) {
      if (ctx.aborted) return 'cancelled';
      if (!dead && server.exit) dead = failureOf(fw, server.proc, 'the server died during an earlier trial');
      if (dead) {
        recordNotRun(ctx, f, cand, dead.status, `not measured: ${dead.reason}`, 'crash', ctx.dir.rel(logFile), [sc]);
        continue;
      }
      const r = await runScenario(ctx, { f, cand, sc, server, logFile }, warmth);
      if (r === 'cancelled') return 'cancelled';
      if (r !== 'ok') dead = { status: r.status, reason: r.reason };
    }
    return 'ok';
  } finally {
    await stop(ctx, f, cand, server);
  }
}
