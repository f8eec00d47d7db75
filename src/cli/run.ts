// `autobench run PLAN`: the whole search on a target (sim, local, ssh:HOST), with progress on a TTY, a final summary table and the report's paths.
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { planOf, runPlan, PlanError, RunDirInUseError, type RunEvent, type RunOptions, type RunResult, type Tier } from '../runner';
import { reportPage } from '../webview/report-page';
import { styleFor } from './colors';
import { parseCommand } from './args';
import { UsageError } from './errors';
import type { CliIO } from './validate';

export const RUN_HELP = `usage: autobench run PLAN [--target sim|local|ssh:HOST] [--frameworks A,B]
                     [--tier 1|2|3] [--out DIR] [--resume] [--sim-speed K]
                     [--sim-seed N] [--sim-opts "--sim-..."] [--repeats N] [--finalists N]
                     [--accept-new-host-key] [--help-dir DIR] [--tokenizer PATH]
                     [--gpus 0,1,...] [--health-timeout S] [--quiet]

Runs a plan or cookbook config: per framework a preflight (the target's --help
and version captured into DIR/help, every candidate's flags checked against
them, GPUs checked free, a smoke server), then each candidate launched with its
exact command, warmed up, measured at the fixed rates and by the rate search
under the SLA, and torn down. Rows are appended to DIR/rows.jsonl as trials
finish; the report is DIR/summary.md, summary.csv, summary.html and summary.json (the verdicts).

options:
  --target T            sim (the built-in SIMULATED engine, default), local, or
                        ssh:HOST (a host from ~/.ssh/config)
  --frameworks A,B      run only these; the others are recorded as user-excluded
  --tier N              1 baseline only, 2 the bounded candidate list (default,
                        or the plan's search.tier), 3 every search combination
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
  --repeats N           re-measure each finalist N times, each on a freshly
                        started server, before naming a winner (default 3; 0 off)
  --finalists N         finalists per framework and scenario (default 2)
  --accept-new-host-key ssh: add an unknown host key to known_hosts (a changed
                        key is always refused)
  --help-dir DIR        captured --help texts to render and check commands with
  --tokenizer PATH      local tokenizer.json or model folder for the prompts
                        (default on sim: the simulated engine's own)
  --gpus LIST           GPU ids the servers use, checked free with nvidia-smi
  --health-timeout S    seconds a server gets to answer GET /v1/models
  --quiet               no progress output, only the summary
  -h, --help            show this help

HF_TOKEN and similar variables reach the servers by name from the environment;
no artifact ever holds their values. Ctrl-C stops the current server and keeps
every finished row (continue with --resume).

exit status: 0 the run finished (failed candidates are rows, not errors),
1 the plan cannot run or the GPUs are busy, 2 bad arguments, 130 cancelled`;

function parseTier(v: string | undefined): Tier | undefined {
  if (v === undefined) return undefined;
  if (v === '1' || v === '2' || v === '3') return Number(v) as Tier;
  throw new UsageError(`--tier must be 1, 2 or 3, got '${v}'`);
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

function defaultOutDir(planPath: string): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return join('autobench-runs', `${basename(planPath).replace(/\.(ya?ml|json)$/i, '')}-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`);
}

const fmt = (x: number | null | undefined, digits = 1): string => (x === null || x === undefined ? '-' : x.toFixed(digits));

/** What the terminal shows while a run goes: one rewritten status line on a TTY, plain lines elsewhere. */
class Progress {
  private line = '';
  private readonly tty: boolean;
  private current = '';

  constructor(
    private readonly io: CliIO,
    private readonly quiet: boolean,
  ) {
    this.tty = Boolean(io.err.isTTY) && process.env.TERM !== 'dumb';
  }

  private say(s: string): void {
    if (this.quiet) return;
    this.clear();
    this.io.err.write(`${s}\n`);
  }

  private status(s: string): void {
    if (this.quiet || !this.tty) return;
    const cols = this.io.err.columns || 120;
    this.line = s.slice(0, cols - 1);
    this.io.err.write(`\r${this.line}\u001b[K`);
  }

  clear(): void {
    if (this.line) this.io.err.write('\r\u001b[K');
    this.line = '';
  }

