// The secrets one run may use, decided once: the names the user sent (--secret-env, the plan's `secrets:` block), their values from the run's secret source, what each server and the load client get, and every value to redact.
import type { SecretSource } from '../exec';
import type { FrameworkKey } from '../core/frameworks/types';
import type { PlanSecrets } from '../core/plan/secrets';
import type { RunPlan } from '../core/plan/types';
import { findFlag, knownFlagsFor } from '../core/config/known-flags';
import { frameworkSpec } from '../core/frameworks';
import { CLIENT_HEADERS_ENV } from '../client/wire';

/** The variable vLLM reads its API key from (its `--api-key` wins when both are set). */
export const VLLM_API_KEY_ENV = 'VLLM_API_KEY';
/** The client's secret headers as one JSON object, for a client started on the target's host (never a file or an argv). */
export { CLIENT_HEADERS_ENV };
/** A server config file's text (SGLang's `--config`: `{"api-key": …}`), written on the host from this variable. */
export const SERVER_CONFIG_ENV = 'AUTOBENCH_SERVER_CONFIG';

/** A secret the run needs but the environment does not hold: the run cannot authenticate without it. */
export class MissingSecretError extends Error {
  constructor(readonly names: string[]) {
    super(`${names.map((n) => `$${n}`).join(', ')} ${names.length > 1 ? 'are' : 'is'} named by the plan's secrets block but not set: set ${names.length > 1 ? 'them' : 'it'} in the environment (in the editor: allow sending ${names.length > 1 ? 'them' : 'it'} to the target when asked)`);
    this.name = 'MissingSecretError';
  }
}

export interface RunSecrets {
  /** The run's secret source with the derived names (VLLM_API_KEY, the client's headers) answered. */
  source: SecretSource;
  /** Names every server gets in its environment (set ones only). */
  serverEnv: string[];
  /** Named for the servers but not set: they start without them. */
  unset: string[];
  /** The variable holding the servers' API key, when the plan names one. */
  apiKey?: { name: string; value: string };
  /** Headers the client sends with every request (Authorization: Bearer from the API key included). */
  headers: Record<string, string>;
  /** Every value to keep out of files, logs, rows and stderr. */
  values: string[];
  /** For the record (manifest, stderr): which names go where — names only. */
  summary: { server_env: string[]; api_key?: string; headers: Record<string, string> };
}

/** Decides the run's secrets; throws MissingSecretError when the API key or a header's variable is not set. */
export function runSecrets(plan: PlanSecrets, secretEnv: readonly string[], base: SecretSource): RunSecrets {
  const get = (n: string): string | undefined => {
    const v = base(n);
    return v === undefined || v === '' ? undefined : v;
  };
  const named = [...new Set([...secretEnv, ...plan.serverEnv])];
  const missing = [plan.apiKey, ...Object.values(plan.headers)].filter((n): n is string => n !== undefined && get(n) === undefined);
  if (missing.length) throw new MissingSecretError([...new Set(missing)]);
  const apiKey = plan.apiKey ? { name: plan.apiKey, value: get(plan.apiKey) as string } : undefined;
  const headers: Record<string, string> = {};
  for (const [h, n] of Object.entries(plan.headers)) headers[h] = get(n) as string;
  if (apiKey) headers.authorization = `Bearer ${apiKey.value}`;
  const derived = new Map<string, string>();
  if (apiKey) derived.set(VLLM_API_KEY_ENV, apiKey.value);
  if (apiKey) derived.set(SERVER_CONFIG_ENV, JSON.stringify({ 'api-key': apiKey.value }));
  if (Object.keys(headers).length) derived.set(CLIENT_HEADERS_ENV, JSON.stringify(headers));
  const source: SecretSource = (n) => derived.get(n) ?? base(n);
  const serverEnv = named.filter((n) => get(n) !== undefined);
  const values = [...serverEnv.map((n) => get(n) as string), ...(apiKey ? [apiKey.value] : []), ...Object.values(headers), ...derived.values()];
  return {
    source,
    serverEnv,
    unset: named.filter((n) => get(n) === undefined),
    ...(apiKey ? { apiKey } : {}),
    headers,
    values: [...new Set(values)],
    summary: { server_env: serverEnv, ...(apiKey ? { api_key: apiKey.name } : {}), headers: { ...plan.headers } },
  };
}

