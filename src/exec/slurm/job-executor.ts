// Executors on a Slurm cluster, driven from the login host: inside one running job (every command and server an
// `srun --jobid --overlap` step on the job's node, with the job's GPUs, reached at its NodeAddr), and before any job
// exists (each command a one-task allocation of its own). Files are on a file system the nodes share.
import type { LocalExecutor } from '../local';
import type { ConnectionLostError, Executor, PortForward, RunOptions, RunResult, ServerProcess, StartSpec } from '../types';
import { srunAllocationArgv, srunArgv, type AllocationOptions } from './commands';

export interface JobPlace {
  jobId: string;
  node: string;
  /** NodeAddr of the node: where its servers listen. */
  address: string;
  partition?: string;
  containerImage?: string;
}

export class SlurmJobExecutor implements Executor {
  readonly target: string;

  constructor(
    private readonly login: LocalExecutor,
    readonly place: JobPlace,
  ) {
    this.target = `slurm:${place.jobId}`;
  }

  describe(): string {
    return `slurm job ${this.place.jobId} on ${this.place.node}${this.place.partition ? ` (partition ${this.place.partition})` : ''}`;
  }

  private step(argv: readonly string[]): string[] {
    return srunArgv({ jobId: this.place.jobId, ...(this.place.containerImage ? { containerImage: this.place.containerImage } : {}) }, argv);
  }

  run(cmd: readonly string[], opts?: RunOptions): Promise<RunResult> {
    return this.login.run(this.step(cmd), opts);
  }

  /** The step's srun is our child, in a process group of its own: stopping it signals srun, which signals the step. */
  start(spec: StartSpec): Promise<ServerProcess> {
    return this.login.start({ ...spec, argv: this.step(spec.argv) });
  }

  forward(remotePort: number): Promise<PortForward> {
    // Compute nodes are reachable from the login host on a cluster's own network: no tunnel to add overhead.
    return Promise.resolve({ localHost: this.place.address, localPort: remotePort, close: () => Promise.resolve() });
  }

  copyBack(remotePath: string, localPath: string): Promise<void> {
    return this.login.copyBack(remotePath, localPath);
  }

  copyTo(localPath: string, remotePath: string): Promise<void> {
    return this.login.copyTo(localPath, remotePath);
  }

  remove(remotePath: string): Promise<void> {
    return this.login.remove(remotePath);
  }

  onConnectionLost(_listener: (err: ConnectionLostError) => void): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    return this.login.close();
  }
}

/** Commands before any job exists (a framework's --help and version): each an srun allocation of its own; no server starts here. */
export class SlurmAllocationExecutor implements Executor {
  readonly target: string;

  constructor(
    private readonly login: LocalExecutor,
    private readonly alloc: AllocationOptions,
  ) {
    this.target = `slurm:${alloc.partition}`;
  }

  describe(): string {
    return `slurm partition ${this.alloc.partition} (one job per candidate; commands as srun steps)`;
  }

  run(cmd: readonly string[], opts?: RunOptions): Promise<RunResult> {
    return this.login.run(srunAllocationArgv(this.alloc, cmd), opts);
  }

  start(): Promise<ServerProcess> {
    return Promise.reject(new Error('slurm: a server starts in a job of its own (the runner places each launch)'));
  }

  forward(): Promise<PortForward> {
    return Promise.reject(new Error('slurm: a server is reached through the job it runs in'));
  }

  copyBack(remotePath: string, localPath: string): Promise<void> {
    return this.login.copyBack(remotePath, localPath);
  }

  copyTo(localPath: string, remotePath: string): Promise<void> {
    return this.login.copyTo(localPath, remotePath);
  }

  onConnectionLost(_listener: (err: ConnectionLostError) => void): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    return this.login.close();
  }
}
