// Target strings to executors: 'local', 'ssh:<host>', optionally wrapped in a container target; 'sim' is the runner's (a local executor running the simulated engine's shims), and so is 'slurm[:PARTITION]' (a job per candidate: exec/slurm).
import { ContainerExecutor } from './container-executor';
import type { ContainerTargetOptions } from './container-executor';
import { LocalExecutor } from './local';
import { SshExecutor } from './ssh';
import type { SshExecutorOptions } from './ssh';
import type { Executor, SecretSource } from './types';

export type TargetSpec = { kind: 'sim' } | { kind: 'local' } | { kind: 'ssh'; host: string } | { kind: 'slurm'; partition?: string };

export function parseTarget(target: string): TargetSpec {
  if (target === 'sim' || target === 'local') return { kind: target };
  if (target.startsWith('ssh:')) {
    const host = target.slice(4);
    // A leading '-' would read as an option to anything that shells out to ssh later.
    if (!/^[A-Za-z0-9_.@%:[\]-]+$/.test(host) || host.startsWith('-')) throw new Error(`invalid ssh target: ${target}`);
    return { kind: 'ssh', host };
  }
  if (target === 'slurm') return { kind: 'slurm' };
  if (target.startsWith('slurm:')) {
    const partition = target.slice(6);
    if (!/^[A-Za-z0-9_.-]+$/.test(partition) || partition.startsWith('-')) throw new Error(`invalid slurm target: ${target} (slurm:PARTITION, a partition name)`);
    return { kind: 'slurm', partition };
  }
  throw new Error(`unknown target ${JSON.stringify(target)}: expected sim, local, ssh:<host> or slurm[:PARTITION]`);
}

export interface OpenExecutorOptions {
  secrets?: SecretSource;
  ssh?: Omit<SshExecutorOptions, 'host' | 'secrets'>;
  container?: ContainerTargetOptions;
}

/** Opens (and for ssh connects, so host-key and auth failures surface now) the executor for a target. */
export async function openExecutor(target: string, opts: OpenExecutorOptions = {}): Promise<Executor> {
  const t = parseTarget(target);
  let ex: Executor;
  if (t.kind === 'sim' || t.kind === 'slurm') throw new Error(`target '${t.kind}' is built by the runner on a LocalExecutor`);
  if (t.kind === 'local') ex = new LocalExecutor(opts.secrets ? { secrets: opts.secrets } : {});
  else ex = await SshExecutor.connect({ ...opts.ssh, host: t.host, ...(opts.secrets ? { secrets: opts.secrets } : {}) });
  return opts.container ? new ContainerExecutor(ex, opts.container) : ex;
}

export { LocalExecutor } from './local';
export { SshExecutor } from './ssh';
export type { SshExecutorOptions } from './ssh';
export { ContainerExecutor } from './container-executor';
export type { ContainerTargetOptions, ContainerServerProcess } from './container-executor';
export type { HostKeyPrompt } from './ssh-connect';
export * from './types';
export { sleep } from './sleep';
