// `autobench predict PATH...`: every candidate of each plan or cookbook config run on the simulated engine model on a virtual clock; a table (or JSON) of PREDICTED capacities, never a measurement.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { collectConfigFiles } from '../core/config/files';
import type { CalibrationInput } from '../predict/calibrated';
import { gpuNames, resolveGpuName, type FileOutcome, type PredictedAt, type PredictedPlan } from '../predict/folder';
import { formatPrediction, PREDICTED_HEADER } from '../predict/format';
import { formatAt } from '../predict/format-at';
import { parseOperatingPoint, type AtSpec } from '../predict/at';
import { DEFAULT_STORE, loadStore } from '../predict/store';
import { EfficiencyError, parseEfficiency, type EfficiencyTerm } from '../sim/efficiency';
import { parseCommand } from './args';
import { styleFor } from './colors';
import { EnvironmentError, UsageError } from './errors';
import { checkOutputFile, writeOutputFile } from './output-paths';
import { predictFiles, type PoolResult } from './predict-pool';
import type { CliIO } from './validate';

export const PREDICT_TOOL = 'autobench predict';
const MAX_DEFAULT_JOBS = 4;

export const PREDICT_HELP = `usage: autobench predict PATH... [--gpu NAME] [--json] [--out FILE] [--jobs N]
                         [--calibration FILE | --no-calibration]
                         [--sim-efficiency SPEC]
                         [--at rate=R|concurrency=C|offline [--requests N]]

PREDICTS how each candidate of a plan or cookbook config would serve, without a
server or a GPU: each candidate's command is parsed as its framework's CLI and
run on the SIMULATED engine model (the scheduler and cost model of 'autobench
sim serve') on a virtual clock, at rising request rates under the plan's SLA.
Every number is a prediction of that model, never a GPU measurement.

PATH              a plan or cookbook config, or a folder searched recursively
                  for *.yaml / *.yml (sorted)

The table, per file: the model and GPU; per candidate its framework, id, GPUs
and predicted status (ok; oom or fails: the server would not start, with the
reason; skipped: the plan skips it), and per scenario the predicted capacity
(the highest req/s that meets the SLA; '>=X' when every rate tried passed) with
the p50 TTFT and p50 TPOT at that rate; then per scenario the predicted leader
(highest capacity) and the Pareto front members (throughput per GPU against
tokens/s per user, and against p50 TTFT).

options:
  --gpu NAME   predict on this simulated GPU instead of the plan's
               hardware.gpu_model: ${gpuNames().join(', ')},
               or auto (the smallest that fits each candidate)
  --json       print a JSON array on stdout instead of the table: one
               PlanPrediction per predicted file, in file order
  --out FILE   also write FILE (a folder: FILE/predict.json):
                 { "simulated": true, "tool": "${PREDICT_TOOL}",
                   "generated_at": ISO 8601 time, "gpu": NAME or null,
                   "predictions": [PlanPrediction, ...],
                   "errors": [{ "file": PATH, "problems": [TEXT, ...] }] }
  --jobs N     predict N files at a time in worker threads (default: the CPU
               cores, at most ${MAX_DEFAULT_JOBS}; 1: in this thread)
  --calibration FILE
               calibrate the model with this store ('autobench calibrate' and
               adaptive runs write it; default: ${DEFAULT_STORE} in this
               folder, when it exists): per framework the entry for the
               plan's GPU with the most candidates (any version; GPU runs
               before simulated ones) scales each candidate's speed from its
               flag values; the table and JSON name the entry, or say
               'uncalibrated'
  --no-calibration
               use no store
  --at POINT   instead of searching capacity, run every candidate x scenario
               at one load and report what the load client would: rate=R
               (Poisson arrivals at R req/s), concurrency=C (C requests in
               flight, a closed loop) or offline (every request at once); the
               table and --json give request and output throughput, mean and
               p50 TTFT, TPOT, ITL (the gap between streamed chunks) and E2E,
               the KV cache in tokens and the requests preempted. --json: one
               object per file { simulated, file, model, gpu, calibrated,
               calibration, at: { kind, rate, concurrency, requests, seed },
               points: [{ framework, candidate, scenario, status, reason?,
               gpus, factors, rel_error, completed, failed, duration_s,
               request_throughput, output_throughput, mean_ttft_ms,
               p50_ttft_ms, mean_tpot_ms, p50_tpot_ms, mean_itl_ms,
               p50_itl_ms, mean_e2e_ms, p50_e2e_ms, kv_capacity_tokens,
               preemptions }], elapsedMs }
  --requests N measured requests per point with --at (default: the plan's
               num_prompts); the arrivals are the load client's own schedule
               for the plan's seed, and no warm-up is simulated: the client's
               warm-up requests finish, and the cache is flushed, before the
               measured ones start
  --sim-efficiency SPEC
               scale the matching candidates' simulated engines by known
               factors, as 'autobench sim --sim-efficiency SPEC' does (a
               ground truth for tests and benchmarks, not a prediction):
               SPEC is a comma list of FRAMEWORK[.FLAG=VALUE]:FACTOR, e.g.
               vllm.max_num_seqs=256:1.07,sglang:0.95; compute and memory
               speed x FACTOR (0.2..5), matching terms multiply; with
               --no-calibration the capacities are the true ones
  -h, --help   show this help

A PlanPrediction is { simulated: true, file, model, gpu, calibrated,
calibration: [{ framework, calibrated, store, gpu, version, simulated,
candidates, text }], candidates: [{ framework, candidate, command, gpus, status, reason?, factors,
relError, scenarios: [{ scenario, concurrency, capacity, upper?, atCapacity,
curve: [{ rate, passed, reasons, requestThroughput, outputThroughput,
p50TtftMs, p99TtftMs, p50TpotMs, p99TpotMs, p50E2eMs, successRate }] }] }],
fronts: [{ scenario, byUserTps, byTtft, leader }], elapsedMs }: rates in
req/s, latencies in ms, throughput in tokens/s (modelled time).

A file that cannot be read as a plan is reported with its problems on stderr;
the other files are still predicted.

exit status: 0 every file predicted (a candidate predicted to run out of
memory is a result, not an error), 1 a path or file could not be read as a
plan, 2 bad arguments`;

