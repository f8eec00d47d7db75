// A server's API key as a private file on its host (SGLang's `--config`): written from a secret variable by a shell on the host (0600, in a fresh mktemp folder), removed as soon as the server has read it.
import type { Executor } from '../exec';
import { SERVER_CONFIG_ENV } from './run-secrets';

// The value travels as a secret variable (never an argv); the folder's path is printed back.
const WRITE = `umask 077 && d=$(mktemp -d) && printf '%s\\n' "$${SERVER_CONFIG_ENV}" > "$d/server-config.yaml" && printf '%s' "$d"`;

export interface KeyFile {
  dir: string;
  file: string;
}

/** Writes the file on the executor's host; throws with the host's error when it cannot. */
export async function writeKeyFile(ex: Executor): Promise<KeyFile> {
  const r = await ex.run(['sh', '-c', WRITE], { secretEnv: [SERVER_CONFIG_ENV], timeoutMs: 30_000 });
  const dir = r.stdout.trim();
  if (r.code !== 0 || !dir.startsWith('/')) throw new Error(`could not write the server's key file on ${ex.target}: ${r.stderr.trim() || `exit ${r.code}`}`);
  return { dir, file: `${dir}/server-config.yaml` };
}

/** Removes the file's folder; a failure leaves a 0600 file in the host's temp folder, which is said, not thrown. */
export async function removeKeyFile(ex: Executor, k: KeyFile): Promise<string | undefined> {
  const r = await ex.run(['rm', '-rf', '--', k.dir], { timeoutMs: 30_000 }).catch((e: unknown) => ({ code: 1, stderr: (e as Error).message }));
  return r.code === 0 ? undefined : `could not remove the server's key file ${k.file} on ${ex.target}: ${r.stderr.trim()}`;
}
