// Launches a P/D unit as one candidate: the files it writes (unit-files.ts), its prefill and decode workers (each the
// exact command of the unit, on its GPU slots and ports, started in the unit's folder), then its router; ready once
// every worker answers and the router counts every one of them at /workers (TensorRT-LLM's front end: once its /health
// answers, which it does only when every worker's does); the load client talks to the router; stopping the unit stops
// the router, then every worker.
import { dirname, join } from 'node:path';
import type { Candidate } from '../core/candidates/candidate';
import type { Unit, UnitProcess } from '../core/candidates/unit';
import type { FrameworkKey } from '../core/frameworks/types';
import type { PlanFramework } from '../core/plan/types';
import type { RunContext } from './context';
import { ALL_INTERFACES } from './bind-address';
import { LAUNCH_ENV } from './launch-env';
import { launchServer, stopServer, type LaunchResult, type LiveServer } from './server';
import type { Placement, RunTarget } from './target-types';
import { retargetFrontEnd, writeUnitFiles, type UnitDir } from './unit-files';

/** Targets a unit runs on: this machine or an ssh host (every process there), a Slurm job over the nodes its layout needs. */
const UNIT_TARGETS = new Set(['sim', 'local', 'ssh', 'slurm']);

export function unitUnsupported(target: RunTarget): string | undefined {
  if (UNIT_TARGETS.has(target.kind)) return undefined;
  return `P/D units run on --target sim, local, ssh or slurm; not on ${target.kind}`;
}

function processLabel(p: UnitProcess): string {
  return p.role === 'router' ? 'router' : `${p.role} worker ${p.index}`;
}

function processLog(logFile: string, p: UnitProcess): string {
  return p.role === 'router' ? logFile : join(dirname(logFile), `${p.role}-${p.index}.log`);
}

/** Where each process runs: the run's target, or on a Slurm job the node the unit's layout puts it on. */
function targetOf(base: RunTarget, placement: Placement | undefined, i: number): RunTarget {
  const node = placement?.unitLayout?.at[i]?.node ?? 0;
  return placement?.nodeTargets?.[node] ?? placement?.target ?? base;
}

/** Where each process listens: the unit's own ports on a real host; free ports on the simulator, the router told where. */
async function portsOf(base: RunTarget, placement: Placement | undefined, fw: FrameworkKey, procs: readonly UnitProcess[]): Promise<Map<UnitProcess, { port: number; env: Record<string, string> }>> {
  const out = new Map<UnitProcess, { port: number; env: Record<string, string> }>();
  const free = base.kind === 'sim' || (placement !== undefined && base.simulated);
  for (const [i, p] of procs.entries()) {
    if (free) out.set(p, await targetOf(base, placement, i).prepareLaunch(fw, {}));
    else out.set(p, { port: p.port, env: { ...LAUNCH_ENV[fw] } });
  }
  const map = procs.filter((p) => p.role !== 'router').map((p) => `${p.port}:${out.get(p)?.port ?? p.port}`);
  const router = procs.find((p) => p.role === 'router');
  const r = router && out.get(router);
  if (r && free) r.env.AUTOBENCH_SIM_PORTMAP = map.join(',');
  return out;
}

/** A process's environment: the unit's (its GPU slots mapped onto the GPUs the run, or its node in the job, gives it), then the target's. */
function envOf(target: RunTarget, p: UnitProcess, base: Record<string, string>, nodeGpus: number[] | undefined): Record<string, string> {
  const env: Record<string, string> = { ...base };
  for (const [k, v] of p.env) env[k] = v;
  const gpus = nodeGpus ?? (p.gpus.length && target.gpus?.length ? p.gpus.map((g) => target.gpus?.[g] ?? g) : undefined);
  if (p.gpus.length && gpus) {
    env.CUDA_VISIBLE_DEVICES = gpus.map(String).join(',');
    env.CUDA_DEVICE_ORDER = 'PCI_BUS_ID';
  }
  return env;
}

/**
 * A unit in a Slurm job: every process listens on every address of its node (the runner checks each from the login
 * host, as an aggregated server there gets --host 0.0.0.0); over several nodes the router names each worker at its
 * node's address (vLLM's NIXL side channel at it too). On this machine or an ssh host the unit's own lines stand.
 */
