// Reads a framework's `disaggregation:` block (P/D units) and checks it as the engines would: transfer backend, the
// router and its policy, each role's workers, flags and environment, the flags a unit sets itself, and the unit search.
import { DISAGG_UNSUPPORTED, disaggProfile, type DisaggProfile } from '../frameworks/disagg';
import type { FrameworkKey } from '../frameworks/types';
import { normalizeFlagKey } from '../frameworks';
import { shlexSplit, ShellSyntaxError } from '../candidates/shell';
import { isPyInt, isPyMap, pyRepr, pyStr, type PyMap, type PyScalar, type PyValue } from '../py/value';
import type { FindingSink } from './context';
import { looksLikeSecretName, secretNamedValue } from '../secrets';
import { findFlag, mentionOf } from './known-flags';
import type { DisaggRoleSection, DisaggSection, FrameworkSection } from './model';
import type { YamlPath } from './yaml-doc';
import { UNIT_PLACEMENTS, type UnitPlacement } from '../candidates/unit';
import { checkKvEvents, checkLlmApiOptions, checkRouterFlags, checkTrtTransferConfig, type Reporter } from './disagg-trtllm-rules';
import type { Candidate } from '../candidates/candidate';

const ROLES = ['prefill', 'decode'] as const;
const BLOCK_KEYS = new Set(['transfer_backend', 'transfer_config', 'port_base', 'placement', 'router', 'prefill', 'decode', 'search_space']);
const ROLE_KEYS = new Set(['workers', 'flags', 'env', 'llm_api_options']);
const ROUTER_KEYS = new Set(['command', 'host', 'port', 'policy', 'flags']);


function portOf(v: PyValue | undefined, dflt: number, at: YamlPath, bad: Reporter): number {
  if (v === undefined) return dflt;
  if (isPyInt(v) && v >= 1 && v <= 65535) return v;
  bad('pd-port', `${pyRepr(v ?? null)} is not a port: give a whole number 1-65535`, at);
  return dflt;
}

function unknownKeys(m: PyMap, allowed: Set<string>, at: YamlPath, what: string, bad: Reporter): void {
  for (const k of m.keys()) {
    if (typeof k !== 'string' || !allowed.has(k)) bad('pd-key', `${what} has no key ${pyRepr(k)}: it takes ${[...allowed].join(', ')}`, [...at, String(k)], true);
  }
}

/** A role's flags: known to this CLI, and none the unit sets itself. */
function checkRoleFlag(sec: FrameworkSection, profile: DisaggProfile, key: string, at: YamlPath, bad: Reporter, warn: Reporter): void {
  const norm = normalizeFlagKey(key);
  const why = profile.reserved[norm];
  if (why !== undefined) {
    bad('pd-reserved-flag', `${sec.framework}: a P/D unit sets ${key} on each worker itself (${why}); remove it here`, at, true);
    return;
  }
  if (sec.known.groupedSummaryOnly || findFlag(sec.known, key)) return;
  const mention = mentionOf(sec.known, key);
  if (mention) warn('flag-mentioned-only', `${sec.framework}: ${key} is on no option line of the captured --help; check that this CLI version has the flag`, at, true);
  else bad('unknown-flag', `${sec.framework}: unknown or unsupported server flag ${pyRepr(key)}`, at, true);
}

function readEnv(v: PyValue | undefined, at: YamlPath, bad: Reporter): Array<[string, string]> {
  if (v === undefined || v === null) return [];
  if (!isPyMap(v)) {
    bad('pd-env', 'env must map variable names to values', at);
    return [];
  }
  const out: Array<[string, string]> = [];
  for (const [k, val] of v) {
    const name = String(k);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) bad('pd-env', `${pyRepr(k)} is not an environment variable name`, [...at, name], true);
    else if (val === null || isPyMap(val) || Array.isArray(val)) bad('pd-env', `${name}: give a string, number or boolean`, [...at, name]);
    else if (looksLikeSecretName(name) || secretNamedValue(name, pyStr(val))) {
      bad('pd-env-secret', `${name} looks like a credential: a unit's env is printed in its commands; name it in the secrets: block instead`, [...at, name], true);
    } else out.push([name, pyStr(val)]);
  }
  return out;
}