interface PredictArgs {
  paths: string[];
  gpu: string | undefined;
  json: boolean;
  out: string | undefined;
  jobs: number;
  /** The store file to read; undefined: none. `explicit`: given with --calibration (a missing file is an error). */
  calibration: { path: string; explicit: boolean } | undefined;
  /** --sim-efficiency: the SPEC as given and its terms. */
  efficiency: { spec: string; terms: EfficiencyTerm[] } | undefined;
  /** --at with --requests. */
  at: AtSpec | undefined;
}

function parsePredictArgs(argv: string[], io: CliIO): PredictArgs | undefined {
  const parsed = parseCommand(argv, { gpu: { type: 'string' }, json: { type: 'boolean' }, out: { type: 'string' }, jobs: { type: 'string' }, calibration: { type: 'string' }, 'no-calibration': { type: 'boolean' }, 'sim-efficiency': { type: 'string' }, at: { type: 'string' }, requests: { type: 'string' } }, PREDICT_HELP, io.out);
  if (!parsed) return undefined;
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError(`predict needs at least one PATH (a plan, a cookbook config or a folder of them)\n\n${PREDICT_HELP.split('\n\n')[0] ?? ''}`);
  let gpu: string | undefined;
  if (values.gpu !== undefined) {
    gpu = resolveGpuName(values.gpu);
    if (!gpu) throw new UsageError(`--gpu ${values.gpu}: the simulated engine has no such GPU; choose one of ${gpuNames().join(', ')}, auto`);
  }
  let jobs = Math.max(1, Math.min(MAX_DEFAULT_JOBS, availableParallelism()));
  if (values.jobs !== undefined) {
    jobs = Number(values.jobs);
    if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) throw new UsageError(`--jobs ${values.jobs}: give a whole number from 1 to 64`);
  }
  let out = values.out;
  if (out !== undefined) {
    if (isFolder(out)) out = join(out, 'predict.json');
    checkOutputFile(out, '--out');
  }
  if (values.calibration !== undefined && values['no-calibration']) throw new UsageError('--calibration and --no-calibration contradict each other: give one');
  let calibration: PredictArgs['calibration'];
  if (values.calibration !== undefined) calibration = { path: values.calibration, explicit: true };
  else if (!values['no-calibration'] && existsSync(DEFAULT_STORE)) calibration = { path: DEFAULT_STORE, explicit: false };
  const spec = values['sim-efficiency'];
  return { paths: positionals, gpu, json: values.json === true, out, jobs, calibration, efficiency: spec !== undefined ? { spec, terms: efficiencyTerms(spec) } : undefined, at: atSpec(values) };
}