function acrossNodes(procs: readonly UnitProcess[], placement: Placement | undefined): Map<UnitProcess, { argv: string[]; env: Record<string, string> }> {
  const out = new Map<UnitProcess, { argv: string[]; env: Record<string, string> }>();
  const layout = placement?.unitLayout;
  if (!layout) return out;
  if (layout.nodes < 2) {
    // One node: the runner checks each worker's health from the login host, so every process listens beyond loopback.
    for (const p of procs) out.set(p, { argv: reachable(p.argv), env: {} });
    return out;
  }
  const addr = (i: number): string => placement?.nodeTargets?.[layout.at[i]?.node ?? 0]?.address ?? '127.0.0.1';
  const byPort = new Map(procs.map((p, i) => [p.port, addr(i)] as const));
  for (const [i, p] of procs.entries()) {
    const argv = [...p.argv];
    if (p.role === 'router') {
      for (let k = 0; k < argv.length - 1; k++) {
        if (argv[k] !== '--prefill' && argv[k] !== '--decode') continue;
        const u = new URL(argv[k + 1] as string);
        u.hostname = byPort.get(Number(u.port)) ?? u.hostname;
        argv[k + 1] = u.toString().replace(/\/$/, '');
      }
      out.set(p, { argv: reachable(argv), env: {} });
      continue;
    }
    out.set(p, { argv: reachable(argv), env: p.env.some(([k]) => k === 'VLLM_NIXL_SIDE_CHANNEL_PORT') ? { VLLM_NIXL_SIDE_CHANNEL_HOST: addr(i) } : {} });
  }
  return out;
}

/**
 * The argv with its --host value replaced by every interface: the unit's own lines set loopback explicitly, which
 * bind-address.ts withReachableHost rightly refuses to override for a user's flag; here it is ours to move.
 */
function reachable(argv: readonly string[]): string[] {
  const out = [...argv];
  const h = out.indexOf('--host');
  if (h >= 0) out[h + 1] = ALL_INTERFACES;
  return out;
}

