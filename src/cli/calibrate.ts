// `autobench calibrate RUN_DIR...`: fits the simulated engine model's speed factors to finished runs' measured candidates,
// shows how far the model's SLA capacity was from each measured verdict before and after (and for a candidate it never
// measured: leave-one-out), and merges the fits into the calibration store that `autobench predict` and adaptive runs read.
import { calibrateRun, readRunDir, type FrameworkCalibration, type RunCalibration, type ScenarioCheck } from '../predict/from-runs';
import { DEFAULT_STORE, loadStore, mergePoints, pointsFor, saveStore, type CalibrationStore, type StoreKey } from '../predict/store';
import { parseCommand } from './args';
import { styleFor } from './colors';
import { EnvironmentError, UsageError, errnoText } from './errors';
import type { CliIO } from './validate';

export const CALIBRATE_HELP = `usage: autobench calibrate RUN_DIR... [--store FILE] [--dry-run] [--json]

Calibrates the SIMULATED engine model ('autobench predict', adaptive runs) from
finished runs: for each candidate a run measured (rows with status ok in search
or fixed mode) its prefill and decode speed factors are fitted to its trials'
p50 TTFT and p50 TPOT (the SLA-passing trials; the lowest-rate ones when none
passed), and the fits are merged into the calibration store, one entry per
GPU x framework x version x simulated (a simulated run's fits never calibrate
a GPU's).

RUN_DIR           a folder 'autobench run --out' wrote (plan.yaml, rows.jsonl,
                  manifest.json)

Printed per run and framework, per measured candidate: the trials the fit
used, the factors, and per scenario the measured SLA capacity (the verdict's
score) beside the model's PREDICTED capacity before the fit, after it (the
candidate's own factors) and leave-one-out (from the per-flag-value model of
the framework's other measured candidates: the error to expect for a
candidate that was not measured), each with its error (predicted / measured
- 1); then the median |error| of each. Every prediction is the simulated
engine model's; rows from a simulated run are labelled SIMULATED.

options:
  --store FILE  the calibration store (default: ${DEFAULT_STORE} in this
                folder); created when missing
  --dry-run     fit and print, write nothing
  --json        print one JSON document instead of the table:
                  { "simulated_model": true, "store": FILE, "dry_run": BOOL,
                    "runs": [{ dir, runId, simulated, gpu, modelGpu,
                      frameworks: [{ framework, key, medianBefore,
                        medianAfter, medianLeaveOneOut, unfitted,
                        candidates: [{ candidate, features, observations,
                          trials, factors, scenarios: [{ scenario, measured,
                          before, after, leaveOneOut, errorBefore,
                          errorAfter, errorLeaveOneOut }] }] }] }],
                    "written": [{ gpu, framework, version, simulated,
                      added, total }],
                    "errors": [{ "dir": RUN_DIR, "problem": TEXT }] }
  -h, --help    show this help

A directory that cannot be read (not a run directory, no rows, no plan.yaml)
is named on stderr with the fix; the others are still calibrated and stored.

exit status: 0 every directory calibrated, 1 a directory could not be read
or the store could not be read or written, 2 bad arguments`;

interface CalibrateArgs {
  dirs: string[];
  store: string;
  dryRun: boolean;
  json: boolean;
}

function parseCalibrateArgs(argv: string[], io: CliIO): CalibrateArgs | undefined {
  const parsed = parseCommand(argv, { store: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } }, CALIBRATE_HELP, io.out);
  if (!parsed) return undefined;
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError(`calibrate needs at least one RUN_DIR (a folder 'autobench run --out' wrote)\n\n${CALIBRATE_HELP.split('\n\n')[0] ?? ''}`);
  return { dirs: positionals, store: values.store ?? DEFAULT_STORE, dryRun: values['dry-run'] === true, json: values.json === true };
}

const pct = (x: number | null): string => (x === null ? '-' : `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`);
const absPct = (x: number | null): string => (x === null ? '-' : `${Math.round(x * 100)}%`);
const rate = (x: number | null): string => (x === null ? '-' : x === 0 ? 'none' : String(Number(x.toPrecision(4))));
const keyText = (k: StoreKey): string => `${k.gpu} / ${k.framework} ${k.version} / ${k.simulated ? 'simulated' : 'GPU'}`;

function cell(value: number | null, error: number | null): string {
  return value === null ? '-' : error === null ? rate(value) : `${rate(value)} (${pct(error)})`;
}

function frameworkLines(f: FrameworkCalibration, scenW: number): string[] {
  const n = f.candidates.length;
  const lines = [`${f.framework} ${f.key.version}: ${n} measured candidate${n === 1 ? '' : 's'} fitted`];
  if (n) {
    lines.push(`  ${'candidate'.padEnd(10)}${'trials'.padStart(7)}${'prefill'.padStart(9)}${'decode'.padStart(8)}  ${'scenario'.padEnd(scenW)}${'measured'.padStart(9)}  ${'before'.padEnd(16)}${'after'.padEnd(16)}leave-one-out`);
    for (const c of f.candidates) {
      c.scenarios.forEach((s: ScenarioCheck, i) => {
        const head = i === 0 ? `  ${c.candidate.padEnd(10)}${`${c.observations}/${c.trials}`.padStart(7)}${`x${c.factors.prefill.toFixed(2)}`.padStart(9)}${`x${c.factors.decode.toFixed(2)}`.padStart(8)}` : ' '.repeat(36);
        lines.push(`${head}  ${s.scenario.padEnd(scenW)}${rate(s.measured).padStart(9)}  ${cell(s.before, s.errorBefore).padEnd(16)}${cell(s.after, s.errorAfter).padEnd(16)}${cell(s.leaveOneOut, s.errorLeaveOneOut)}`.trimEnd());
      });
    }
    const loo = n > 1 ? absPct(f.medianLeaveOneOut) : 'n/a (one measured candidate)';
    lines.push(`  median |error|: before ${absPct(f.medianBefore)}, after ${absPct(f.medianAfter)}, leave-one-out ${loo}`);
  }
  for (const u of f.unfitted) lines.push(`  not fitted: ${u.candidate}: ${u.reason}`);
  return lines;
}

