// A server's API key as a private file on its host (SGLang's `--config`): written from a secret variable by a shell on the host (0600, in a fresh mktemp folder), removed as soon as the server has read it; a launch that spans nodes gets it in the run directory, which every node sees.
import type { Executor } from '../exec';
import { SlurmJobExecutor } from '../exec/slurm/job-executor';
import { SERVER_CONFIG_ENV } from './run-secrets';

// The value travels as a secret variable (never an argv); the folder's path is printed back. `$1`, when given, is the
// folder to make the private folder in (created 0700 by the umask).
const WRITE = `umask 077 && d=$(if [ -n "$1" ]; then mkdir -p -- "$1" && mktemp -d "$1/key.XXXXXX"; else mktemp -d; fi) && printf '%s\\n' "$${SERVER_CONFIG_ENV}" > "$d/server-config.yaml" && printf '%s' "$d"`;

export interface KeyFile {
  dir: string;
  file: string;
}

/**
 * Whether the executor's server runs on several nodes (a multi-node Slurm job): every rank parses the same argv, so a
 * file in the head's /tmp would be missing on the others (SGLang: `Config file not found`, server_args_config_parser.py @03bd2f16).
 */
export function spansNodes(ex: Executor): boolean {
  return ex instanceof SlurmJobExecutor && ex.place.multiNode !== undefined && ex.nodes().length > 1;
}

/**
 * Writes the file on the executor's host; throws with the host's error when it cannot. `sharedDir`: a folder every
 * node of a multi-node launch sees (the run directory; a Slurm cluster's nodes share its file system), used only then.
 */
export async function writeKeyFile(ex: Executor, sharedDir?: string): Promise<KeyFile> {
  const base = sharedDir !== undefined && spansNodes(ex) ? sharedDir : '';
  const r = await ex.run(['sh', '-c', WRITE, 'sh', base], { secretEnv: [SERVER_CONFIG_ENV], timeoutMs: 30_000 });
  const dir = r.stdout.trim();
  if (r.code !== 0 || !dir.startsWith('/')) throw new Error(`could not write the server's key file on ${ex.target}${base ? ` in ${base}` : ''}: ${r.stderr.trim() || `exit ${r.code}`}`);
  return { dir, file: `${dir}/server-config.yaml` };
}

/** Removes the file's folder; a failure leaves a 0600 file in the host's temp folder, which is said, not thrown. */
export async function removeKeyFile(ex: Executor, k: KeyFile): Promise<string | undefined> {
  const r = await ex.run(['rm', '-rf', '--', k.dir], { timeoutMs: 30_000 }).catch((e: unknown) => ({ code: 1, stderr: (e as Error).message }));
  return r.code === 0 ? undefined : `could not remove the server's key file ${k.file} on ${ex.target}: ${r.stderr.trim()}`;
}
