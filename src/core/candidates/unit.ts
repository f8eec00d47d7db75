// A disaggregated prefill/decode unit as one candidate: its prefill workers, decode workers and router, each process's
// exact command rendered once (GPU slots, ports, transfer flags and environment), in the order they start.
import { disaggProfile, type DisaggProfile, type RouterInputs, type UnitFile, type UnitRole, type WorkerSlot } from '../frameworks/disagg';
import { frameworkSpec } from '../frameworks';
import type { FrameworkKey } from '../frameworks/types';
import { pyNumber, pyStr, type PyMap, type PyValue } from '../py/value';
import type { Combination, FlagMap } from './generate';
import { renderArgv } from './render';
import { shlexJoin, shlexQuote, shlexSplit } from './shell';

export type { UnitFile, UnitRole } from '../frameworks/disagg';

/** Workers listen on loopback: only the router, on the same host, talks to them. */
const WORKER_HOST = '127.0.0.1';

/** One role of a P/D unit as written: how many workers, their flags over base_server_flags, their environment. */
export interface DisaggRoleSection {
  workers: number;
  flags: PyMap;
  env: Array<[string, string]>;
  /** The role's own engine options file keys (TensorRT-LLM's extra_llm_api_options), under what the unit adds. */
  llmApiOptions: PyMap;
}

/** A framework's `disaggregation:` block: units of prefill workers, decode workers and a router, and what to search. */
export interface DisaggSection {
  transferBackend: string;
  /** Extra keys of the engine's transfer config (vLLM's kv_transfer_config JSON). */
  transferConfig: PyMap;
  /** The workers' HTTP ports count up from here (prefill workers first). */
  portBase: number;
  router: { command: string; host: string; port: number; policy: string | undefined; flags: PyMap };
  prefill: DisaggRoleSection;
  decode: DisaggRoleSection;
  /** Keys `prefill.workers`, `decode.<flag>`...: values to try, as search_space has them. */
  searchSpace: PyMap;
  /** Over several nodes (a scheduler's job): pack fills each node in start order; by_role starts each role on a node of its own; job_per_role does so in a job per role. */
  placement: UnitPlacement;
}

export type UnitPlacement = 'pack' | 'by_role' | 'job_per_role';
export const UNIT_PLACEMENTS: readonly UnitPlacement[] = ['pack', 'by_role', 'job_per_role'];

export const UNIT_ROLES: readonly UnitRole[] = ['prefill', 'decode'];

export interface UnitProcess {
  role: UnitRole | 'router';
  /** Index within its role. */
  index: number;
  /** The unit's GPU slots it holds, from 0 (the runner maps slot k to the k-th GPU it gives the unit); none for the router. */
  gpus: number[];
  port: number;
  /** Variables set for this process only (GPU slots, side-channel ports, the role's env): never secrets. */
  env: Array<[string, string]>;
  /** The worker's own flags after the unit's additions (the router: none). */
  flags: FlagMap;
  argv: string[];
  /** The environment assignments, then the argv, shell-quoted: the line Show commands lists and the runner starts. */
  command: string;
}

export interface Unit {
  transferBackend: string;
  workers: Record<UnitRole, number>;
  /** Tensor-parallel size of one worker of each role. */
  tp: Record<UnitRole, number>;
  /** Every GPU the unit holds (all roles). */
  gpus: number;
  routerPort: number;
  placement: UnitPlacement;
  /** Prefill workers, decode workers, then the router: the order they start in. */
  processes: UnitProcess[];
  /** Files written before any process starts, paths relative to the unit's working folder (TensorRT-LLM's YAML files); may be empty. */
  files: UnitFile[];
}

/** A unit's id among its framework's candidates (`pd1`...), also the folder of the files it writes. */
export function unitId(combo: Combination): string {
  return `pd${combo.index + 1}`;
}

/** A heredoc delimiter no line of the content equals. */
function delimiterFor(content: string): string {
  const lines = new Set(content.split('\n'));
  let d = 'EOF';
  for (let n = 1; lines.has(d); n++) d = `EOF_${n}`;
  return d;
}

