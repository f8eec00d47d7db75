// `autobench run`'s command line checked in full before anything is read or started: numbers, target, frameworks,
// strategy and forced candidates, GPU ids, and the paths that must exist; a mistake is a UsageError (exit 2) naming the option and what it takes.
import { existsSync } from 'node:fs';
import { FRAMEWORKS } from '../core/frameworks';
import { DEFAULT_STORE } from '../predict/store';
import { STRATEGY_CHOICES, isSearchStrategy, parseForced, type SearchStrategyName } from '../core/plan/strategy';
import type { RunOptions, Tier } from '../runner';
import { reportPage } from '../webview/report-page';
import { UsageError } from './errors';
import { extractSimOptions, SimOptionError } from '../sim/options';
import { shlexSplit } from '../core/candidates/shell';

function parseTier(v: string | undefined): Tier | undefined {
  if (v === undefined) return undefined;
  if (v === '1' || v === '2' || v === '3') return Number(v) as Tier;
  throw new UsageError(`--tier must be 1, 2 or 3, got '${v}'`);
}

function parseStrategy(v: string | undefined): SearchStrategyName | undefined {
  if (v === undefined || isSearchStrategy(v)) return v;
  throw new UsageError(`--strategy must be ${STRATEGY_CHOICES}, got '${v}'`);
}

/** `--force vllm:c3 --force c1` (or `--force vllm:c3,c1`): every value FRAMEWORK:ID or ID. */
function parseForce(v: readonly string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const specs = v.flatMap((x) => x.split(',')).map((x) => x.trim());
  for (const spec of specs) {
    const f = parseForced(spec);
    if (typeof f === 'string') throw new UsageError(`--force: ${f}`);
  }
  return specs;
}

function wholeNumber(name: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number >= ${min}, got '${v}'`);
  return n;
}

function positiveNumber(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number, got '${v}'`);
  return n;
}

/** sim, local or ssh:HOST (the runner's target strings), checked before anything is read or started. */
function checkTarget(target: string): void {
  if (target === 'sim' || target === 'local') return;
  if (target.startsWith('ssh:')) {
    const host = target.slice(4);
    if (/^[A-Za-z0-9_.@%:[\]-]+$/.test(host) && !host.startsWith('-')) return;
    throw new UsageError(`--target ${target}: '${host}' is not a host name; give ssh:HOST with a host from ~/.ssh/config (e.g. ssh:gpu-box-1)`);
  }
  if (target === 'slurm') return;
  if (target.startsWith('slurm:')) {
    const part = target.slice(6);
    if (/^[A-Za-z0-9_.-]+$/.test(part) && !part.startsWith('-')) return;
    throw new UsageError(`--target ${target}: '${part}' is not a partition name; give slurm:PARTITION with a partition sinfo lists (e.g. slurm:gpu)`);
  }
  throw new UsageError(`--target must be sim, local, ssh:HOST or slurm[:PARTITION], got '${target}'`);
}

/** --max-parallel and --sim-on-nodes belong to the slurm target. */
function slurmOptions(values: RunValues, target: string): Pick<RunOptions, 'maxParallel' | 'simOnNodes'> {
  const slurm = target === 'slurm' || target.startsWith('slurm:');
  const maxParallel = wholeNumber('max-parallel', values['max-parallel'], 1);
  if (!slurm && maxParallel !== undefined) throw new UsageError(`--max-parallel runs candidates in parallel jobs on a Slurm cluster; give --target slurm[:PARTITION] with it (got --target ${target})`);
  if (!slurm && values['sim-on-nodes']) throw new UsageError(`--sim-on-nodes puts the simulated engine on Slurm nodes; give --target slurm[:PARTITION] with it (on one machine: --target sim)`);
  return { ...(maxParallel !== undefined ? { maxParallel } : {}), ...(values['sim-on-nodes'] ? { simOnNodes: true } : {}) };
}

/** A path option that must name something that exists (--tokenizer, --help-dir). */
function checkExists(flag: string, path: string | undefined, what: string): void {
  if (path !== undefined && !existsSync(path)) throw new UsageError(`${flag} ${path}: no such ${what}; give the path of a local ${what}`);
}

/** `--sim-opts "--sim-noise 0.03"`: the value starts with a dash, which parseArgs would take for an option. */
export function joinSimOpts(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (argv[i] === '--sim-opts' && next !== undefined && next.startsWith('--sim-')) {
      out.push(`--sim-opts=${next}`);
      i++;
    } else out.push(argv[i] as string);
  }
  return out;
}

function checkSimOptions(opts: string): void {
  try {
    extractSimOptions(shlexSplit(opts));
  } catch (e) {
    if (e instanceof SimOptionError) throw new UsageError(`--sim-opts: ${e.message}`);
    throw e;
  }
}

/** --sim-opts with --sim-perturb N after it (the later option wins in the simulator), or undefined for neither. */
function simExtra(values: RunValues): string | undefined {
  const opts = values['sim-opts'];
  if (opts !== undefined && !/^(\s*--sim-[a-z-]+(\s+[^\s-][^\s]*)?)*\s*$/.test(opts)) throw new UsageError(`--sim-opts takes --sim-* options only, got '${opts}'`);
  // Checked here, before any server starts: an unknown or bad option would otherwise fail every launch.
  if (opts !== undefined) checkSimOptions(opts);
  const perturb = wholeNumber('sim-perturb', values['sim-perturb'], 0);
  if (perturb !== undefined && perturb > 0xffffffff) throw new UsageError(`--sim-perturb must be a whole number from 0 to 4294967295, got '${values['sim-perturb']}'`);
  const parts = [opts?.trim(), perturb !== undefined ? `--sim-perturb ${perturb}` : undefined].filter((x) => x);
  return parts.length ? parts.join(' ') : undefined;
}

