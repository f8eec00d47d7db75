// Launches a P/D unit as one candidate: its prefill and decode workers (each the exact command of the unit, on its GPU
// slots and ports), then its router; ready once every worker answers and the router counts every one of them at
// /workers; the load client talks to the router; stopping the unit stops the router, then every worker.
import { dirname, join } from 'node:path';
import type { Candidate } from '../core/candidates/candidate';
import type { UnitProcess } from '../core/candidates/unit';
import type { FrameworkKey } from '../core/frameworks/types';
import type { PlanFramework } from '../core/plan/types';
import type { RunContext } from './context';
import { LAUNCH_ENV } from './launch-env';
import { launchServer, stopServer, type LaunchResult, type LiveServer } from './server';
import type { RunTarget } from './target-types';

/** Targets a unit runs on in this version: all its processes on the run's one host (this machine, or the ssh host). */
const UNIT_TARGETS = new Set(['sim', 'local', 'ssh']);

export function unitUnsupported(target: RunTarget): string | undefined {
  if (UNIT_TARGETS.has(target.kind)) return undefined;
  return `P/D units run on --target sim, local or ssh in this version (every process on one host); ${target.kind} placement of a unit's roles comes next`;
}

function processLabel(p: UnitProcess): string {
  return p.role === 'router' ? 'router' : `${p.role} worker ${p.index}`;
}

function processLog(logFile: string, p: UnitProcess): string {
  return p.role === 'router' ? logFile : join(dirname(logFile), `${p.role}-${p.index}.log`);
}

/** Where each process listens: the unit's own ports on a real host; free ports on the simulator, the router told where. */
async function portsOf(target: RunTarget, fw: FrameworkKey, procs: readonly UnitProcess[]): Promise<Map<UnitProcess, { port: number; env: Record<string, string> }>> {
  const out = new Map<UnitProcess, { port: number; env: Record<string, string> }>();
  for (const p of procs) {
    if (target.kind === 'sim') out.set(p, await target.prepareLaunch(fw, {}));
    else out.set(p, { port: p.port, env: { ...LAUNCH_ENV[fw] } });
  }
  const map = procs.filter((p) => p.role !== 'router').map((p) => `${p.port}:${out.get(p)?.port ?? p.port}`);
  const router = procs.find((p) => p.role === 'router');
  const r = router && out.get(router);
  if (r && target.kind === 'sim') r.env.AUTOBENCH_SIM_PORTMAP = map.join(',');
  return out;
}

/** A process's environment: the unit's (its GPU slots mapped onto the GPUs the run was given), then the target's. */
function envOf(target: RunTarget, p: UnitProcess, base: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...base };
  for (const [k, v] of p.env) env[k] = v;
  if (p.gpus.length && target.gpus?.length) {
    env.CUDA_VISIBLE_DEVICES = p.gpus.map((g) => String(target.gpus?.[g] ?? g)).join(',');
    env.CUDA_DEVICE_ORDER = 'PCI_BUS_ID';
  }
  return env;
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

export interface UnitLaunchOptions {
  logFile: string;
  /** Names of the secret variables every process gets (HF_TOKEN...): values never in a command line. */
  secretEnv: readonly string[];
  onPid: (pid: number, p: UnitProcess) => void;
}

/** Starts every process of the unit in order; on any failure stops those already up and says which process failed. */
export async function launchUnit(ctx: RunContext, f: PlanFramework, cand: Candidate, o: UnitLaunchOptions): Promise<LaunchResult> {
  const unit = cand.unit;
  if (!unit) throw new Error(`${cand.id} is not a P/D unit`);
  const target = ctx.target;
  const ports = await portsOf(target, f.framework, unit.processes);
  const up: LiveServer[] = [];
  const stopAll = async (): Promise<void> => {
    for (const s of [...up].reverse()) await stopServer(s, ctx.graceMs);
  };
  for (const p of unit.processes) {
    const at = ports.get(p) ?? { port: p.port, env: {} };
    const own: RunTarget = { ...target, prepareLaunch: () => Promise.resolve({ port: at.port, env: envOf(target, p, at.env) }) };
    const r = await launchServer(own, {
      framework: f.framework,
      argv: p.argv,
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
    });
    if (!r.ok) {
      await stopAll();
      return { ...r, reason: `${processLabel(p)}: ${r.reason}` };
    }
    up.push(r.server);
  }
  const router = up[up.length - 1] as LiveServer;
  const missing = await routerSeesAll(router, unit.workers, ctx.healthTimeoutMs, ctx.signal);
  if (missing) {
    await stopAll();
    return { ok: false, status: missing === 'cancelled' ? 'cancelled' : 'failed', reason: `router: ${missing}` };
  }
  router.companions = up.slice(0, -1);
  return { ok: true, server: router };
}
