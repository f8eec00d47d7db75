// Slurm's command lines and answers, as argv lists (never a shell string) and parsers: sbatch for a candidate's job, srun steps inside it, squeue, sacct, scontrol (sinfo's partitions: core/plan/slurm-partitions.ts, which the editor reads too).

export interface JobRequest {
  name: string;
  partition?: string;
  account?: string;
  qos?: string;
  timeLimit: string;
  /** GRES name and count per node: `--gres=gpu:2`; no GRES when gpus is 0. */
  gres: string;
  gpus: number;
  /** Nodes the job spans (one task on each); 1 when absent. */
  nodes?: number;
  /** Tasks on each node of a multi-node job: one per GPU for an MPI world (TensorRT-LLM); 1 when absent. */
  tasksPerNode?: number;
  constraint?: string;
  /** The whole node (real engines: no neighbour, no port clash); false packs jobs by GPU. */
  exclusive: boolean;
  /** The batch script's output file (on a file system the login host shares). */
  output: string;
  chdir: string;
  extra: readonly string[];
}

/**
 * The job holds its allocation while the runner runs the server and the client in it as steps; a TERM to its batch
 * step (finishArgv) ends it COMPLETED, so accounting tells a finished candidate from a cancelled run.
 */
export const HOLD_SCRIPT = "trap 'exit 0' TERM; sleep 2147483647 & wait";

/** Ends a holding job normally (its batch step gets TERM and exits 0). */
export function finishArgv(id: string): string[] {
  return ['scancel', '--batch', '--signal=TERM', id];
}

/** K nodes with T tasks on each: `--nodes=K --ntasks=K*T --ntasks-per-node=T`. */
function spread(nodes: number, tasksPerNode: number): string[] {
  return [`--nodes=${nodes}`, `--ntasks=${nodes * tasksPerNode}`, `--ntasks-per-node=${tasksPerNode}`];
}

export function sbatchArgv(r: JobRequest): string[] {
  const nodes = r.nodes ?? 1;
  const shape = nodes > 1 ? spread(nodes, r.tasksPerNode ?? 1) : ['--nodes=1', '--ntasks=1'];
  const argv = ['sbatch', '--parsable', `--job-name=${r.name}`, `--time=${r.timeLimit}`, ...shape, `--output=${r.output}`, `--chdir=${r.chdir}`];
  if (r.partition) argv.push(`--partition=${r.partition}`);
  if (r.account) argv.push(`--account=${r.account}`);
  if (r.qos) argv.push(`--qos=${r.qos}`);
  if (r.constraint) argv.push(`--constraint=${r.constraint}`);
  if (r.gpus > 0) argv.push(`--gres=${r.gres}:${r.gpus}`);
  if (r.exclusive) argv.push('--exclusive');
  argv.push(...r.extra, '--wrap', HOLD_SCRIPT);
  return argv;
}

/** `sbatch --parsable` prints `ID` or `ID;CLUSTER`. */
export function parseJobId(stdout: string): string | undefined {
  const first = stdout.trim().split('\n')[0]?.split(';')[0]?.trim() ?? '';
  return /^\d+$/.test(first) ? first : undefined;
}

export interface StepOptions {
  jobId: string;
  /** GPUs the step uses (the server: all of the job's; the client: none). */
  gres?: string;
  containerImage?: string;
  /** A step on every node of a multi-node job (one task each); 1 when absent. */
  nodes?: number;
  /** Tasks on each of those nodes (an MPI world: one per GPU); 1 when absent. */
  tasksPerNode?: number;
  /** srun --mpi=TYPE (an MPI world's step: pmix); the cluster's MpiDefault when absent. */
  mpi?: string;
  /** The node a one-task step runs on (a multi-node job's head); Slurm's choice when absent. */
  nodelist?: string;
}

/** A step inside a running job: shares the job's allocation with the other steps (`--overlap`). */
export function srunArgv(o: StepOptions, argv: readonly string[]): string[] {
  const nodes = o.nodes ?? 1;
  const shape = nodes > 1 ? spread(nodes, o.tasksPerNode ?? 1) : ['--nodes=1', '--ntasks=1', ...(o.nodelist ? [`--nodelist=${o.nodelist}`] : [])];
  // An MPI world is one program: a task that fails takes the step down (as mpirun does) instead of leaving the others waiting.
  const mpi = o.mpi ? [`--mpi=${o.mpi}`, '--kill-on-bad-exit=1'] : [];
  const out = ['srun', `--jobid=${o.jobId}`, '--overlap', ...shape, ...mpi, '--export=ALL'];
  if (o.gres) out.push(`--gres=${o.gres}`);
  if (o.containerImage) out.push(`--container-image=${o.containerImage}`);
  return [...out, '--', ...argv];
}

