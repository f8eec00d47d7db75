// `autobench run PLAN`: the whole search on a target (sim, local, ssh:HOST, slurm[:PARTITION]), with progress on a TTY, a final summary table and the report's paths.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DEFAULT_SEARCH_STRATEGY } from '../core/plan/strategy';
import { planOf, runPlan, PlanError, processEnvSecrets, RunDirInUseError, type RunOptions, type RunResult } from '../runner';
import type { RunPlan } from '../core/plan/types';
import { MissingSecretError, readsConfigFile, runSecrets, secretsLines } from '../runner/run-secrets';
import { DEFAULT_SECRET_NAMES } from '../runner/target';
import { redactingStream } from './redacting-stream';
import { styleFor } from './colors';
import { parseCommand, usageLines } from './args';
import { EnvironmentError, UsageError, errnoText } from './errors';
import { checkOutputFolder } from './output-paths';
import { Progress, printSummary } from './run-progress';
import { RUN_OPTIONS, joinSimOpts, optionsFrom, type RunValues } from './run-args';
import type { CliIO } from './validate';

export const RUN_HELP = `usage: autobench run PLAN [--target sim|local|ssh:HOST|slurm[:PARTITION]] [--frameworks A,B]
                     [--tier 1|2|3] [--strategy grid|adaptive] [--force FW:ID]... [--calibration FILE]
                     [--out DIR] [--resume] [--sim-speed K]
                     [--sim-seed N] [--sim-opts "--sim-..."] [--sim-perturb N]
                     [--repeats N] [--finalists N]
                     [--accept-new-host-key] [--help-dir DIR] [--tokenizer PATH]
                     [--gpus 0,1,...] [--health-timeout S] [--quiet]
                     [--max-parallel N] [--sim-on-nodes]

Runs a plan or cookbook config: per framework a preflight (the target's --help
and version captured into DIR/help, every candidate's flags checked against
them, GPUs checked free, a smoke server), then each candidate launched with its
exact command, warmed up, measured at the fixed rates and by the rate search
under the SLA, and torn down. Rows are appended to DIR/rows.jsonl as trials
finish; the report is DIR/summary.md, summary.csv, summary.html and summary.json (the verdicts).

options:
  --target T            sim (the built-in SIMULATED engine, default), local,
                        ssh:HOST (a host from ~/.ssh/config), or slurm[:PARTITION]
                        (each candidate a batch job with its own GPUs; the
                        plan's slurm: block sets account, qos, time limit, ...)
  --max-parallel N      slurm: candidates measured at once, each in its own job
                        (default 4)
  --sim-on-nodes        slurm: the jobs run the built-in SIMULATED engine's
                        framework CLIs (no GPU is used; rows say simulated)
  --frameworks A,B      run only these; the others are recorded as user-excluded
  --tier N              1 baseline only, 2 the bounded candidate list (default,
                        or the plan's search.tier), 3 every search combination
  --strategy S          grid: every candidate of the list measured, in order;
                        adaptive: predict each with the engine model, measure
                        those that can still win, skip the rest with the reason
                        (default: the plan's search.strategy, else ${DEFAULT_SEARCH_STRATEGY})
  --force FW:ID         measure this candidate even if adaptive would skip it
                        (vllm:c3; a bare ID such as c3 names it in every
                        framework); repeat it or give a comma list
  --calibration FILE    adaptive: the calibration store its predictions start
                        from and that it adds to (default
                        .autobench/calibration.json in this folder)
  --no-calibration      adaptive: use and keep no calibration store
  --out DIR             run directory (default: the plan's output_dir, else
                        autobench-runs/<plan>-<time>)
  --resume              continue the run in --out: finished trials are kept and
                        not measured again (a plan's own output_dir resumes when
                        its search.resume is true, the default)
  --sim-speed K         simulated engine: run K times faster than the modelled
                        GPU (default 10); rows report modelled time
  --sim-seed N          simulated engine: the seed of every simulated server
                        (default 1); each launch also gets its own salt
  --sim-opts "..."      simulated engine: more --sim-* options for every server
                        (e.g. "--sim-noise 0.03 --sim-error-rate 0.2")
  --sim-perturb N       simulated engine: hidden, seeded efficiency factors per
                        framework and flag value (a ground truth no cost model
                        knows; the factors are never printed)
  --repeats N           at most N rounds of repeats, each on a freshly started
                        server, while the verdict is undecided (default: the
                        plan's verdict.max_repeats, 16; 0 off)
  --finalists N         contenders repeated per framework and scenario (default 2)
  --accept-new-host-key ssh: add an unknown host key to known_hosts (a changed
                        key is always refused)
  --help-dir DIR        captured --help texts to render and check commands with
  --tokenizer PATH      local tokenizer.json or model folder for the prompts
                        (default on sim: the simulated engine's own)
  --gpus LIST           GPU ids the servers use, checked free with nvidia-smi
  --health-timeout S    seconds a server gets to answer GET /v1/models
  --secret-env NAME     send the environment variable NAME to every server (by
                        name, never on a command line); repeat or list: A,B
  --allow-plan-secrets  run a plan that has a secret written into it (it stops
                        with the file and line otherwise)
  --quiet               no progress output, only the summary
  -h, --help            show this help

Secrets go to the servers only when named: --secret-env HF_TOKEN, or the plan's
secrets: block (api_key, server_env, headers), each a variable's name. The run
prints which names go to which target; no file, log, row or stderr line ever
holds their values. Ctrl-C stops the current server and keeps every finished
row (continue with --resume).

Every option, the plan and the run directory are checked before a server starts.

exit status: 0 the run finished and measured (failed candidates are rows, not
errors), 1 the plan cannot run, the run directory cannot be written or the GPUs
are busy, 2 bad arguments, 3 the run finished but measured nothing (every
candidate failed to start, or every trial failed), 130 cancelled`;