  on(e: RunEvent): void {
    const st = styleFor(this.io.err);
    switch (e.type) {
      case 'run-start':
        this.say(`${st.bold(`run ${e.runId}`)} -> ${e.outDir}${e.resumed ? ` (resumed: ${e.finishedTrials} finished rows kept${e.movedAside ? `; ${e.movedAside} row(s) of a changed plan moved aside to rows.stale.jsonl, never reused` : ''})` : ''}`);
        if (e.simulated) this.say(st.yellow('target sim: the built-in SIMULATED engine; no number from this run is a GPU measurement'));
        for (const f of e.frameworks) this.say(`  ${f.framework.padEnd(13)} ${f.status === 'run' ? `${f.candidates} candidate(s)` : `${f.status}: ${f.reason ?? ''}`}`);
        break;
      case 'preflight':
        if (e.step === 'smoke' && e.status === 'start') this.current = `${e.framework ?? ''} preflight smoke`;
        if (e.status === 'start') this.status(`preflight ${e.framework ?? ''} ${e.step}...`);
        else if (e.status !== 'ok' || e.step === 'smoke' || e.step === 'version') this.say(`  ${e.status === 'ok' ? 'ok  ' : e.status === 'failed' ? st.red('FAIL') : st.yellow('warn')} preflight ${e.framework ?? 'gpu'} ${e.step}: ${e.detail ?? ''}`);
        break;
      case 'framework-start':
        this.say(st.bold(`${e.framework}: ${e.candidates} candidate(s)`));
        break;
      case 'candidate-start':
        this.current = `${e.framework} ${e.candidateId} (${e.index + 1}/${e.of})`;
        this.say(`  ${this.current}: ${st.dim(e.command)}`);
        break;
      case 'candidate-end':
        if (e.status !== 'done') this.say(`    ${st.red(e.status)}: ${e.reason ?? ''}`);
        break;
      case 'server':
        if (e.state === 'launching' || e.state === 'waiting') this.status(`${this.current}: server ${e.state}...`);
        break;
      case 'trial-start':
        this.status(`${this.current} ${e.scenario} ${e.mode === 'search' ? `search round ${e.round}` : 'fixed'} @ ${e.rate} req/s c=${e.concurrency ?? '-'} | trial ${e.index}/${e.of}`);
        break;
      case 'trial-progress':
        this.status(
          `${this.current} ${e.scenario} ${e.mode === 'fixed' ? 'fixed' : `${e.mode === 'repeat' ? 'repeat' : 'r'}${e.round}`} @ ${e.rate} | ${e.completed + e.failed}/${e.total} req | ${fmt(e.requestsPerS)} req/s TTFT ${fmt(e.ttftMsP50, 0)} ms TPOT ${fmt(e.tpotMsP50)} ms`,
        );
        break;
      case 'trial-end': {
        if (e.resumed) break;
        const verdict = e.status !== 'ok' ? st.red(e.status) : e.slaPassed ? 'SLA pass' : st.yellow(`SLA fail (${e.reasons.join('; ')})`);
        this.say(`    ${e.scenario} ${e.mode === 'fixed' ? 'fixed' : `${e.mode === 'repeat' ? 'repeat' : 'round'} ${e.round}`} @ ${e.rate} req/s c=${e.concurrency ?? '-'}: ${fmt(e.requestThroughput, 2)} req/s, p50 TTFT ${fmt(e.p50TtftMs, 0)} ms, p50 TPOT ${fmt(e.p50TpotMs, 2)} ms — ${verdict}`);
        break;
      }
      case 'framework-end':
        if (e.outcome === 'stopped-early') this.say(st.yellow(`  ${e.framework} stopped early: ${e.reason ?? ''}`));
        else if (e.outcome === 'skipped' || e.outcome === 'user_excluded') this.say(`${e.framework}: ${e.outcome}${e.reason ? ` (${e.reason})` : ''}`);
        break;
      case 'log':
        if (e.level === 'warn') this.say(st.yellow(`warning: ${e.message}`));
        break;
      case 'row':
      case 'run-end':
        break;
    }
  }
}

