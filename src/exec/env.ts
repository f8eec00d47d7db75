// Which variables a launched process gets: plain env as given, secrets by name from the secret source, nothing secret by accident.
import type { EnvOptions, SecretSource } from './types';
import { checkEnvName } from './types';
import { looksLikeSecretName } from '../core/secrets';

export { looksLikeSecretName };

/** Secret name -> value for the names that are set; a value with a newline cannot travel through `read -r`. */
export function resolveSecrets(names: readonly string[] | undefined, source: SecretSource): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of names ?? []) {
    checkEnvName(name);
    const value = source(name);
    if (value === undefined) continue;
    if (/[\n\r\0]/.test(value)) throw new Error(`secret ${name} contains a newline or NUL; refusing to pass it`);
    out.set(name, value);
  }
  return out;
}

/**
 * The environment of a local child: ours, minus secret-looking variables the spec did not name
 * (a server gets only the secrets it asks for), plus the plain env, plus the named secrets.
 */
export function childEnv(
  base: NodeJS.ProcessEnv,
  opts: EnvOptions,
  secrets: ReadonlyMap<string, string>,
): NodeJS.ProcessEnv {
  const named = new Set(opts.secretEnv ?? []);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined) continue;
    if (looksLikeSecretName(k) && !named.has(k)) continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(opts.env ?? {})) env[checkEnvName(k)] = v;
  for (const [k, v] of secrets) env[k] = v;
  return env;
}