/** Polls the router's /workers until it counts every worker of the unit (its /readiness only needs one of each role). */
async function routerSeesAll(server: LiveServer, want: { prefill: number; decode: number }, timeoutMs: number, signal: AbortSignal | undefined): Promise<string | undefined> {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer';
  while (performance.now() < deadline) {
    if (signal?.aborted) return 'cancelled';
    try {
      const r = await fetch(`${server.baseUrl}/workers`, { signal: AbortSignal.timeout(5000) });
      const j = (await r.json()) as { stats?: { prefill_count?: number; decode_count?: number } };
      const s = j.stats ?? {};
      if ((s.prefill_count ?? 0) >= want.prefill && (s.decode_count ?? 0) >= want.decode) return undefined;
      last = `${s.prefill_count ?? 0}/${want.prefill} prefill and ${s.decode_count ?? 0}/${want.decode} decode workers`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((res) => setTimeout(res, 200));
  }
  return `the router did not count every worker within ${Math.round(timeoutMs / 1000)} s (last: ${last})`;
}

/**
 * The unit's file contents for this launch: as shown, but on a Slurm job the front end's config listens on every
 * interface and, over several nodes, names each worker at its node's address (as acrossNodes does for router argv).
 */
function fileContents(unit: Unit, placement: Placement | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const layout = placement?.unitLayout;
  if (!layout) return out;
  const byPort = new Map(unit.processes.map((p, i) => [p.port, placement?.nodeTargets?.[layout.at[i]?.node ?? 0]?.address] as const));
  for (const f of unit.files) {
    if (f.role !== 'router') continue;
    out.set(f.path, retargetFrontEnd(f.content, ALL_INTERFACES, (port) => (layout.nodes > 1 ? byPort.get(port) : undefined)));
  }
  return out;
}

/** The unit's files on the target of its first process (a Slurm job's nodes share the run directory). */
async function unitDir(ctx: RunContext, f: PlanFramework, cand: Candidate, unit: Unit, placement: Placement | undefined, say: (line: string) => void): Promise<UnitDir | string> {
  if (!unit.files.length) return { cwd: '' };
  const contents = fileContents(unit, placement);
  try {
    const dir = await writeUnitFiles(ctx, targetOf(ctx.target, placement, 0), `${f.framework}-${cand.id}`, unit, contents);
    ctx.log('info', `${f.framework} ${cand.id}: wrote ${unit.files.map((x) => x.path).join(', ')} in ${dir.cwd}; every process of the unit starts there${dir.remove ? ' (removed once the unit answers)' : ''}`);
    for (const [path, text] of contents) say(`${path} as written for the job's nodes:\n${text}`);
    return dir;
  } catch (e) {
    return `the unit's files: ${(e as Error).message}`;
  }
}

export interface UnitLaunchOptions {
  logFile: string;
  /** A Slurm job holding the unit: a target per node and each process's node and GPUs there. */
  placement?: Placement;
  /** Says what was launched where when it differs from the unit's own lines (several nodes). */
  onLaunched?: (line: string) => void;
  /** Names of the secret variables every process gets (HF_TOKEN...): values never in a command line. */
  secretEnv: readonly string[];
  onPid: (pid: number, p: UnitProcess) => void;
}

/** Starts every process of the unit in order; on any failure stops those already up and says which process failed. */
export async function launchUnit(ctx: RunContext, f: PlanFramework, cand: Candidate, o: UnitLaunchOptions): Promise<LaunchResult> {
  const unit = cand.unit;
  if (!unit) throw new Error(`${cand.id} is not a P/D unit`);
  const placement = o.placement;
  const dir = await unitDir(ctx, f, cand, unit, placement, (line) => o.onLaunched?.(line));
  if (typeof dir === 'string') return { ok: false, status: 'failed', reason: dir };
  const r = await launchProcesses(ctx, f, unit, o, dir.cwd);
  await dir.remove?.().catch((e: unknown) => ctx.log('warn', `${f.framework} ${cand.id}: could not remove the unit's folder ${dir.cwd}: ${(e as Error).message}`));
  return r;
}

/** TensorRT-LLM's front end has no /workers and no /v1/models: its /health is 200 only once every worker's is (disagg server lifespan @3e53e4ad). */
const HEALTH_READY: ReadonlySet<FrameworkKey> = new Set(['tensorrt_llm']);

async function launchProcesses(ctx: RunContext, f: PlanFramework, unit: Unit, o: UnitLaunchOptions, cwd: string): Promise<LaunchResult> {
  const placement = o.placement;
  const ports = await portsOf(ctx.target, placement, f.framework, unit.processes);
  const moved = acrossNodes(unit.processes, placement);
  const up: LiveServer[] = [];
  const stopAll = async (): Promise<void> => {
    for (const s of [...up].reverse()) await stopServer(s, ctx.graceMs);
  };
  for (const [i, p] of unit.processes.entries()) {
    const target = targetOf(ctx.target, placement, i);
    const at = ports.get(p) ?? { port: p.port, env: {} };
    const m = moved.get(p);
    const env = { ...envOf(target, p, at.env, placement?.unitLayout?.at[i]?.gpus), ...m?.env };
    if (m) o.onLaunched?.(`${processLabel(p)} on ${target.host}: ${m.argv.join(' ')}`);
    const own: RunTarget = { ...target, prepareLaunch: () => Promise.resolve({ port: at.port, env }) };
    const r = await launchServer(own, {
      framework: f.framework,
      argv: m?.argv ?? p.argv,
      flags: {},
      logFile: processLog(o.logFile, p),
      secretEnv: o.secretEnv,
      redactValues: ctx.secrets.values,
      healthTimeoutMs: ctx.healthTimeoutMs,
      stopGraceMs: ctx.graceMs,
      signal: ctx.signal,
      onState: (state, info) => {
        if (state === 'waiting' && info.pid) o.onPid(info.pid, p);
      },
      ...(cwd ? { cwd } : {}),
      ...(p.role === 'router' && HEALTH_READY.has(f.framework) ? { ready: { path: '/health', model: up[0]?.model } } : {}),
    });
    if (!r.ok) {
      await stopAll();
      return { ...r, reason: `${processLabel(p)}: ${r.reason}` };
    }
    up.push(r.server);
  }
  const router = up[up.length - 1] as LiveServer;
  const missing = HEALTH_READY.has(f.framework) ? undefined : await routerSeesAll(router, unit.workers, ctx.healthTimeoutMs, ctx.signal);
  if (missing) {
    await stopAll();
    return { ok: false, status: missing === 'cancelled' ? 'cancelled' : 'failed', reason: `router: ${missing}` };
  }
  router.companions = up.slice(0, -1);
  return { ok: true, server: router };
}
