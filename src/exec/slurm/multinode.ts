// A candidate across several Slurm nodes: how its GPUs split over nodes, and the framework's own multi-node launch: one `sh -c` script that every task (one a node) of one srun step runs (only the node rank is expanded there, from SLURM_NODEID), or for TensorRT-LLM one MPI world (a task per GPU, each running trtllm-llmapi-launch).
import { shlexJoin, shlexQuote } from '../../core/candidates/shell';
import type { FrameworkKey } from '../../core/frameworks/types';

/** torch.distributed's usual rendezvous port: the head's address for the other ranks when the engine is real (the whole node is the job's). */
export const DEFAULT_DIST_PORT = 29500;

export interface NodeSplit {
  nodes: number;
  gpusPerNode: number;
}

export interface SplitAsk {
  gpus: number;
  /** The partition's largest node. */
  nodeGpus: number;
  /** Nodes in the partition. */
  partitionNodes: number;
  /** The plan's hardware.multi_node. */
  multiNode: boolean;
  /** Nodes the candidate's own flags or the plan name (`nnodes`), if any. */
  nodes?: number;
}

/** How a launch's GPUs go onto nodes: one node when they fit and no node count is asked for, else K equal shares; a reason when that cannot be. */
export function splitOverNodes(a: SplitAsk, gres = 'gpu'): NodeSplit | { refused: string } {
  const wanted = a.nodes !== undefined && a.nodes > 1 ? a.nodes : undefined;
  if (wanted === undefined && a.gpus <= a.nodeGpus) return { nodes: 1, gpusPerNode: a.gpus };
  if (!a.multiNode) {
    const why = wanted !== undefined ? `asks for ${wanted} nodes` : `needs ${a.gpus} GPUs (--gres=${gres}:${a.gpus}) on one node; the nodes of the partition have at most ${a.nodeGpus}`;
    return { refused: `${why}, and hardware.multi_node is not true in the plan` };
  }
  const nodes = wanted ?? Math.ceil(a.gpus / Math.max(1, a.nodeGpus));
  if (a.gpus % nodes !== 0) return { refused: `${a.gpus} GPUs do not split evenly over ${nodes} nodes (an engine's ranks need the same GPUs on every node)` };
  const per = a.gpus / nodes;
  if (per > a.nodeGpus) return { refused: `needs ${per} GPUs on each of ${nodes} nodes (--gres=${gres}:${per}); the nodes of the partition have at most ${a.nodeGpus}` };
  if (nodes > a.partitionNodes) return { refused: `needs ${nodes} nodes of ${per} GPUs; the partition has ${a.partitionNodes} node${a.partitionNodes === 1 ? '' : 's'}` };
  return { nodes, gpusPerNode: per };
}

/** The frameworks that span nodes as one MPI world: one task per GPU, all running the MPI launcher (TensorRT-LLM). */
export function isMpiWorld(fw: FrameworkKey): boolean {
  return fw === 'tensorrt_llm';
}

/** TensorRT-LLM's launcher under Slurm (examples/llm-api/llm_mgmn_trtllm_serve.sh): rank 0 runs the command, the other ranks MPI workers. */
export const TRTLLM_LAUNCHER = 'trtllm-llmapi-launch';

/** The MPI plugin an MPI-world step asks srun for when the plan names none (slurm.mpi). */
export const DEFAULT_SLURM_MPI = 'pmix';

/** What preflight read of a framework's CLI on the target: its flag list (absent when none was captured) and version. */
export interface CliFacts {
  /** The captured help's `--long` option strings. */
  options?: readonly string[];
  version?: string;
}

/** vLLM's multi-process multi-node flags (`--nnodes`, `--node-rank`, `--master-addr`, `--master-port`) first appear in 0.11.2. */
const VLLM_MULTI_NODE = [0, 11, 2];

function versionBelow(v: string, min: readonly number[]): boolean | undefined {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(v);
  if (!m) return undefined;
  const got = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  for (let i = 0; i < min.length; i++) if (got[i] !== min[i]) return (got[i] as number) < (min[i] as number);
  return false;
}

/**
 * vLLM spans nodes with `--nnodes/--node-rank/--master-addr` (vllm/config/parallel.py @00193b82), options of 0.11.2 and
 * later only: the captured help must list `--nnodes`; with no flag list, the captured version decides. Neither known: allowed.
 */
function vllmMultiNodeRefusal(cli: CliFacts | undefined): string | undefined {
  const version = cli?.version ?? '(version not captured)';
  const why = `vLLM ${version} has no --nnodes (multi-node needs vLLM ≥ 0.11.2)`;
  if (cli?.options) return cli.options.includes('--nnodes') ? undefined : why;
  return cli?.version !== undefined && versionBelow(cli.version, VLLM_MULTI_NODE) === true ? why : undefined;
}

/**
 * Why a candidate is not launched across nodes here, or undefined when it is. trtllm-llmapi-launch keeps its command
 * as one string and runs it unquoted (`task_with_command="${@:1}"; $task_with_command`): a word with blanks or a glob
 * character would not reach trtllm-serve as one word. vLLM needs the multi-node options its captured CLI may lack.
 */