/** The options `autobench run` takes. */
export const RUN_OPTIONS = {
  target: { type: 'string' },
  frameworks: { type: 'string' },
  tier: { type: 'string' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  'sim-speed': { type: 'string' },
  'sim-seed': { type: 'string' },
  'sim-opts': { type: 'string' },
  'sim-perturb': { type: 'string' },
  strategy: { type: 'string' },
  force: { type: 'string', multiple: true },
  calibration: { type: 'string' },
  'no-calibration': { type: 'boolean' },
  repeats: { type: 'string' },
  finalists: { type: 'string' },
  'accept-new-host-key': { type: 'boolean' },
  'help-dir': { type: 'string' },
  tokenizer: { type: 'string' },
  gpus: { type: 'string' },
  'health-timeout': { type: 'string' },
  quiet: { type: 'boolean' },
  'max-parallel': { type: 'string' },
  'sim-on-nodes': { type: 'boolean' },
  'secret-env': { type: 'string', multiple: true },
  'allow-plan-secrets': { type: 'boolean' },
} as const;

/** The parsed option values of `autobench run`. */
export type RunValues = { [K in keyof typeof RUN_OPTIONS]?: (typeof RUN_OPTIONS)[K] extends { multiple: true } ? string[] : (typeof RUN_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

function parseFrameworks(v: string | undefined): string[] | undefined {
  const frameworks = v?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = frameworks?.filter((f) => !(FRAMEWORKS as readonly string[]).includes(f)) ?? [];
  if (unknown.length) throw new UsageError(`--frameworks: unknown framework${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `'${f}'`).join(', ')}; choose from ${FRAMEWORKS.join(', ')}`);
  return frameworks;
}

function parseGpus(v: string | undefined): number[] | undefined {
  return v?.split(',').map((s) => {
    const n = Number(s.trim());
    if (s.trim() === '' || !Number.isInteger(n) || n < 0) throw new UsageError(`--gpus: '${s}' is not a GPU id; give ids like 0,1`);
    return n;
  });
}

/** `--secret-env HF_TOKEN --secret-env A,B`: names of environment variables, never values. */
function parseSecretEnv(v: readonly string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const names = v.flatMap((x) => x.split(',')).map((x) => x.trim());
  for (const n of names) {
    // The word may be a value given by mistake: never echoed.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) throw new UsageError('--secret-env takes the NAME of an environment variable (e.g. --secret-env HF_TOKEN), not a value; set the value in the environment');
  }
  return [...new Set(names)];
}

/** The run's options from the command line (every value checked before anything runs). */
export function optionsFrom(values: RunValues, planPath: string): Omit<RunOptions, 'planText'> {
  const tier = parseTier(values.tier);
  const strategy = parseStrategy(values.strategy);
  const force = parseForce(values.force);
  const frameworks = parseFrameworks(values.frameworks);
  const gpus = parseGpus(values.gpus);
  const target = values.target ?? 'sim';
  checkTarget(target);
  checkExists('--tokenizer', values.tokenizer, 'tokenizer.json or model folder');
  checkExists('--help-dir', values['help-dir'], 'folder of captured --help texts');
  const simSpeed = positiveNumber('sim-speed', values['sim-speed']);
  const simSeed = wholeNumber('sim-seed', values['sim-seed'], 0);
  const repeats = wholeNumber('repeats', values.repeats, 0);
  const finalists = wholeNumber('finalists', values.finalists, 1);
  const simExtraOptions = simExtra(values);
  const health = positiveNumber('health-timeout', values['health-timeout']);
  const secretEnv = parseSecretEnv(values['secret-env']);
  return {
    planPath,
    target,
    outDir: values.out ?? '',
    ...(tier ? { tier } : {}),
    ...(strategy ? { strategy } : {}),
    ...(force ? { force } : {}),
    ...(values['no-calibration'] ? {} : { calibrationStore: values.calibration ?? DEFAULT_STORE }),
    ...(frameworks ? { frameworks } : {}),
    ...(simSpeed ? { simSpeed } : {}),
    ...(simSeed !== undefined ? { simSeed } : {}),
    ...(simExtraOptions ? { simExtraOptions } : {}),
    ...(repeats !== undefined ? { repeats } : {}),
    ...(finalists !== undefined ? { finalists } : {}),
    ...(values['accept-new-host-key'] ? { acceptNewHostKey: true } : {}),
    ...(values['help-dir'] ? { helpDir: values['help-dir'] } : {}),
    ...(values.tokenizer ? { tokenizer: values.tokenizer } : {}),
    ...(gpus ? { gpus } : {}),
    ...(health ? { healthTimeoutS: health } : {}),
    ...slurmOptions(values, target),
    ...(secretEnv ? { secretEnv } : {}),
    ...(values['allow-plan-secrets'] ? { allowPlanSecrets: true } : {}),
    renderHtml: reportPage,
  };
}