/**
 * How a framework's server gets the API key, never on its command line where the framework allows it: vLLM from
 * VLLM_API_KEY; SGLang from a `--config` file (0600, written on the host from SERVER_CONFIG_ENV, removed once the
 * server answered) when its flags (a captured --help) list `--config`; otherwise SGLang takes it only as `--api-key`
 * (visible in the host's process list while the server runs: the run says so). TensorRT-LLM's trtllm-serve has no key
 * option; TokenSpeed's `ts serve` routes `--api-key` to its engine (the flag is in the engine's ServerArgs, and
 * cli/_argsplit.py sends every such flag to the engine only, lightseekorg/tokenspeed @1e9340c2), while the smg gateway
 * that serves HTTP gets no key: a key on its command line would be exposed and protect nothing. Both run without one.
 */
export type KeyDelivery = { kind: 'env'; name: string } | { kind: 'file'; flag: string } | { kind: 'argv'; flag: string } | { kind: 'none'; why: string };

export function keyDelivery(fw: FrameworkKey, readsConfigFile: boolean): KeyDelivery {
  if (fw === 'vllm') return { kind: 'env', name: VLLM_API_KEY_ENV };
  if (fw === 'sglang' && readsConfigFile) return { kind: 'file', flag: '--config' };
  if (fw === 'sglang') return { kind: 'argv', flag: '--api-key' };
  if (fw === 'tokenspeed') return { kind: 'none', why: 'ts serve gives --api-key to its engine, not to the gateway that serves HTTP' };
  return { kind: 'none', why: 'no key option' };
}

/** What one server's launch adds for the run's secrets: its secret variables, the argv words after the candidate's command, and a key file to write first. */
export interface ServerSecrets {
  secretEnv: string[];
  extraArgv: string[];
  /** Write SERVER_CONFIG_ENV to a private file on the host and pass it with this flag. */
  configFlag?: string;
}

export function serverSecrets(s: RunSecrets, fw: FrameworkKey, readsConfigFile: boolean): ServerSecrets {
  const secretEnv = [...s.serverEnv];
  const extraArgv: string[] = [];
  if (!s.apiKey) return { secretEnv, extraArgv };
  const d = keyDelivery(fw, readsConfigFile);
  if (d.kind === 'env' && !secretEnv.includes(d.name)) secretEnv.push(d.name);
  if (d.kind === 'argv') extraArgv.push(d.flag, s.apiKey.value);
  return { secretEnv, extraArgv, ...(d.kind === 'file' ? { configFlag: d.flag } : {}) };
}

/** Which secret names go where, for the person starting the run (names only; a value is never printed). */
export function secretsLines(s: RunSecrets, target: string, frameworks: ReadonlyArray<{ framework: FrameworkKey; readsConfigFile: boolean }>): string[] {
  const parts: string[] = [];
  if (s.serverEnv.length) parts.push(`${s.serverEnv.join(', ')} in every server's environment`);
  if (s.apiKey) {
    const how = frameworks.map(({ framework, readsConfigFile }) => {
      const d = keyDelivery(framework, readsConfigFile);
      const name = frameworkSpec(framework).displayName;
      if (d.kind === 'env') return `${name} as ${d.name}`;
      if (d.kind === 'file') return `${name} in a private ${d.flag} file`;
      return d.kind === 'argv' ? `${name} as ${d.flag} (its command line: visible in the host's process list)` : `${name} without a key (${d.why})`;
    });
    parts.push(`${s.apiKey.name} as the servers' API key (${how.join('; ')}) and the client's Authorization: Bearer`);
  }
  for (const [h, n] of Object.entries(s.summary.headers)) parts.push(`${n} as the client's ${h} header`);
  const out = [parts.length ? `secrets to ${target}: ${parts.join('; ')}` : `secrets to ${target}: none`];
  for (const n of s.unset) out.push(`warning: ${n} is named for the servers but not set; they start without it`);
  return out;
}

/** The framework's flags (its captured --help, else the built-in table) list `--config`, and the target keeps a file between two commands (not a container started per command). */
export function readsConfigFile(plan: RunPlan, fw: FrameworkKey, container: boolean): boolean {
  return !container && findFlag(knownFlagsFor(fw, plan.snapshots.flags), 'config') !== undefined;
}