/** Shell lines that write the unit's files (`mkdir -p`, then one quoted heredoc per file); none when it has none. */
export function unitFileLines(u: Pick<Unit, 'files'>): string[] {
  if (!u.files.length) return [];
  const dirs = [...new Set(u.files.map((f) => f.path.split('/').slice(0, -1).join('/')).filter(Boolean))];
  const out = dirs.length ? [`mkdir -p ${dirs.map(shlexQuote).join(' ')}`] : [];
  for (const f of u.files) {
    const d = delimiterFor(f.content);
    out.push(`cat > ${shlexQuote(f.path)} <<'${d}'\n${f.content.replace(/\n$/, '')}\n${d}`);
  }
  return out;
}

/** The unit as a shell script a person can run by hand: its files written, then every process's command in start order. */
export function unitScript(u: Unit): string {
  return [...unitFileLines(u), ...u.processes.map((p) => p.command)].join('\n');
}

/** A role's flags from the unit combination: base_server_flags, then `role.<flag>` values (null removes a base flag). */
export function roleFlags(base: FlagMap, combo: FlagMap, role: UnitRole): FlagMap {
  const flags: FlagMap = new Map(base);
  for (const [key, value] of combo) {
    if (!key.startsWith(`${role}.`) || key === `${role}.workers`) continue;
    flags.set(key.slice(role.length + 1), value);
  }
  return flags;
}