function defaultOutDir(planPath: string): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return join('autobench-runs', `${basename(planPath).replace(/\.(ya?ml|json)$/i, '')}-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`);
}

/** A checked command line with its plan read, or the exit status of a plan that cannot run. */
interface Prepared {
  opts: RunOptions;
  values: RunValues;
  planPath: string;
  /** What goes where (names only), and the values stderr must never show. */
  secrets: { lines: string[]; values: string[] };
}

/** The run's secrets as the runner will decide them: the lines that say which names go to the target, and the values to keep off stderr. */
function secretsOf(opts: RunOptions, plan: RunPlan): Prepared['secrets'] {
  const s = runSecrets(plan.secrets, opts.secretEnv ?? [], processEnvSecrets);
  const frameworks = plan.frameworks.filter((f) => f.status === 'run').map((f) => ({ framework: f.framework, readsConfigFile: readsConfigFile(plan, f.framework, opts.container !== undefined) }));
  const lines = secretsLines(s, opts.target, frameworks);
  const held = DEFAULT_SECRET_NAMES.filter((n) => process.env[n] && !s.serverEnv.includes(n));
  if (held.length) lines.push(`note: ${held.join(', ')} ${held.length > 1 ? 'are' : 'is'} set here but not sent to the servers; pass --secret-env ${held[0]} (or list it in the plan's secrets.server_env) to send it`);
  return { lines, values: s.values };
}