function readRole(sec: FrameworkSection, profile: DisaggProfile, v: PyValue | undefined, at: YamlPath, bad: Reporter, warn: Reporter): DisaggRoleSection | undefined {
  if (!isPyMap(v)) {
    bad('pd-role', `${String(at[at.length - 1])} must be a mapping with workers, flags and env (each optional)`, at);
    return undefined;
  }
  unknownKeys(v, ROLE_KEYS, at, String(at[at.length - 1]), bad);
  const w = v.get('workers');
  let workers = 1;
  if (w !== undefined) {
    if (isPyInt(w) && w >= 1) workers = w;
    else bad('pd-workers', `workers must be a whole number >= 1, got ${pyRepr(w ?? null)}`, [...at, 'workers']);
  }
  const f = v.get('flags') ?? new Map();
  let flags: PyMap = new Map();
  if (!isPyMap(f)) bad('pd-role', 'flags must map flag names to values', [...at, 'flags']);
  else {
    flags = f;
    for (const k of f.keys()) checkRoleFlag(sec, profile, String(k), [...at, 'flags', String(k)], bad, warn);
  }
  const role = at[at.length - 1] === 'prefill' ? 'prefill' : 'decode';
  const llmApiOptions = checkLlmApiOptions(sec.framework, role, v.get('llm_api_options'), [...at, 'llm_api_options'], bad);
  return { workers, flags, env: readEnv(v.get('env'), [...at, 'env'], bad), llmApiOptions };
}

function readRouter(profile: DisaggProfile, v: PyValue | undefined, at: YamlPath, bad: Reporter): DisaggSection['router'] {
  const r = isPyMap(v) ? v : new Map<string, PyValue>();
  if (v !== undefined && !isPyMap(v)) bad('pd-router', 'router must be a mapping (command, host, port, policy, flags)', at);
  unknownKeys(r, ROUTER_KEYS, at, 'router', bad);
  let command = profile.routerCommand;
  const c = r.get('command');
  if (c !== undefined) {
    try {
      if (typeof c === 'string' && shlexSplit(c).length > 0) command = c;
      else bad('pd-router', 'router.command must name the router program', [...at, 'command']);
    } catch (e) {
      bad('pd-router', `router.command cannot be split like a shell command (${e instanceof ShellSyntaxError ? e.message : String(e)})`, [...at, 'command']);
    }
  }
  const host = r.get('host');
  if (host !== undefined && typeof host !== 'string') bad('pd-router', 'router.host must be an address', [...at, 'host']);
  const policy = r.get('policy');
  if (policy !== undefined && (typeof policy !== 'string' || !profile.routerPolicies.includes(policy))) {
    bad('pd-router-policy', `router policy ${pyRepr(policy ?? null)} is not one the router accepts: ${profile.routerPolicies.join(', ')}`, [...at, 'policy']);
  }
  const flags = r.get('flags');
  if (flags !== undefined && !isPyMap(flags)) bad('pd-router', 'router.flags must map flag names to values', [...at, 'flags']);
  if (isPyMap(flags)) checkRouterFlags(profile, flags, [...at, 'flags'], bad);
  return {
    command,
    host: typeof host === 'string' ? host : '127.0.0.1',
    port: portOf(r.get('port'), 8000, [...at, 'port'], bad),
    policy: typeof policy === 'string' && profile.routerPolicies.includes(policy) ? policy : undefined,
    flags: isPyMap(flags) ? flags : new Map<PyScalar, PyValue>(),
  };
}

function readSearch(sec: FrameworkSection, profile: DisaggProfile, v: PyValue | undefined, at: YamlPath, bad: Reporter, warn: Reporter): PyMap {
  if (v === undefined || v === null) return new Map();
  if (!isPyMap(v)) {
    bad('pd-search', 'search_space must map `prefill.<flag>`, `decode.<flag>` or `<role>.workers` to values to try', at);
    return new Map();
  }
  for (const [k, val] of v) {
    const key = String(k);
    const m = /^(prefill|decode)\.(.+)$/.exec(key);
    if (!m) {
      bad('pd-search', `${pyRepr(k)}: say which role it varies (prefill.${key} or decode.${key})`, [...at, key], true);
      continue;
    }
    const flag = m[2] ?? '';
    if (flag === 'workers') {
      const vals = Array.isArray(val) ? val : [val];
      if (!vals.every((x) => isPyInt(x) && x >= 1)) bad('pd-workers', `${key}: worker counts must be whole numbers >= 1`, [...at, key]);
    } else checkRoleFlag(sec, profile, flag, [...at, key], bad, warn);
  }
  return v;
}