function parallelSize(flags: FlagMap, names: readonly string[]): number {
  for (const n of names) {
    const v = pyNumber(flags.get(n));
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return 1;
}

/** GPUs one server of these flags holds: tp x pp x dp (SGLang's DP attention runs inside the TP group). */
export function flagGpus(fw: FrameworkKey, flags: FlagMap): { gpus: number; tp: number; dp: number } {
  const keys = frameworkSpec(fw).parallelKeys;
  const tp = parallelSize(flags, keys.tp);
  const dp = parallelSize(flags, keys.dp);
  const dpInsideTp = fw === 'sglang' && flags.get('enable_dp_attention') === true;
  return { gpus: tp * parallelSize(flags, keys.pp) * (dpInsideTp ? 1 : dp), tp, dp };
}

export function workersOf(combo: FlagMap, role: UnitRole): number {
  const v = pyNumber(combo.get(`${role}.workers`));
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : 1;
}

function commandOf(env: Array<[string, string]>, argv: string[]): string {
  return [...env.map(([k, v]) => `${k}=${shlexQuote(v)}`), shlexJoin(argv)].join(' ');
}

export interface UnitRenderInputs {
  framework: FrameworkKey;
  base: FlagMap;
  disagg: DisaggSection;
  combo: Combination;
  /** The framework's argv for a flag set: the same rendering an aggregated candidate gets. */
  argvOf: (flags: FlagMap) => string[];
}

/** The unit's workers in start order, with their GPU slots, ports and side-channel ports laid out on one host. */
function layoutWorkers(i: UnitRenderInputs, profile: DisaggProfile): UnitProcess[] {
  const out: UnitProcess[] = [];
  let gpu = 0;
  let port = i.disagg.portBase;
  let side = profile.sidePortBase;
  for (const role of UNIT_ROLES) {
    const flags0 = roleFlags(i.base, i.combo.flags, role);
    const shape = flagGpus(i.framework, flags0);
    for (let index = 0; index < workersOf(i.combo.flags, role); index++) {
      const slot: WorkerSlot = { role, index, port: port++, sidePort: side };
      side += profile.sidePorts(i.disagg.transferBackend, shape.tp, shape.dp);
      const add = profile.worker(slot, i.disagg.transferBackend, i.disagg.transferConfig, unitId(i.combo));
      const flags: FlagMap = new Map(flags0);
      flags.set('host', WORKER_HOST);
      for (const [k, v] of add.flags) flags.set(k, v);
      const gpus = Array.from({ length: shape.gpus }, (_, k) => gpu + k);
      gpu += shape.gpus;
      const role_ = role === 'prefill' ? i.disagg.prefill : i.disagg.decode;
      const env: Array<[string, string]> = [['CUDA_VISIBLE_DEVICES', gpus.join(',')], ...add.env, ...role_.env];
      const argv = i.argvOf(flags);
      out.push({ role, index, gpus, port: slot.port, env, flags, argv, command: commandOf(env, argv) });
    }
  }
  return out;
}

function routerInputs(i: UnitRenderInputs, workers: UnitProcess[]): RouterInputs {
  const r = i.disagg.router;
  const slots = (role: UnitRole): WorkerSlot[] =>
    workers.filter((w) => w.role === role).map((w) => ({ role, index: w.index, port: w.port, ...sidePortOf(w, role) }));
  return { command: shlexSplit(r.command), host: r.host, port: r.port, policy: r.policy, prefill: slots('prefill'), decode: slots('decode'), workerHost: WORKER_HOST, dir: unitId(i.combo) };
}

/** router.flags as the router spells its options: its own table (TensorRT-LLM's front end), else `--dashed-key`; the unit's defaults first. */
function routerFlagArgv(profile: DisaggProfile, flags: PyMap): string[] {
  const spell = profile.routerFlag;
  if (!spell) return renderArgv({ serverCommand: '', model: undefined, positionalModel: false, flagStyle: 'dash', flags: flags as FlagMap });
  const all = new Map<string, PyValue>((profile.defaultRouterFlags ?? []).filter(([k]) => !flags.has(k)));
  for (const [k, v] of flags) all.set(String(k).replace(/-/g, '_'), v);
  const argv: string[] = [];
  for (const [k, v] of all) if (v !== null) argv.push(spell(k) ?? `--${k}`, pyStr(v));
  return argv;
}

function routerProcess(i: UnitRenderInputs, profile: DisaggProfile, inputs: RouterInputs): UnitProcess {
  const argv = [...profile.routerArgv(inputs), ...routerFlagArgv(profile, i.disagg.router.flags)];
  return { role: 'router', index: 0, gpus: [], port: inputs.port, env: [], flags: new Map(), argv, command: commandOf([], argv) };
}

/** The prefill worker's bootstrap port as its own flags say (SGLang's router is told it per prefill URL). */
function sidePortOf(w: UnitProcess, role: UnitRole): { sidePort?: number } {
  if (role !== 'prefill') return {};
  const v = pyNumber(w.flags.get('disaggregation_bootstrap_port'));
  return typeof v === 'number' ? { sidePort: v } : {};
}

export function renderUnit(i: UnitRenderInputs): Unit {
  const profile = disaggProfile(i.framework);
  if (!profile) throw new Error(`${i.framework} has no P/D profile`);
  const workers = layoutWorkers(i, profile);
  const inputs = routerInputs(i, workers);
  const router = routerProcess(i, profile, inputs);
  const llmApiOptions = { prefill: i.disagg.prefill.llmApiOptions, decode: i.disagg.decode.llmApiOptions };
  const files = profile.files?.({ dir: unitId(i.combo), backend: i.disagg.transferBackend, transferConfig: i.disagg.transferConfig, llmApiOptions, router: inputs }) ?? [];
  const tpOf = (role: UnitRole): number => {
    const w = workers.find((x) => x.role === role);
    return w ? flagGpus(i.framework, w.flags).tp : 1;
  };
  return {
    transferBackend: i.disagg.transferBackend,
    workers: { prefill: workersOf(i.combo.flags, 'prefill'), decode: workersOf(i.combo.flags, 'decode') },
    tp: { prefill: tpOf('prefill'), decode: tpOf('decode') },
    gpus: workers.reduce((n, w) => n + w.gpus.length, 0),
    routerPort: i.disagg.router.port,
    placement: i.disagg.placement,
    processes: [...workers, router],
    files,
  };
}

/** `2P1D prefill TP1, decode TP2` and any other values the combination sets. */
export function unitName(u: Unit, combo: Combination): string {
  const shape = `${u.workers.prefill}P${u.workers.decode}D prefill TP${u.tp.prefill}, decode TP${u.tp.decode}`;
  const other = [...combo.overrides].filter(([k]) => !/^(prefill|decode)\.(workers|tp_size|tensor_parallel_size|tp)$/.test(k));
  return other.length ? `${shape}; ${other.map(([k, v]) => `${k}=${pyStr(v)}`).join(', ')}` : shape;
}
