// The plan's `secrets:` block read once — which environment variables hold the servers' API key, the variables every server gets, the request headers the client sends — and the literal secrets written into a plan, which stop a run.
import type { CheckResult } from '../config/check';
import { formatPath, LineIndex } from '../config/finding';
import { parseYaml } from '../config/yaml-doc';
import { toJson } from '../py/value';
import { looksSecret } from '../secrets';
import { isObj, str, type Obj } from './read-json';

/** Names only: a value never reaches the plan. */
export interface PlanSecrets {
  /** The variable holding the key every server requires (`--api-key` / VLLM_API_KEY); the client sends it as `Authorization: Bearer`. */
  apiKey?: string;
  /** Variables every server gets in its environment (HF_TOKEN, …). */
  serverEnv: string[];
  /** Request header -> the variable holding its value (`X-Api-Key: GATEWAY_KEY`). */
  headers: Record<string, string>;
}

/** A POSIX environment variable name. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the client sets itself. */
const OWNED_HEADERS = new Set(['content-type', 'content-length', 'host', 'connection', 'transfer-encoding']);

function envName(v: unknown, where: string, problems: string[]): string | undefined {
  const s = str(v);
  if (s !== undefined && ENV_NAME.test(s) && !looksSecret(s)) return s;
  problems.push(`${where} must name an environment variable (letters, digits and _; e.g. HF_TOKEN), not hold a value: write the variable's name and set it in your environment`);
  return undefined;
}

function serverEnv(s: Obj, problems: string[]): string[] {
  const v = s.server_env;
  if (v === undefined || v === null) return [];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  items.forEach((x, i) => {
    const n = envName(x, `secrets.server_env[${i}]`, problems);
    if (n && !out.includes(n)) out.push(n);
  });
  return out;
}

function headers(s: Obj, problems: string[]): Record<string, string> {
  const v = s.headers;
  if (v === undefined || v === null) return {};
  if (!isObj(v)) {
    problems.push('secrets.headers must be a mapping of header name to the environment variable that holds its value (X-Api-Key: GATEWAY_KEY)');
    return {};
  }
  const out: Record<string, string> = {};
  for (const [h, x] of Object.entries(v)) {
    if (!HEADER_NAME.test(h) || OWNED_HEADERS.has(h.toLowerCase())) {
      problems.push(`secrets.headers: '${h}' is not a header the client can send (a header name, not ${[...OWNED_HEADERS].join(', ')})`);
      continue;
    }
    const n = envName(x, `secrets.headers.${h}`, problems);
    if (n) out[h] = n;
  }
  return out;
}

/** The `secrets:` block; problems name the key and the fix. */
export function readPlanSecrets(root: Obj, problems: string[]): PlanSecrets {
  const s = root.secrets;
  if (s === undefined || s === null) return { serverEnv: [], headers: {} };
  if (!isObj(s)) {
    problems.push('secrets must be a mapping (api_key, server_env, headers), each naming environment variables');
    return { serverEnv: [], headers: {} };
  }
  const apiKey = s.api_key === undefined || s.api_key === null ? undefined : envName(s.api_key, 'secrets.api_key', problems);
  const hs = headers(s, problems);
  if (apiKey && Object.keys(hs).some((h) => h.toLowerCase() === 'authorization')) {
    problems.push('secrets: give the key either as secrets.api_key (sent as Authorization: Bearer) or as an Authorization header, not both');
  }
  return { ...(apiKey ? { apiKey } : {}), serverEnv: serverEnv(s, problems), headers: hs };
}

/** Every variable name the plan's secrets block names, each once. */
export function planSecretNames(s: PlanSecrets): string[] {
  return [...new Set([...(s.apiKey ? [s.apiKey] : []), ...s.serverEnv, ...Object.values(s.headers)])];
}

/** The names a plan's text asks for, before a run reads the plan (the editor asks about each first); a text that does not parse asks for none (the run then fails on it). */
export function secretNamesOfText(text: string): string[] {
  const root = parseYaml(text).root;
  const value: unknown = root ? toJson(root.value) : undefined;
  return isObj(value) ? planSecretNames(readPlanSecrets(value, [])) : [];
}

/** Finding codes that mean a secret is written into the text itself. */
export const LITERAL_SECRET_CODES: readonly string[] = ['secret-value', 'secret-named-value'];

/**
 * The literal secrets of a plan as `FILE:LINE: path: why` lines: a run stops on them (unless told otherwise). The
 * finding's message names the kind and the fix, never the value.
 */
export function literalSecretLines(check: CheckResult, text: string, file: string): string[] {
  const lines = new LineIndex(text);
  return check.findings
    .filter((f) => LITERAL_SECRET_CODES.includes(f.code))
    .map((f) => `${file}:${lines.positionAt(f.range[0]).line + 1}: ${formatPath(f.path) || '(root)'}: ${f.message}`);
}