/** Every option, the plan and the run directory checked, before any target is opened or server started. */
function prepare(argv: string[], io: CliIO): Prepared | number {
  const parsed = parseCommand(joinSimOpts(argv), RUN_OPTIONS, RUN_HELP, io.out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`run needs exactly one PLAN\n\n${usageLines(RUN_HELP)}`);
  const planPath = positionals[0] as string;
  const checked = optionsFrom(values, planPath);
  let planText: string;
  try {
    planText = readFileSync(planPath, 'utf8');
  } catch (e) {
    throw new EnvironmentError(`cannot read ${planPath}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : errnoText(e)}`);
  }
  const base: RunOptions = { ...checked, planText };
  let opts: RunOptions;
  try {
    // Read once: the run directory may come from the plan, and the run reuses this plan.
    const plan = planOf(base);
    const fromPlan = values.out === undefined ? plan.target.outputDir : undefined;
    opts = { ...base, plan, outDir: values.out ?? fromPlan ?? defaultOutDir(planPath), resume: Boolean(values.resume) || (fromPlan !== undefined && plan.target.resume) };
  } catch (e) {
    if (e instanceof PlanError) return planFailed(io, planPath, e);
    throw e;
  }
  let secrets: Prepared['secrets'];
  try {
    secrets = secretsOf(opts, opts.plan as RunPlan);
  } catch (e) {
    if (e instanceof MissingSecretError) throw new EnvironmentError(e.message);
    throw e;
  }
  // The run directory must take rows before the first server starts, not after the last trial.
  checkOutputFolder(opts.outDir, values.out !== undefined ? '--out' : 'the run directory');
  return { opts, values, planPath, secrets };
}

/** `autobench run`; usage errors and bugs become messages and exit statuses in main's catch. */
export async function runRun(argv: string[], io: CliIO): Promise<number> {
  const prepared = prepare(argv, io);
  if (typeof prepared === 'number') return prepared;
  const { opts, values, planPath } = prepared;
  // Every line to stderr from here on, the runner's texts included, loses the run's secret values.
  io = { ...io, err: redactingStream(io.err, prepared.secrets.values) };
  for (const l of prepared.secrets.lines) io.err.write(`${l}\n`);
  const progress = new Progress(io, Boolean(values.quiet));
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    progress.clear();
    io.err.write(interrupts === 1 ? 'stopping: tearing the server down and keeping every finished row...\n' : 'still stopping the server; please wait\n');
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: RunResult;
  try {
    result = await runPlan(opts, { signal: abort.signal, onEvent: (e) => progress.on(e) });
  } catch (e) {
    progress.clear();
    if (e instanceof PlanError) return planFailed(io, planPath, e);
    if (e instanceof RunDirInUseError) throw new EnvironmentError(e.message);
    // The target could not be opened (host key refused, no connection, bin/sim missing): nothing ran.
    const hint = (e as Error).name === 'HostKeyError' && !values['accept-new-host-key'] ? ' (an unknown host key is accepted with --accept-new-host-key; a changed one never is)' : '';
    io.err.write(`${styleFor(io.err).red('error')}: cannot start the run on ${opts.target}: ${(e as Error).message}${hint}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    progress.clear();
  }
  return finished(io, result);
}

/** The summary, and the exit status of a run that ended. */
function finished(io: CliIO, result: RunResult): number {
  const errStyle = styleFor(io.err);
  printSummary(io, result);
  if (result.status === 'cancelled') {
    io.err.write(`${errStyle.yellow('cancelled')}: finished rows are in ${result.outDir}; continue with --resume --out ${result.outDir}\n`);
    return 130;
  }
  if (result.status === 'gpu-busy') {
    io.err.write(`${errStyle.red('error')}: GPU check failed: ${result.reason ?? ''}\n`);
    return 1;
  }
  if (result.status === 'failed') {
    io.err.write(`${errStyle.red('error')}: the run stopped: ${result.reason ?? ''}\n`);
    return 1;
  }
  // The report's outcome counts the measured candidates (core/results): the same count its warning above is from.
  if (result.report?.outcome.counts.measured === 0) {
    io.err.write(`${errStyle.red('error')}: nothing was measured: no trial of any candidate completed (each candidate's row in ${result.outDir}/rows.jsonl says why)\n`);
    return EXIT_NOTHING_MEASURED;
  }
  return 0;
}

/** `autobench run`'s exit status for a run that ended without one measured trial (documented in --help). */
export const EXIT_NOTHING_MEASURED = 3;

function planFailed(io: CliIO, planPath: string, e: PlanError): number {
  const st = styleFor(io.err);
  io.err.write(`${st.red('error')}: ${planPath}: ${e.message}:\n`);
  for (const p of e.problems) io.err.write(`  ${p}\n`);
  return 1;
}