/** --at and --requests as one spec; --requests without --at is a usage error. */
function atSpec(values: { at?: string | undefined; requests?: string | undefined }): AtSpec | undefined {
  const v = values.requests;
  const requests = v === undefined ? undefined : Number(v);
  if (requests !== undefined && (!Number.isInteger(requests) || requests < 1 || requests > 1_000_000)) throw new UsageError(`--requests ${v}: give a whole number from 1 to 1000000`);
  if (values.at === undefined) {
    if (requests !== undefined) throw new UsageError('--requests sizes a prediction at one load: give --at rate=R, concurrency=C or offline with it');
    return undefined;
  }
  const point = parseOperatingPoint(values.at);
  if (typeof point === 'string') throw new UsageError(`--at ${point}`);
  return { point, ...(requests !== undefined ? { requests } : {}) };
}

/** --sim-efficiency's terms, parsed as the simulator parses them; a bad SPEC is a usage error naming the bad term. */
function efficiencyTerms(spec: string): EfficiencyTerm[] {
  try {
    return parseEfficiency(spec);
  } catch (e) {
    if (e instanceof EfficiencyError) throw new UsageError(`--sim-efficiency: ${e.message}`);
    throw e;
  }
}

/** The store to calibrate with; an explicit file that is missing or not a store is an error naming it. */
function loadCalibration(c: PredictArgs['calibration']): CalibrationInput | undefined {
  if (!c) return undefined;
  if (c.explicit && !existsSync(c.path)) throw new EnvironmentError(`--calibration ${c.path}: no such file; write one with 'autobench calibrate RUN_DIR --store ${c.path}', or leave --calibration out`);
  try {
    return { label: c.path, store: loadStore(c.path) };
  } catch (e) {
    throw new EnvironmentError(`--calibration ${c.path}: ${(e as Error).message}`);
  }
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The --out document: the predictions with what made them (`sim_efficiency`: the SPEC, only when given), and the files that could not be predicted. */
export function predictDocument(predictions: Array<PredictedPlan | PredictedAt>, errors: Array<{ file: string; problems: string[] }>, gpu: string | undefined, efficiency?: string): unknown {
  return { simulated: true, tool: PREDICT_TOOL, generated_at: new Date().toISOString(), gpu: gpu ?? null, ...(efficiency !== undefined ? { sim_efficiency: efficiency } : {}), predictions, errors };
}

function reportFailure(io: CliIO, file: string, problems: readonly string[]): void {
  const st = styleFor(io.err);
  io.err.write(`${st.red('error')}: ${file}: cannot be predicted:\n`);
  for (const p of problems) io.err.write(`  ${p}\n`);
}

export async function runPredict(argv: string[], io: CliIO): Promise<number> {
  const args = parsePredictArgs(argv, io);
  if (!args) return 0;
  const { files, problems } = collectConfigFiles(args.paths);
  const errors: Array<{ file: string; problems: string[] }> = problems.map((p) => ({ file: p.path, problems: [p.message] }));
  for (const e of errors) reportFailure(io, e.file, e.problems);
  const calibration = loadCalibration(args.calibration);
  const predictions: Array<PredictedPlan | PredictedAt> = [];
  let internal = false;
  const onResult = (index: number, r: PoolResult): void => {
    const file = files[index] as string;
    if ('error' in r) {
      internal = true;
      io.err.write(`autobench: internal error while predicting ${file}: ${r.error}\n`);
      if (process.env.AUTOBENCH_DEBUG && r.stack) io.err.write(`${r.stack}\n`);
      return;
    }
    const o: FileOutcome = r.outcome;
    if (!o.ok) {
      errors.push({ file: o.file, problems: o.problems });
      reportFailure(io, o.file, o.problems);
      return;
    }
    predictions.push('at' in o ? o.at : o.prediction);
    if (!args.json) io.out.write(`${predictions.length > 1 ? '\n' : ''}${'at' in o ? formatAt(o.at, o.facts) : formatPrediction(o.prediction, o.facts)}`);
  };
  const efficiency = args.efficiency ? { efficiency: args.efficiency.terms } : {};
  await predictFiles(files, { ...(args.gpu !== undefined ? { gpu: args.gpu } : {}), ...(calibration ? { calibration } : {}), ...efficiency, ...(args.at ? { at: args.at } : {}), jobs: args.jobs, onResult });
  if (args.json) io.out.write(`${JSON.stringify(predictions, null, 2)}\n`);
  if (args.out !== undefined) {
    writeOutputFile(args.out, `${JSON.stringify(predictDocument(predictions, errors, args.gpu, args.efficiency?.spec), null, 2)}\n`, '--out');
    io.err.write(`wrote ${args.out} (${PREDICTED_HEADER})\n`);
  }
  if (internal) return 70;
  return errors.length > 0 || files.length === 0 ? 1 : 0;
}