function readBackend(fw: FrameworkKey, profile: DisaggProfile, v: PyValue | undefined, at: YamlPath, bad: Reporter): string {
  const dflt = profile.backends[0] ?? '';
  if (v === undefined) return dflt;
  if (typeof v === 'string' && profile.backends.includes(v)) return v;
  const upper = typeof v === 'string' ? v.toUpperCase() : undefined;
  if (fw === 'tensorrt_llm' && upper !== undefined && profile.backends.includes(upper)) {
    bad('pd-transfer-backend', `${fw}: transfer_backend ${pyRepr(v ?? null)}: cache_transceiver_config.backend is spelled ${upper} (llm_args.py @0228a712 takes DEFAULT, UCX, NIXL, MOONCAKE, MPI)`, at);
    return dflt;
  }
  bad('pd-transfer-backend', `${fw}: transfer_backend ${pyRepr(v ?? null)} is not one it has: ${profile.backends.join(', ')}`, at);
  return dflt;
}

/**
 * vLLM's kv_transfer_config: the unit writes kv_connector and kv_role from the backend and roles, and asks for
 * kv_load_failure_policy fail, since recompute hides failed transfers behind prefill work on the decode worker
 * (docs/features/nixl_connector_usage.md @026c83f9; the default was recompute before vLLM PR #34896).
 */
function checkTransferConfig(fw: FrameworkKey, tc: PyMap, at: YamlPath, bad: Reporter, warn: Reporter): void {
  if (fw === 'tensorrt_llm') return checkTrtTransferConfig(tc, at, bad, warn);
  if (fw !== 'vllm') {
    if (tc.size) bad('pd-transfer-config', `${fw}: transfer_config is for vLLM's kv_transfer_config; ${fw} takes its transfer settings as worker flags`, at);
    return;
  }
  for (const k of ['kv_connector', 'kv_role']) if (tc.has(k)) bad('pd-transfer-config', `${k} follows from transfer_backend and each worker's role: remove it`, [...at, k], true);
  const policy = tc.get('kv_load_failure_policy');
  if (policy !== undefined && policy !== 'fail') {
    warn('pd-failure-policy', `kv_load_failure_policy ${pyRepr(policy ?? null)}: a failed KV transfer is recomputed on the decode worker, so a broken transfer path looks like a slow one; 'fail' (the unit's default) makes it an error the run sees`, [...at, 'kv_load_failure_policy']);
  }
}

