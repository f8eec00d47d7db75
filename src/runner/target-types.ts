// What a run target is to the runner: an executor, its host, how a launch gets its port and variables, and for schedulers a place per launch.
import type { Unit, UnitRole } from '../core/candidates/unit';
import type { UnitNodeLayout } from '../core/candidates/unit-nodes';
import type { FrameworkKey } from '../core/frameworks/types';
import type { Executor } from '../exec';
import type { CliFacts } from '../exec/slurm/multinode';

export interface SimSettings {
  speed: number;
  seed: number;
  binDir: string;
  extra: string;
  /** The simulator's GPU profile matching the plan's hardware.gpu_model, when one does. */
  gpu: string | undefined;
}

export interface RunTarget {
  executor: Executor;
  kind: 'sim' | 'local' | 'ssh' | 'slurm';
  simulated: boolean;
  sim: SimSettings | undefined;
  /** Host name for rows (`hardware.host`). */
  host: string;
  /** A Slurm node's NodeAddr, where its servers listen (a P/D unit's router reaches its workers there). */
  address?: string;
  /** The port a candidate's server will listen on, and the variables its launch needs. */
  prepareLaunch(fw: FrameworkKey, flags: Record<string, unknown>): Promise<{ port: number; env: Record<string, string> }>;
  /** Candidates measured at once: 1, but on a scheduler that gives each its own GPUs (slurm). */
  maxParallel: number;
  /** local/ssh: the GPU ids every launch is pinned to (CUDA_VISIBLE_DEVICES), set by the run's GPU preflight (runner/gpu-env.ts). */
  gpus?: number[];
  /** The preflight's nvidia-smi worked there: the GPUs are checked free again before each launch after a stop. */
  gpusWatched?: boolean;
  /** slurm: the partition jobs go to. */
  partition?: string;
  /** Where one launch runs when it is not this target itself (slurm: a job of its own); absent: here. */
  place?(req: PlaceRequest, signal: AbortSignal | undefined): Promise<Placement | PlaceRefused>;
  /** Slurm: hears every change of a job of this run (submitted, running, ended, accounted). */
  observeJobs?(fn: (job: SlurmJobRecord) => void): void;
  /** slurm, on --resume: cancels the interrupted run's jobs still queued or running; says what it cancelled. */
  cancelLeftoverJobs?(jobs: readonly SlurmJobRecord[]): Promise<string[]>;
  close(): Promise<void>;
}

/** One server launch asking for a place: what for, and how many GPUs. */
export interface PlaceRequest {
  framework: FrameworkKey;
  candidateId: string;
  purpose: 'smoke' | 'search' | 'repeat';
  /** All the GPUs of the launch (every node's together). */
  gpus: number;
  /** The plan's hardware.multi_node: the launch may span nodes. */
  multiNode?: boolean;
  /** Nodes the candidate asks for itself (its `nnodes` flag), if any. */
  nodes?: number;
  /** The candidate's command: on several nodes its start becomes the framework's multi-node launch. */
  argv?: readonly string[];
  /** What preflight read of the framework's CLI (flag list, version): whether it can span nodes at all. */
  cli?: CliFacts;
  /** A P/D unit: laid out over the partition's nodes (core/candidates/unit-nodes.ts); its processes are started one by one. */
  unit?: Unit;
}

/** A place to launch one server (a Slurm job): a target of its own for that launch, released when the server stops. */
export interface Placement {
  target: RunTarget;
  /** The Slurm job holding the place (a unit placed job_per_role: its jobs, comma-separated as sacct -j takes them). */
  jobId?: string;
  /** A P/D unit's place: a target per node of the job (the first is `target`), and each process's node and GPUs there. */
  nodeTargets?: RunTarget[];
  unitLayout?: UnitNodeLayout;
  release(): Promise<void>;
}

/** No place: skipped (the cluster cannot give what the candidate needs), failed (the job ended before it ran) or cancelled. */
export interface PlaceRefused {
  refused: 'skipped' | 'failed' | 'cancelled';
  reason: string;
}

/** A candidate's Slurm job as the manifest records it (and the live panel shows it). */
export interface SlurmJobRecord {
  job_id: string;
  framework: FrameworkKey;
  candidate: string;
  purpose: PlaceRequest['purpose'];
  gpus: number;
  partition: string | null;
  /** Nodes the job spans and GPUs on each (gpus = node_count × gpus_per_node). */
  node_count: number;
  gpus_per_node: number;
  /** Every node of the job, the head first, once it runs (`node` is Slurm's node list, `n[1-2]`). */
  nodes: string[];
  /** PENDING, RUNNING, COMPLETED, CANCELLED, ... as squeue (then sacct) said last. */
  state: string;
  node: string | null;
  submitted_at: string;
  /** When the job started and ended, Slurm's times (sacct's when the cluster keeps accounting). */
  started_at: string | null;
  ended_at: string | null;
  /** Where the times came from: squeue while the run watched, sacct when accounting answered at the end. */
  times_from: 'squeue' | 'sacct';
  reason?: string;
  /** A P/D unit placed job_per_role: the role whose workers the job holds (the router runs in the prefill job). */
  role?: UnitRole;
}
