// The Slurm cluster as the login host sees it: submit a candidate's job, wait until it runs, read its state and accounting, cancel.
import { sleep } from '../sleep';
import type { Executor, RunResult } from '../types';
import { SINFO_ARGV, parseSinfoPartitions, type SlurmPartition } from '../../core/plan/slurm-partitions';
import { finishArgv, hostnamesArgv, parseHostnames, parseJobId, parseNodeAddr, parseSacct, parseSqueue, sacctArgv, sbatchArgv, scontrolNodeArgv, squeueArgv, type JobInfo, type JobRequest, type JobState } from './commands';

/** sbatch refused the job (no such partition, more GPUs than a node has, a bad account): the run skips the candidate with this text. */
export class SubmitRefused extends Error {
  constructor(readonly detail: string) {
    super(`sbatch refused the job: ${detail}`);
    this.name = 'SubmitRefused';
  }
}

const ENDED: readonly JobState[] = ['COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE'];

export function isEnded(s: JobState): boolean {
  return ENDED.includes(s);
}

const firstLine = (r: RunResult): string => (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-1)[0] ?? `exit ${r.code}`;

export class SlurmCluster {
  constructor(
    /** Where sbatch, squeue and scancel run (the login host: this machine). */
    readonly login: Executor,
    /** Seconds between squeue polls while a job waits. */
    readonly pollMs = 500,
  ) {}

  private async cmd(argv: readonly string[], timeoutMs = 30_000): Promise<RunResult> {
    return this.login.run(argv, { timeoutMs });
  }

  /** Is the cluster there at all: `sinfo` answers. A clear error names what is missing. */
  async partitions(gresName: string): Promise<SlurmPartition[]> {
    let r: RunResult;
    try {
      r = await this.cmd(SINFO_ARGV);
    } catch (e) {
      throw new Error(`sinfo could not run (${(e as Error).message}): --target slurm needs the Slurm client commands (sinfo, sbatch, squeue, scancel) on this host`);
    }
    if (r.code !== 0) throw new Error(`sinfo failed: ${firstLine(r)}; is the Slurm controller reachable from this host?`);
    return parseSinfoPartitions(r.stdout, gresName);
  }

  async submit(req: JobRequest): Promise<string> {
    const r = await this.cmd(sbatchArgv(req));
    const id = r.code === 0 ? parseJobId(r.stdout) : undefined;
    if (!id) throw new SubmitRefused(firstLine(r).replace(/^sbatch: error: /, ''));
    return id;
  }

  async jobs(ids: readonly string[]): Promise<JobInfo[]> {
    if (ids.length === 0) return [];
    const r = await this.cmd(squeueArgv(ids));
    return r.code === 0 ? parseSqueue(r.stdout) : [];
  }

  /** Accounting of finished jobs (needs slurmdbd); an empty list where the cluster keeps none. */
  async accounting(ids: readonly string[]): Promise<JobInfo[]> {
    if (ids.length === 0) return [];
    try {
      const r = await this.cmd(sacctArgv(ids));
      return r.code === 0 ? parseSacct(r.stdout) : [];
    } catch {
      return [];
    }
  }

  /** Polls until the job runs (its node), ends without running, or the signal aborts; `onState` hears every change. */
  async waitRunning(id: string, onState: (info: JobInfo) => void, signal?: AbortSignal): Promise<JobInfo> {
    let last: JobState | undefined;
    for (;;) {
      if (signal?.aborted) return { id, state: 'CANCELLED', nodes: '' };
      const info = (await this.jobs([id]))[0] ?? { id, state: 'UNKNOWN' as const, nodes: '' };
      if (info.state !== last) onState(info);
      last = info.state;
      if (info.state === 'RUNNING' || isEnded(info.state)) return info;
      await sleep(this.pollMs, signal);
    }
  }

  /** Ends a job the run is done with: COMPLETED when its holding script takes the TERM, else cancelled after `graceMs`. */
  async finish(id: string, graceMs = 5000): Promise<JobInfo | undefined> {
    await this.cmd(finishArgv(id)).catch(() => undefined);
    const deadline = Date.now() + graceMs;
    for (;;) {
      const info = (await this.jobs([id]))[0];
      if (!info || isEnded(info.state)) return info;
      if (Date.now() > deadline) break;
      await sleep(200);
    }
    await this.cancelAndWait([id]);
    return (await this.jobs([id]))[0];
  }

  async cancel(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.cmd(['scancel', ...ids]).catch(() => undefined);
  }

  /** Cancels the jobs and waits (up to `timeoutMs`) until Slurm says they ended: COMPLETING lasts until their processes are gone. */
  async cancelAndWait(ids: readonly string[], timeoutMs = 30_000): Promise<void> {
    await this.cancel(ids);
    const deadline = Date.now() + timeoutMs;
    while (ids.length > 0 && Date.now() < deadline) {
      const live = (await this.jobs(ids)).filter((j) => !isEnded(j.state));
      if (live.length === 0) return;
      await sleep(200);
    }
  }

  /** A job's node list (`n[1-2]`) as node names, its first node (the head) first; the list itself when scontrol cannot expand it. */
  async hostnames(nodeList: string): Promise<string[]> {
    const r = await this.cmd(hostnamesArgv(nodeList)).catch(() => undefined);
    const names = r && r.code === 0 ? parseHostnames(r.stdout) : [];
    return names.length > 0 ? names : nodeList.split(',').filter((n) => n !== '');
  }

  /** The address a node is reached at (NodeAddr), else its name. */
  async nodeAddress(node: string): Promise<string> {
    const r = await this.cmd(scontrolNodeArgv(node)).catch(() => undefined);
    return (r && r.code === 0 ? parseNodeAddr(r.stdout) : undefined) ?? node;
  }
}