/** Reads and checks `frameworks.<fw>.disaggregation`; sets `sec.disagg` when units can be built from it. */
export function checkDisaggregation(sink: FindingSink, fw: FrameworkKey, section: PyMap, sec: FrameworkSection): void {
  const block = section.get('disaggregation');
  if (block === undefined || block === null) return;
  const at: YamlPath = ['frameworks', fw, 'disaggregation'];
  const profile = disaggProfile(fw);
  if (!profile) {
    sink.error('pd-unsupported', `${fw}: P/D units are not available for this framework: ${DISAGG_UNSUPPORTED[fw] ?? 'no P/D mode known'}`, at, { onKey: true });
    return;
  }
  if (!isPyMap(block)) {
    sink.error('pd-mapping', `${fw}: disaggregation must be a mapping with prefill and decode roles`, at);
    return;
  }
  let ok = true;
  const said = (m: string): string => (m.startsWith(`${fw}: `) ? m : `${fw}: ${m}`);
  const bad: Reporter = (code, message, path, onKey) => {
    ok = false;
    sink.error(code, said(message), path, { onKey: onKey ?? false });
  };
  const warn: Reporter = (code, message, path, onKey) => void sink.warn(code, said(message), path, { onKey: onKey ?? false });
  unknownKeys(block, BLOCK_KEYS, at, 'disaggregation', bad);
  const transferBackend = readBackend(fw, profile, block.get('transfer_backend'), [...at, 'transfer_backend'], bad);
  if (fw === 'tensorrt_llm' && transferBackend === 'MPI') {
    warn('pd-backend-deprecated', 'the MPI KV transfer backend is deprecated in TensorRT-LLM (examples/disaggregated/README.md @c3c3d76e); its docs recommend UCX or NIXL', [...at, 'transfer_backend']);
  }
  const tc = block.get('transfer_config');
  if (tc !== undefined && !isPyMap(tc)) bad('pd-transfer-config', 'transfer_config must be a mapping of the engine transfer config keys', [...at, 'transfer_config']);
  if (isPyMap(tc)) checkTransferConfig(fw, tc, [...at, 'transfer_config'], bad, warn);
  const roles = ROLES.map((r) => readRole(sec, profile, block.get(r), [...at, r], bad, warn));
  const router = readRouter(profile, block.get('router'), [...at, 'router'], bad);
  const portBase = portOf(block.get('port_base'), 30000, [...at, 'port_base'], bad);
  const searchSpace = readSearch(sec, profile, block.get('search_space'), [...at, 'search_space'], bad, warn);
  const pl = block.get('placement');
  const placement: UnitPlacement = pl === undefined || pl === null ? 'pack' : (UNIT_PLACEMENTS as readonly unknown[]).includes(pl) ? (pl as UnitPlacement) : 'pack';
  if (pl !== undefined && pl !== null && placement !== pl) bad('pd-placement', `placement must be ${UNIT_PLACEMENTS.slice(0, -1).join(', ')} or ${UNIT_PLACEMENTS[UNIT_PLACEMENTS.length - 1]} (pack fills each node in start order; by_role starts each role on nodes of its own; job_per_role does so in a Slurm job per role)`, [...at, 'placement']);
  const [prefill, decode] = roles;
  if (!ok || !prefill || !decode) return;
  if (router.policy === 'kv_cache_aware') checkKvEvents({ prefill: prefill.llmApiOptions, decode: decode.llmApiOptions }, at, warn);
  sec.disagg = { transferBackend, transferConfig: isPyMap(tc) ? tc : new Map<PyScalar, PyValue>(), portBase, router, prefill, decode, searchSpace, placement };
}

/**
 * Rules on the units as built: vLLM's MooncakeConnector transfers only between equal TP sizes (it logs "Heterogeneous
 * TP is not supported yet" and moves nothing: vllm · kv_connector/v1/mooncake/mooncake_connector.py @5c512330), and no
 * two processes of a unit may listen on one port.
 */
export function checkUnits(sink: FindingSink, fw: FrameworkKey, units: readonly Candidate[]): void {
  const at: YamlPath = ['frameworks', fw, 'disaggregation'];
  const profile = disaggProfile(fw);
  const uneven = units.filter((c) => c.unit && profile?.equalTpBackends.includes(c.unit.transferBackend) && c.unit.tp.prefill !== c.unit.tp.decode);
  if (uneven.length) {
    const list = uneven.map((c) => `${c.id} (prefill TP${c.unit?.tp.prefill}, decode TP${c.unit?.tp.decode})`).join(', ');
    sink.error('pd-equal-tp', `${fw}: the ${uneven[0]?.unit?.transferBackend} transfer backend needs the same TP on prefill and decode workers: ${list}; use nixl, or equal TP`, [...at, 'transfer_backend']);
  }
  for (const c of units) {
    const clash = portClash(c);
    if (clash) sink.error('pd-port-clash', `${fw}: ${c.id}: ${clash}; move router.port or port_base`, [...at, 'port_base']);
  }
}

function portClash(c: Candidate): string | undefined {
  const seen = new Map<number, string>();
  for (const p of c.unit?.processes ?? []) {
    const who = p.role === 'router' ? 'the router' : `${p.role} worker ${p.index}`;
    const mine = [p.port, ...p.env.filter(([k]) => /PORT$/.test(k)).map(([, v]) => Number(v))];
    const boot = p.flags.get('disaggregation_bootstrap_port');
    if (typeof boot === 'number') mine.push(boot);
    for (const port of mine) {
      const other = seen.get(port);
      if (other !== undefined && other !== who) return `${who} and ${other} both use port ${port}`;
      seen.set(port, who);
    }
  }
  return undefined;
}
