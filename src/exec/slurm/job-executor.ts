// Executors on a Slurm cluster, driven from the login host: inside one running job (every command and server an
// `srun --jobid --overlap` step on the job's node, with the job's GPUs, reached at its NodeAddr), and before any job
// exists (each command a one-task allocation of its own). Files are on a file system the nodes share.
import type { LocalExecutor } from '../local';
import type { ConnectionLostError, Executor, PortForward, RunOptions, RunResult, ServerProcess, StartSpec } from '../types';
import { srunAllocationArgv, srunArgv, type AllocationOptions } from './commands';
import { DEFAULT_SLURM_MPI, headArgv, isMpiWorld, mpiTaskArgv, multiNodeScript, type MultiNodeSpec } from './multinode';

export interface JobPlace {
  jobId: string;
  /** The node its one-task steps (the client, a port probe) run on: a multi-node job's head. */
  node: string;
  /** Every node of the job, the head first (a multi-node server's step spans them all). */
  nodes?: readonly string[];
  /** Set when the job spans nodes: the server (a start whose argv begins with `serverArgv`) runs as the framework's multi-node launch (one task per node, or an MPI world's task per GPU); every other step runs on the head. */
  multiNode?: MultiNodeSpec & { serverArgv: readonly string[] };
  /** NodeAddr of the node: where its servers listen. */
  address: string;
  partition?: string;
  containerImage?: string;
}

export class SlurmJobExecutor implements Executor {
  readonly target: string;
  /** srun forwards its stdin to the step's task: a client step can serve every trial of the job. */
  readonly pipesStdin = true;

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
    // A step on a job of several nodes runs on this executor's node (a multi-node server's head, a P/D unit's node).
    const head = this.place.multiNode || (this.place.nodes?.length ?? 1) > 1 ? { nodelist: this.place.node } : {};
    return srunArgv({ jobId: this.place.jobId, ...head, ...(this.place.containerImage ? { containerImage: this.place.containerImage } : {}) }, argv);
  }

  /**
   * The server's step on a multi-node job: every node runs `sh -c SCRIPT`, which execs its rank's command; an MPI
   * world (TensorRT-LLM) is one task per GPU under `srun --mpi=pmix`, each `trtllm-llmapi-launch ARGV` (rank 0 serves).
   */
  private serverStep(argv: readonly string[]): string[] {
    const m = this.place.multiNode;
    if (!m || !startsWith(argv, m.serverArgv)) return this.step(argv);
    const image = this.place.containerImage ? { containerImage: this.place.containerImage } : {};
    if (isMpiWorld(m.framework)) return srunArgv({ jobId: this.place.jobId, nodes: m.nodes, tasksPerNode: m.gpusPerNode, mpi: m.mpi ?? DEFAULT_SLURM_MPI, ...image }, mpiTaskArgv(argv));
    return srunArgv({ jobId: this.place.jobId, nodes: m.nodes, ...image }, ['sh', '-c', multiNodeScript(m, argv)]);
  }

  /** Every node of the job, the head first. */
  nodes(): readonly string[] {
    return this.place.nodes ?? [this.place.node];
  }

  /** On a multi-node job, the head's command: the candidate's argv with the node count, rank 0 and head address words. */
  headCommand(): readonly string[] | undefined {
    const m = this.place.multiNode;
    return m ? headArgv(m, m.serverArgv) : undefined;
  }

  run(cmd: readonly string[], opts?: RunOptions): Promise<RunResult> {
    return this.login.run(this.step(cmd), opts);
  }

  /** The step's srun is our child, in a process group of its own: stopping it signals srun, which signals the step. */
  start(spec: StartSpec): Promise<ServerProcess> {
    return this.login.start({ ...spec, argv: this.serverStep(spec.argv) });
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

/** The server's start: the candidate's argv, with what the launch adds after it (a secret's file flag). */
function startsWith(argv: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && argv.length >= prefix.length && prefix.every((w, i) => w === argv[i]);
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