export function multiNodeUnsupported(fw: FrameworkKey, argv: readonly string[] = [], cli?: CliFacts): string | undefined {
  if (fw === 'vllm') return vllmMultiNodeRefusal(cli);
  if (!isMpiWorld(fw)) return undefined;
  const bad = argv.find((w) => w === '' || /[\s*?[]/.test(w));
  if (bad === undefined) return undefined;
  return `${TRTLLM_LAUNCHER} re-splits its command on blanks (and expands * ? [), so the word ${shlexQuote(bad)} would not reach trtllm-serve as one word`;
}

export interface MultiNodeSpec {
  framework: FrameworkKey;
  nodes: number;
  /** GPUs on each node: the tasks per node of an MPI world (TensorRT-LLM). */
  gpusPerNode: number;
  /** srun --mpi for an MPI world (the plan's slurm.mpi, else pmix). */
  mpi?: string;
  /** Where the other ranks reach the head (rank 0): its NodeAddr. */
  headAddress: string;
  /** The head's rendezvous port (SGLang's --dist-init-addr port, vLLM's --master-port; unused by an MPI world). */
  port: number;
}

/** Flags the multi-node launch owns: dropped from the candidate's argv (its own `nnodes` included) before ours are added. */
const OWNED: Record<string, { words: readonly string[]; valued: boolean }> = {
  nnodes: { words: ['--nnodes', '-n'], valued: true },
  node_rank: { words: ['--node-rank', '-r'], valued: true },
  dist_init_addr: { words: ['--dist-init-addr', '--nccl-init-addr'], valued: true },
  master_addr: { words: ['--master-addr'], valued: true },
  master_port: { words: ['--master-port'], valued: true },
  headless: { words: ['--headless'], valued: false },
};

/** The spellings each framework's CLI uses: vLLM's short -n/-r only there. */
function ownedWords(fw: FrameworkKey): Array<{ word: string; valued: boolean }> {
  const out: Array<{ word: string; valued: boolean }> = [];
  for (const { words, valued } of Object.values(OWNED)) {
    for (const w of words) if (fw === 'vllm' || w.startsWith('--')) out.push({ word: w, valued });
  }
  return out;
}

/** The candidate's argv without the multi-node flags (`--nnodes 2`, `--node-rank=0`, ...). */
export function withoutMultiNodeFlags(fw: FrameworkKey, argv: readonly string[]): string[] {
  const owned = ownedWords(fw);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const hit = owned.find((o) => a === o.word || (o.valued && a.startsWith(`${o.word}=`)));
    if (!hit) {
      out.push(a);
      continue;
    }
    if (hit.valued && a === hit.word) i++;
  }
  return out;
}

/** Where the script puts the step's rank: `"$SLURM_NODEID"`, unquoted on purpose (every other word is quoted). */
const RANK = Symbol('rank');

/** The words a rank adds: `rank` is a number for the recorded head command, RANK inside the script. */
function rankWords(m: MultiNodeSpec, rank: string | typeof RANK, head: boolean): Array<string | typeof RANK> {
  if (m.framework === 'vllm') return ['--nnodes', String(m.nodes), '--node-rank', rank, '--master-addr', m.headAddress, '--master-port', String(m.port), ...(head ? [] : ['--headless'])];
  // SGLang and TokenSpeed: the same words on every rank. TokenSpeed's `serve` runs only the engine on a rank > 0 by itself
  // (lightseekorg/tokenspeed #873, 1e6deeb0); its `--headless` is another mode (an external ZMQ frontend, #897 57b49061),
  // so it is never added here (docs/ENGINES.md).
  return ['--nnodes', String(m.nodes), '--node-rank', rank, '--dist-init-addr', `${m.headAddress}:${m.port}`];
}

/** The head's (rank 0) command as it runs: what a multi-node row records. An MPI world's every task runs the same words. */
export function headArgv(m: MultiNodeSpec, argv: readonly string[]): string[] {
  if (isMpiWorld(m.framework)) return mpiTaskArgv(argv);
  return [...withoutMultiNodeFlags(m.framework, argv), ...(rankWords(m, '0', true) as string[])];
}

/**
 * The script every task of the server's step runs (`sh -c SCRIPT`): rank 0 execs exactly the recorded head command,
 * the others the same words with their rank (from the step's SLURM_NODEID) and, for vLLM, --headless. Every word is
 * shell-quoted; `"$SLURM_NODEID"` is the only expansion.
 */
export function multiNodeScript(m: MultiNodeSpec, argv: readonly string[]): string {
  const base = withoutMultiNodeFlags(m.framework, argv);
  const head = shlexJoin(headArgv(m, argv));
  const other = [...base, ...rankWords(m, RANK, false)].map((w) => (w === RANK ? '"$SLURM_NODEID"' : shlexQuote(w))).join(' ');
  return `case "$SLURM_NODEID" in 0) exec ${head} ;; *) exec ${other} ;; esac`;
}

/** What every task of an MPI world's step runs: the launcher and the candidate's command, no shell between (srun execs the argv). */
export function mpiTaskArgv(argv: readonly string[]): string[] {
  return [TRTLLM_LAUNCHER, ...argv];
}