/** The table for one run directory. */
export function formatCalibration(r: RunCalibration): string {
  const scenW = Math.max(8, ...r.frameworks.flatMap((f) => f.candidates.flatMap((c) => c.scenarios.map((s) => s.scenario.length)))) + 1;
  const source = r.simulated ? 'rows SIMULATED (the built-in simulated engine, no GPU)' : 'rows measured on a GPU';
  const lines = [
    `CALIBRATION of the simulated engine model: ${r.dir}${r.runId ? ` (run ${r.runId})` : ''}, ${source}`,
    `GPU: ${r.gpu} (model: ${r.modelGpu})   capacities in req/s under the plan's SLA; measured: the verdict's score`,
    'before/after/leave-one-out: the model\'s PREDICTED capacity uncalibrated, with the candidate\'s fitted factors, and',
    "from the framework's other measured candidates (what to expect for an unmeasured one); (%): predicted / measured - 1",
  ];
  if (r.frameworks.length === 0) lines.push('', 'no measured candidate (no row with status ok in search or fixed mode)');
  for (const f of r.frameworks) lines.push('', ...frameworkLines(f, scenW));
  return `${lines.join('\n')}\n`;
}

function openStore(path: string): CalibrationStore {
  try {
    return loadStore(path);
  } catch (e) {
    throw new EnvironmentError(`--store ${path}: ${e instanceof SyntaxError ? `not JSON (${e.message}); delete it or pass another --store file` : ((e as Error).message ?? errnoText(e))}`);
  }
}

export function runCalibrate(argv: string[], io: CliIO): number {
  const args = parseCalibrateArgs(argv, io);
  if (!args) return 0;
  const store = openStore(args.store);
  const st = styleFor(io.err);
  const errors: Array<{ dir: string; problem: string }> = [];
  const runs: RunCalibration[] = [];
  const written = new Map<string, { key: StoreKey; added: number }>();
  for (const dir of args.dirs) {
    const read = readRunDir(dir);
    if (!read.ok) {
      errors.push({ dir, problem: read.problem });
      io.err.write(`${st.red('error')}: ${read.problem}\n`);
      continue;
    }
    const r = calibrateRun(read.run);
    if (r.frameworks.every((f) => f.points.length === 0)) {
      const problem = `${dir}: no measured candidate to fit (no row with status ok in search or fixed mode, or none with p50 TTFT and TPOT); run or resume it (autobench run PLAN --out ${dir})`;
      errors.push({ dir, problem });
      io.err.write(`${st.red('error')}: ${problem}\n`);
    }
    runs.push(r);
    if (!args.json) io.out.write(`${runs.length > 1 ? '\n' : ''}${formatCalibration(r)}`);
    for (const f of r.frameworks) {
      if (!f.points.length) continue;
      mergePoints(store, f.key, f.points, r.runId ?? dir);
      const id = JSON.stringify(f.key);
      written.set(id, { key: f.key, added: (written.get(id)?.added ?? 0) + f.points.length });
    }
  }
  const keys = [...written.values()].map(({ key, added }) => ({ ...key, added, total: pointsFor(store, key).length }));
  if (keys.length && !args.dryRun) {
    try {
      saveStore(args.store, store);
    } catch (e) {
      throw new EnvironmentError(`cannot write the store ${args.store}: ${errnoText(e)}`);
    }
  }
  if (args.json) io.out.write(`${JSON.stringify({ simulated_model: true, store: args.store, dry_run: args.dryRun, runs: runs.map(plainRun), written: args.dryRun ? [] : keys, errors }, null, 2)}\n`);
  else {
    const verb = args.dryRun ? 'would write (--dry-run: nothing written)' : 'wrote';
    if (keys.length) io.out.write(`\nstore ${args.store}: ${verb}\n${keys.map((k) => `  ${keyText(k)}: ${k.added} candidate${k.added === 1 ? '' : 's'} from these runs, ${k.total} in the entry`).join('\n')}\n`);
    else io.out.write(`\nstore ${args.store}: nothing to write\n`);
  }
  return errors.length ? 1 : 0;
}

/** A run's calibration as JSON: the fit's internals (latency errors) kept, the store points left out (the candidates carry them). */
function plainRun(r: RunCalibration): unknown {
  return { ...r, frameworks: r.frameworks.map(({ points: _points, ...f }) => ({ ...f, candidates: f.candidates.map(({ fit, ...c }) => ({ ...c, fitLatencyErrorBefore: fit.errorBefore, fitLatencyErrorAfter: fit.errorAfter })) })) };
}
