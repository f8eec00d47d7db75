// The simulated trtllm-serve in one MPI world spread over a Slurm step (started by trtllm-llmapi-launch, one task per
// GPU): global rank 0 serves HTTP once the world matches the model's parallel sizes; every other rank serves nothing,
// says which rank it is, and stays until it is signalled (exit 0), as TensorRT-LLM's MPI workers do.
import { hostname } from 'node:os';

export interface MpiRank {
  rank: number;
  size: number;
  /** The Slurm node it runs on (SLURMD_NODENAME), else the host name. */
  node: string;
}

const TAG = 'autobench-sim (simulated TensorRT-LLM MPI world)';

/**
 * This process's place in an MPI world of more than one task, or undefined. Only under trtllm-llmapi-launch (it
 * exports TLLM_SPAWN_PROXY_PROCESS=1 and tllm_mpi_size); the rank as the launcher reads it: SLURM_PROCID, then
 * OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK.
 */
export function mpiRank(env: NodeJS.ProcessEnv): MpiRank | undefined {
  if (env.TLLM_SPAWN_PROXY_PROCESS !== '1') return undefined;
  const size = Number(env.tllm_mpi_size ?? '1');
  if (!Number.isInteger(size) || size <= 1) return undefined;
  const rank = Number(env.SLURM_PROCID ?? env.OMPI_COMM_WORLD_RANK ?? env.PMI_RANK ?? env.PMIX_RANK ?? '0');
  return { rank, size, node: env.SLURMD_NODENAME ?? hostname() };
}

/** The value of `--name V` / `--name=V` among click's spellings (the last one wins). */
function intFlag(argv: readonly string[], names: readonly string[]): number {
  let v = '1';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    for (const n of names) {
      if (a === n && i + 1 < argv.length) v = argv[i + 1] as string;
      else if (a.startsWith(`${n}=`)) v = a.slice(n.length + 1);
    }
  }
  return Number(v);
}

/** TensorRT-LLM's world size: tensor × pipeline × context parallel. */
export function modelWorldSize(argv: readonly string[]): number {
  const tp = intFlag(argv, ['--tp_size', '--tensor_parallel_size']);
  const pp = intFlag(argv, ['--pp_size', '--pipeline_parallel_size']);
  const cp = intFlag(argv, ['--cp_size', '--context_parallel_size']);
  return tp * pp * cp;
}

/** Why a rank cannot start (a rank outside the world; on rank 0, a world that differs from the model's parallel sizes), or undefined. */
export function worldProblem(r: MpiRank, argv: readonly string[]): string | undefined {
  if (!Number.isInteger(r.rank) || r.rank < 0 || r.rank >= r.size) return `${TAG}: ERROR: MPI rank ${r.rank} is not in 0..${r.size - 1}`;
  if (r.rank > 0) return undefined;
  const want = modelWorldSize(argv);
  if (want === r.size) return undefined;
  return `${TAG}: ERROR: the MPI world has ${r.size} processes but tp_size × pp_size × cp_size is ${want}; the number of MPI processes must equal the model's world size`;
}

/** Rank 0's line: it serves HTTP for the whole world. */
export function headLine(r: MpiRank): string {
  return `${TAG}: rank 0 of ${r.size} on ${r.node}: serving HTTP for the world; ranks 1..${r.size - 1} are MPI workers`;
}

/** A rank > 0: no HTTP server; logs its place and waits for `stop` (a signal). Exit status 0. */
export async function runMpiWorker(r: MpiRank, log: (line: string) => void, stop: Promise<unknown>): Promise<number> {
  log(`${TAG}: rank ${r.rank} of ${r.size} on ${r.node}: MPI worker, no HTTP server on this rank; waiting until signalled`);
  // A signal listener does not keep node alive: a timer does, until the signal.
  const alive = setInterval(() => undefined, 1 << 30);
  await stop;
  clearInterval(alive);
  log(`${TAG}: rank ${r.rank} of ${r.size}: stopping`);
  return 0;
}