export interface AllocationOptions {
  partition: string;
  account?: string;
  qos?: string;
  constraint?: string;
  containerImage?: string;
}

/** A command in an allocation of its own (one task, no GPU, ten minutes at most): a framework's --help and version before any job exists. */
export function srunAllocationArgv(o: AllocationOptions, argv: readonly string[]): string[] {
  const out = ['srun', `--partition=${o.partition}`, '--nodes=1', '--ntasks=1', '--time=10', '--export=ALL'];
  if (o.account) out.push(`--account=${o.account}`);
  if (o.qos) out.push(`--qos=${o.qos}`);
  if (o.constraint) out.push(`--constraint=${o.constraint}`);
  if (o.containerImage) out.push(`--container-image=${o.containerImage}`);
  return [...out, '--', ...argv];
}

export type JobState = 'PENDING' | 'CONFIGURING' | 'RUNNING' | 'COMPLETING' | 'COMPLETED' | 'CANCELLED' | 'FAILED' | 'TIMEOUT' | 'NODE_FAIL' | 'PREEMPTED' | 'OUT_OF_MEMORY' | 'BOOT_FAIL' | 'DEADLINE' | 'SUSPENDED' | 'UNKNOWN';

export interface JobInfo {
  id: string;
  state: JobState;
  /** Node list (`%N`), empty while pending. */
  nodes: string;
  /** ISO-like Slurm times, undefined when Slurm says N/A or Unknown. */
  start?: string;
  end?: string;
  /** Why a job waits (Resources, Priority, ...) or ended. */
  reason?: string;
}

export const SQUEUE_FORMAT = '%i|%T|%N|%S|%e|%r';

export function squeueArgv(ids: readonly string[]): string[] {
  return ['squeue', '--noheader', '--states=all', `--jobs=${ids.join(',')}`, `--format=${SQUEUE_FORMAT}`];
}

const time = (s: string | undefined): string | undefined => (s && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(s) ? s : undefined);

function stateOf(s: string): JobState {
  const word = s.trim().split(/\s+/)[0]?.replace(/\+$/, '') ?? '';
  const known: readonly string[] = ['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'SUSPENDED'];
  return (known.includes(word) ? word : 'UNKNOWN') as JobState;
}

export function parseSqueue(stdout: string): JobInfo[] {
  const out: JobInfo[] = [];
  for (const line of stdout.split('\n')) {
    const [id, state, nodes, start, end, reason] = line.trim().split('|');
    if (!id || !/^\d+$/.test(id) || state === undefined) continue;
    const s = time(start);
    const e = time(end);
    out.push({ id, state: stateOf(state), nodes: nodes ?? '', ...(s ? { start: s } : {}), ...(e ? { end: e } : {}), ...(reason && reason !== 'None' ? { reason } : {}) });
  }
  return out;
}

export function sacctArgv(ids: readonly string[]): string[] {
  return ['sacct', '--noheader', '--parsable2', '--allocations', `--jobs=${ids.join(',')}`, '--format=JobID,State,NodeList,Start,End'];
}

export function parseSacct(stdout: string): JobInfo[] {
  const out: JobInfo[] = [];
  for (const line of stdout.split('\n')) {
    const [id, state, nodes, start, end] = line.trim().split('|');
    if (!id || !/^\d+$/.test(id) || state === undefined) continue;
    const s = time(start);
    const e = time(end);
    out.push({ id, state: stateOf(state), nodes: nodes ?? '', ...(s ? { start: s } : {}), ...(e ? { end: e } : {}) });
  }
  return out;
}

/** A node list (`n[1-2],gpu07`) as its node names, in order: Slurm's own expansion. */
export function hostnamesArgv(nodeList: string): string[] {
  return ['scontrol', 'show', 'hostnames', nodeList];
}

export function parseHostnames(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export function scontrolNodeArgv(node: string): string[] {
  return ['scontrol', 'show', 'node', node];
}

/** NodeAddr= of `scontrol show node` (the address a client reaches the node at). */
export function parseNodeAddr(stdout: string): string | undefined {
  const m = /\bNodeAddr=(\S+)/.exec(stdout);
  return m?.[1];
}
