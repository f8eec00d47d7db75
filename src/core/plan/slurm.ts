// The plan's `slurm:` block (where `--target slurm` submits each candidate's job) read once, with the problems that keep it from running.
import { isObj, num, str, type Obj } from './read-json';

export interface PlanSlurm {
  partition?: string;
  account?: string;
  qos?: string;
  /** sbatch --time: minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]] (Slurm's own formats). */
  timeLimit: string;
  /** The GRES name the GPUs are declared as (`--gres=NAME:N`). */
  gres: string;
  constraint?: string;
  /** A container image every job runs in (pyxis/enroot `--container-image`). */
  containerImage?: string;
  /** More `sbatch` arguments, each one word (no shell splitting). */
  sbatchArgs: string[];
  /** srun --mpi for a launch that is one MPI world across nodes (TensorRT-LLM); pmix when absent. */
  mpi?: string;
}

/** A job's time limit when the plan names none: generous for one candidate's launch and every trial. */
export const DEFAULT_SLURM_TIME_LIMIT = '02:00:00';

const TIME = /^(\d+-\d{1,2}(:\d{2}){0,2}|\d+(:\d{2}){0,2})$/;
const WORD = /^[A-Za-z0-9_.,:=@%+/-]+$/;
/** sbatch options the runner sets itself per job; a plan that sets them would fight it. */
const OWNED = ['--gres', '--gpus', '--job-name', '-J', '--output', '-o', '--error', '-e', '--parsable', '--wrap', '--nodes', '-N', '--ntasks', '-n'];

function word(s: Obj, key: string, problems: string[]): string | undefined {
  const v = s[key];
  if (v === undefined || v === null) return undefined;
  const text = typeof v === 'number' ? String(v) : str(v);
  if (text === undefined || !WORD.test(text)) {
    problems.push(`slurm.${key} must be one word of letters, digits and . , : = @ % + / - _ (got ${JSON.stringify(v)})`);
    return undefined;
  }
  return text;
}

function timeLimit(s: Obj, problems: string[]): string {
  const v = s.time_limit;
  if (v === undefined || v === null) return DEFAULT_SLURM_TIME_LIMIT;
  const n = num(v);
  const text = n !== undefined ? String(n) : str(v);
  if (text === undefined || !TIME.test(text)) {
    problems.push(`slurm.time_limit must be a Slurm time (minutes, HH:MM:SS or D-HH:MM:SS), got ${JSON.stringify(v)}`);
    return DEFAULT_SLURM_TIME_LIMIT;
  }
  return text;
}

function sbatchArgs(s: Obj, problems: string[]): string[] {
  const v = s.sbatch_args;
  if (v === undefined || v === null) return [];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  for (const x of items) {
    if (typeof x !== 'string' || x === '' || /[\n\0]/.test(x)) {
      problems.push(`slurm.sbatch_args: each item must be one sbatch argument as a string (got ${JSON.stringify(x)})`);
      continue;
    }
    const name = x.split('=')[0] as string;
    if (OWNED.includes(name)) problems.push(`slurm.sbatch_args: ${name} is set by autobench for each candidate's job; remove it`);
    else out.push(x);
  }
  return out;
}

/** The `slurm:` block, or undefined when the plan has none (then `--target slurm` uses the cluster's defaults). */
export function readPlanSlurm(root: Obj, problems: string[]): PlanSlurm | undefined {
  const v = root.slurm;
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) {
    problems.push('slurm must be a mapping (partition, account, qos, time_limit, gres, constraint, container_image, sbatch_args, mpi)');
    return undefined;
  }
  const out: PlanSlurm = { timeLimit: timeLimit(v, problems), gres: word(v, 'gres', problems) ?? 'gpu', sbatchArgs: sbatchArgs(v, problems) };
  for (const [key, field] of [['partition', 'partition'], ['account', 'account'], ['qos', 'qos'], ['constraint', 'constraint'], ['mpi', 'mpi']] as const) {
    const w = word(v, key, problems);
    if (w !== undefined) out[field] = w;
  }
  const image = v.container_image;
  if (image !== undefined && image !== null) {
    if (typeof image === 'string' && image !== '' && !/[\s\0]/.test(image)) out.containerImage = image;
    else problems.push(`slurm.container_image must be an image reference without spaces (got ${JSON.stringify(image)})`);
  }
  return out;
}