function printSummary(io: CliIO, result: RunResult): void {
  const st = styleFor(io.out);
  const model = result.report;
  if (!result.summary || !model) return;
  const head = ['Scenario', 'Rank', 'Framework', 'Candidate', 'Req/s', 'Output tok/s', 'P50 TTFT ms', 'P50 TPOT ms'];
  const lines: string[][] = [];
  for (const b of model.best) {
    const c = model.candidates[b.row];
    if (!c) continue;
    lines.push([b.scenario, b.tied ? `${b.rank} (tie)` : String(b.rank), b.framework, c.candidate, fmt(c.rps, 2), fmt(c.otps, 0), fmt(c.ttft, 0), fmt(c.tpot, 2)]);
  }
  io.out.write(`\n${st.bold(`Verdict${result.simulated ? ' (SIMULATED)' : ''}`)}\n`);
  for (const v of model.verdicts) io.out.write(`  ${v.decided ? st.green('decided') : v.winner ? st.yellow('tie') : st.red('none')}  ${v.summary}\n`);
  io.out.write(`\n${st.bold(`Best under the SLA${result.simulated ? ' (SIMULATED)' : ''}`)}\n`);
  if (lines.length === 0) io.out.write('  no candidate met the SLA in any scenario\n');
  else {
    const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
    const row = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd();
    io.out.write(`${row(head)}\n${row(widths.map((w) => '-'.repeat(w)))}\n`);
    for (const l of lines) io.out.write(`${row(l)}\n`);
  }
  const counts = new Map<string, number>();
  for (const r of result.rows) {
    const k = r.status === 'ok' && r.sla?.passed === false ? 'sla-failing' : r.status;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  io.out.write(`\nrows: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')}\n`);
  const rel = (p: string) => {
    const r = relative(process.cwd(), p);
    return r && !r.startsWith('..') ? r : p;
  };
  io.out.write(`report: ${rel(result.summary.markdown)}\n`);
  io.out.write(`        ${rel(result.summary.csv)}${result.summary.html ? `, ${rel(result.summary.html)}` : ''}, ${rel(result.summary.json)}\n`);
  io.out.write(`rows:   ${rel(join(result.outDir, 'rows.jsonl'))}\n`);
}

/** `--sim-opts "--sim-noise 0.03"`: the value starts with a dash, which parseArgs would take for an option. */
function joinSimOpts(argv: string[]): string[] {
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

/** The options `autobench run` takes. */
const RUN_OPTIONS = {
  target: { type: 'string' },
  frameworks: { type: 'string' },
  tier: { type: 'string' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  'sim-speed': { type: 'string' },
  'sim-seed': { type: 'string' },
  'sim-opts': { type: 'string' },
  repeats: { type: 'string' },
  finalists: { type: 'string' },
  'accept-new-host-key': { type: 'boolean' },
  'help-dir': { type: 'string' },
  tokenizer: { type: 'string' },
  gpus: { type: 'string' },
  'health-timeout': { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

/** The parsed option values of `autobench run`. */
type RunValues = { [K in keyof typeof RUN_OPTIONS]?: (typeof RUN_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** The run's options from the command line (every value checked before anything runs). */
function optionsFrom(values: RunValues, planPath: string, planText: string): RunOptions {
  const tier = parseTier(values.tier);
  const frameworks = values.frameworks?.split(',').map((s) => s.trim()).filter(Boolean);
  const gpus = values.gpus?.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--gpus: '${s}' is not a GPU id`);
    return n;
  });
  const target = values.target ?? 'sim';
  const simSpeed = positiveNumber('sim-speed', values['sim-speed']);
  const simSeed = wholeNumber('sim-seed', values['sim-seed'], 0);
  const repeats = wholeNumber('repeats', values.repeats, 0);
  const finalists = wholeNumber('finalists', values.finalists, 1);
  if (values['sim-opts'] !== undefined && !/^(\s*--sim-[a-z-]+(\s+[^\s-][^\s]*)?)*\s*$/.test(values['sim-opts'])) throw new UsageError(`--sim-opts takes --sim-* options only, got '${values['sim-opts']}'`);
  const health = positiveNumber('health-timeout', values['health-timeout']);
  return {
    planText,
    planPath,
    target,
    outDir: values.out ?? '',
    ...(tier ? { tier } : {}),
    ...(frameworks ? { frameworks } : {}),
    ...(simSpeed ? { simSpeed } : {}),
    ...(simSeed !== undefined ? { simSeed } : {}),
    ...(values['sim-opts'] ? { simExtraOptions: values['sim-opts'].trim() } : {}),
    ...(repeats !== undefined ? { repeats } : {}),
    ...(finalists !== undefined ? { finalists } : {}),
    ...(values['accept-new-host-key'] ? { acceptNewHostKey: true } : {}),
    ...(values['help-dir'] ? { helpDir: values['help-dir'] } : {}),
    ...(values.tokenizer ? { tokenizer: values.tokenizer } : {}),
    ...(gpus ? { gpus } : {}),
    ...(health ? { healthTimeoutS: health } : {}),
    renderHtml: reportPage,
  };
}

/** `autobench run`; usage errors and bugs become messages and exit statuses in main's catch. */
export async function runRun(argv: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(joinSimOpts(argv), RUN_OPTIONS, RUN_HELP, io.out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`run needs exactly one PLAN\n\n${RUN_HELP}`);
  const planPath = positionals[0] as string;
  let planText: string;
  try {
    planText = readFileSync(planPath, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${planPath}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, 1);
  }
  const base = optionsFrom(values, planPath, planText);
  const target = base.target;
  const errStyle = styleFor(io.err);
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
    if (e instanceof RunDirInUseError) throw new UsageError(e.message, 1);
    // The target could not be opened (host key refused, no connection, bin/sim missing): nothing ran.
    const hint = (e as Error).name === 'HostKeyError' && !values['accept-new-host-key'] ? ' (an unknown host key is accepted with --accept-new-host-key; a changed one never is)' : '';
    io.err.write(`${errStyle.red('error')}: cannot start the run on ${target}: ${(e as Error).message}${hint}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    progress.clear();
  }
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
  return 0;
}

function planFailed(io: CliIO, planPath: string, e: PlanError): number {
  const st = styleFor(io.err);
  io.err.write(`${st.red('error')}: ${planPath}: ${e.message}:\n`);
  for (const p of e.problems) io.err.write(`  ${p}\n`);
  return 1;
}
