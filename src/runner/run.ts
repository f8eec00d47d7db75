// The runner: per framework a preflight, then each candidate launched, warmed, measured at fixed rates and by a rate search, and torn down;
// rows appended as they finish; a resumed run skips what is done; a cancel tears down and keeps every row.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { version as clientVersion } from '../../package.json';
import type { BenchProgress } from '../client';
import type { Scenario } from '../core/config/playbook-rules';
import type { FrameworkKey } from '../core/frameworks/types';
import type { ResultRow, RowStatus } from '../core/results/rows';
import { buildWorkload } from '../core/workload/build';
import { loadTokenizer, type TokenizerLike } from '../core/workload/tokenizer';
import type { Workload } from '../core/workload/types';
import { candidateKey, RunDir, safeName, trialKey } from './artifacts';
import { Ledger, reapLeftovers } from './ledger';
import { loadPlan, type LoadedPlan } from './load';
import { newRunId, type FrameworkState, type LiveRecord, type Manifest } from './manifest';
import type { PlannedCandidate, PlannedFramework, RunPlan } from './plan';
import { captureHelp, captureVersion, checkGpus, smokeTest, validateAgainstHelp, type GpuCheck } from './preflight';
import { describeSearch, newSearch, nextRate, recordRound } from './rate-search';
import { candidateRow, measuredRow, simGpuLabel, type RowContext } from './rows';
import { failureOf, launchServer, stopServer, type LaunchResult, type LiveServer } from './server';
import { SimTokenizer } from './sim-tokenizer';
import { writeSummary } from './summary';
import { DEFAULT_SECRET_NAMES, openTarget, secretSourceOf, type RunTarget } from './target';
import { backendFor, benchmarkCommand, rawResult, runTrial, type TrialSettings } from './trial';
import { PlanError, type RunEvent, type RunHooks, type RunOptions, type RunResult, type RunStatus, type TrialRef } from './types';

export { loadPlan, type LoadedPlan } from './load';

/** The run directory already holds a run and `resume` was not asked for. */
export class RunDirInUseError extends Error {
  constructor(readonly dir: string) {
    super(`${dir} already holds a run; pass --resume to continue it, or choose another --out`);
    this.name = 'RunDirInUseError';
  }
}

const WARMUP_FIRST_TRIAL = 3;
const WARMUP_LATER = 1;

function requestedGpus(opts: RunOptions, plan: RunPlan): number[] {
  if (opts.gpus?.length) return [...opts.gpus];
  const env = (opts.baseEnv ?? process.env).CUDA_VISIBLE_DEVICES;
  if (env && /^\d+(,\d+)*$/.test(env.trim())) return env.trim().split(',').map(Number);
  return Array.from({ length: plan.hardware.gpuCount ?? 1 }, (_, i) => i);
}

/** Runs a plan into opts.outDir. Throws PlanError (the plan cannot run) and RunDirInUseError; everything after that ends in a RunResult. */
export async function runPlan(opts: RunOptions, hooks: RunHooks = {}): Promise<RunResult> {
  const loaded = loadPlan({ planText: opts.planText, planPath: opts.planPath, ...(opts.helpDir ? { helpDir: opts.helpDir } : {}), ...(opts.tier ? { tier: opts.tier } : {}), ...(opts.frameworks ? { frameworks: opts.frameworks } : {}), ...(opts.candidates ? { candidates: opts.candidates } : {}) });
  const secretNames = [...new Set([...DEFAULT_SECRET_NAMES, ...(opts.secretEnv ?? [])])];
  const secrets = secretSourceOf(opts);
  const secretValues = secretNames.map((n) => secrets(n)).filter((v): v is string => typeof v === 'string' && v.length > 0);
  const dir = new RunDir(resolve(opts.outDir), secretValues);
  if (dir.hasRun() && !opts.resume) throw new RunDirInUseError(dir.root);
  const run = new Run(opts, hooks, loaded, dir, secretNames);
  return run.execute();
}

class Run {
  private readonly emit: (e: RunEvent) => void;
  private readonly signal: AbortSignal | undefined;
  private readonly plan: RunPlan;
  private target!: RunTarget;
  private manifest!: Manifest;
  private ctx!: RowContext;
  private tokenizer!: TokenizerLike;
  private readonly workloads = new Map<string, Workload>();
  /** Finished trials and candidate rows (from earlier runs of this directory, then this one). */
  private readonly ledger: Ledger;
  private trialIndex = 0;
  private plannedTrials = 0;
  private cancelled = false;
  private readonly healthTimeoutMs: number;
  private readonly trialTimeoutMs: number;
  private readonly graceMs: number;

  constructor(
    private readonly opts: RunOptions,
    hooks: RunHooks,
    private readonly loaded: LoadedPlan,
    private readonly dir: RunDir,
    private readonly secretNames: string[],
  ) {
    this.emit = (e) => {
      try {
        hooks.onEvent?.(e);
      } catch {
        /* a listener's bug must not stop the run */
      }
    };
    this.signal = hooks.signal;
    this.plan = loaded.plan;
    this.ledger = new Ledger(this.plan, (s) => dir.scrub(s));
    const sim = opts.target === 'sim';
    this.healthTimeoutMs = (opts.healthTimeoutS ?? (sim ? 60 : 900)) * 1000;
    this.trialTimeoutMs = (opts.trialTimeoutS ?? (sim ? 300 : 3600)) * 1000;
    this.graceMs = opts.stopGraceMs ?? (sim ? 2000 : 10_000);
  }

  private log(level: 'info' | 'warn', message: string): void {
    this.emit({ type: 'log', level, message });
  }

  private get aborted(): boolean {
    if (this.signal?.aborted) this.cancelled = true;
    return this.cancelled;
  }

  private saveManifest(): void {
    this.manifest.updated_at = new Date().toISOString();
    this.dir.writeJson('manifest.json', this.manifest);
  }

  private addRow(row: ResultRow): void {
    this.dir.appendRow(row);
    this.ledger.add(row);
    this.emit({ type: 'row', row });
  }

  private finished(key: string, cand: PlannedCandidate | undefined): ResultRow | undefined {
    return this.ledger.finished(key, cand);
  }

  private pickTokenizer(): { tok: TokenizerLike; note: string } {
    const path = this.opts.tokenizer ?? (this.plan.tokenizer && existsSync(this.plan.tokenizer) ? this.plan.tokenizer : undefined);
    if (path) return { tok: loadTokenizer(path), note: path };
    if (this.target.simulated) return { tok: new SimTokenizer(), note: 'the simulated engine tokenizer (prompts counted exactly as the sim counts them)' };
    throw new PlanError('the plan cannot run', [`a tokenizer is needed to build prompts of exact length: give --tokenizer PATH (a local tokenizer.json or model folder); ${this.plan.tokenizer ? `'${this.plan.tokenizer}' is not a local path` : 'the plan names none'}`]);
  }

  private workloadFor(sc: Scenario): Workload {
    let w = this.workloads.get(sc.name);
    if (!w) {
      // Built once per scenario with a fixed seed: every framework and candidate gets the same prompts.
      w = buildWorkload(
        { datasetName: this.plan.bench.datasetKind, numPrompts: this.plan.bench.numPrompts, randomInputLen: sc.inputLen, randomOutputLen: sc.outputLen, randomRangeRatio: 1, seed: this.plan.bench.seed },
        this.tokenizer,
      );
      for (const r of w.rows) r.scenario = sc.name;
      this.workloads.set(sc.name, w);
    }
    return w;
  }

  private initManifest(prior: Manifest | undefined): void {
    const p = this.plan;
    const sim = this.target.sim;
    const fws: Manifest['frameworks'] = {};
    for (const f of p.frameworks) {
      fws[f.framework] = {
        status: f.status,
        ...(f.reason ? { reason: f.reason } : {}),
        server_command: f.serverCommand,
        candidates: f.candidates.map((c) => ({ id: c.id, name: c.name, command: c.command, ...(c.skip ? { skip: c.skip } : {}) })),
        searches: {},
      };
    }
    this.manifest = {
      run_id: prior?.run_id ?? newRunId(this.opts.planPath),
      created_at: prior?.created_at ?? new Date().toISOString(),
      updated_at: '',
      status: 'running',
      simulated: this.target.simulated,
      ...(this.target.simulated ? { note: 'SIMULATED: every server was the built-in simulated engine; no number here is a GPU measurement.' } : {}),
      plan: { path: resolve(this.opts.planPath), sha256: createHash('sha256').update(this.opts.planText).digest('hex'), copy: 'plan.yaml', snapshots: this.loaded.snapshotNote },
      target: { spec: this.opts.target, describe: this.target.executor.describe(), host: this.target.host },
      ...(sim ? { sim: { speed: sim.speed, seed: sim.seed, gpu: sim.gpu ?? 'auto', extra: sim.extra, bin: sim.binDir, time: 'rows report modelled time: wall-clock latencies x speed, throughputs and rates / speed' } } : {}),
      client: { name: 'autobench', version: clientVersion },
      tokenizer: '',
      workload: { kind: p.bench.datasetKind, num_prompts: p.bench.numPrompts, seed: p.bench.seed, endpoint: p.bench.endpoint, range_ratio: 1, extra_request_body: p.bench.extraBody, scenarios: p.scenarios },
      sla: { ...p.sla },
      tier: p.tier,
      trial_plan: { fixed: p.bench.fixed, search: p.bench.search ?? null, warmup_requests: { first_trial: WARMUP_FIRST_TRIAL, later: WARMUP_LATER }, cache: 'flushed before each measurement; servers restarted between candidates' },
      frameworks: fws,
      resumes: [...(prior?.resumes ?? [])],
      live_servers: [],
    };
    this.ctx = { runId: this.manifest.run_id, plan: p, simulated: this.target.simulated, sim: sim ? { speed: sim.speed, seed: sim.seed, gpu: sim.gpu } : undefined, host: this.target.host, clientVersion, versions: {}, visibleDevices: null };
  }

  async execute(): Promise<RunResult> {
    const prior = this.opts.resume && existsSync(this.dir.manifestFile) ? (JSON.parse(readFileSync(this.dir.manifestFile, 'utf8')) as Manifest) : undefined;
    if (this.opts.resume) for (const r of this.dir.readRows()) this.ledger.add(r);
    this.target = await openTarget(this.opts, secretSourceOf(this.opts), this.plan.hardware.gpuModel);
    let status: RunStatus = 'completed';
    let reason: string | undefined;
    try {
      this.initManifest(prior);
      if (prior) {
        for (const line of await reapLeftovers(prior.live_servers ?? [], this.opts.target, this.graceMs)) this.log('warn', line);
        this.manifest.resumes.push({ at: new Date().toISOString(), finished_trials: this.ledger.size });
        if (prior.plan.sha256 !== this.manifest.plan.sha256) this.log('warn', 'the plan changed since this run started; trials whose command changed are measured again');
      }
      const pick = this.pickTokenizer();
      this.tokenizer = pick.tok;
      this.manifest.tokenizer = pick.note;
      this.dir.writeText('plan.yaml', this.opts.planText);
      this.saveManifest();
      this.plannedTrials = this.countPlannedTrials();
      this.emit({
        type: 'run-start',
        runId: this.manifest.run_id,
        outDir: this.dir.root,
        target: this.opts.target,
        simulated: this.target.simulated,
        resumed: Boolean(prior),
        frameworks: this.plan.frameworks.map((f) => ({ framework: f.framework, status: f.status, candidates: f.candidates.length, ...(f.reason ? { reason: f.reason } : {}) })),
        plannedTrials: this.plannedTrials,
        finishedTrials: this.ledger.size,
      });
      for (const w of this.plan.warnings) this.log('warn', `plan: ${w}`);

      const gpu = await this.gpuPreflight();
      if (gpu && gpu.status !== 'free' && gpu.status !== 'unavailable') {
        status = 'gpu-busy';
        reason = gpu.detail;
      } else {
        for (const f of this.plan.frameworks) {
          if (this.aborted) break;
          await this.runFramework(f);
        }
      }
    } catch (e) {
      if (e instanceof PlanError) throw e;
      status = 'failed';
      reason = (e as Error).message;
      this.log('warn', `run failed: ${reason}`);
    } finally {
      await this.target.close().catch(() => undefined);
    }
    if (this.aborted && status === 'completed') status = 'cancelled';
    this.manifest.status = status;
    if (reason) this.manifest.reason = reason;
    this.saveManifest();
    let summary: RunResult['summary'] = null;
    let report: RunResult['report'] = null;
    try {
      const w = writeSummary({ dir: this.dir, planText: this.opts.planText, runId: this.manifest.run_id, versions: this.versionsForReport(), ...(this.target.sim ? { gpuModel: simGpuLabel(this.target.sim.gpu) } : {}) });
      summary = w.files;
      report = w.model;
    } catch (e) {
      this.log('warn', `the summary could not be written: ${(e as Error).message}`);
    }
    const all = this.dir.readRows();
    const counts: Partial<Record<RowStatus | 'sla_failing', number>> = {};
    for (const r of all) {
      const k = r.status === 'ok' && r.sla?.passed === false ? 'sla_failing' : r.status;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    this.emit({ type: 'run-end', status, summary, counts });
    return { runId: this.manifest.run_id, outDir: this.dir.root, status, ...(reason ? { reason } : {}), rows: all, summary, report, simulated: this.target.simulated };
  }

  private track(rec: LiveRecord | undefined, pgid: number, add: boolean): void {
    if (add && rec) this.manifest.live_servers.push(rec);
    else this.manifest.live_servers = this.manifest.live_servers.filter((l) => l.pgid !== pgid);
    this.saveManifest();
  }

  private versionsForReport(): Record<string, { packageVersion?: string; serverHelp?: string }> {
    const out: Record<string, { packageVersion?: string; serverHelp?: string }> = {};
    for (const [fw, st] of Object.entries(this.manifest.frameworks)) {
      const v = st?.version?.version;
      const h = st?.help?.file;
      if (v || h) out[fw] = { ...(v ? { packageVersion: v } : {}), ...(h ? { serverHelp: h } : {}) };
    }
    return out;
  }

  private countPlannedTrials(): number {
    const b = this.plan.bench;
    const perScenario = b.fixed.length + (b.search ? b.search.maxRounds * b.search.concurrencies.length : 0);
    let n = 0;
    for (const f of this.plan.frameworks) if (f.status === 'run') n += f.candidates.filter((c) => !c.skip).length * this.plan.scenarios.length * perScenario;
    return n;
  }

  private async gpuPreflight(): Promise<GpuCheck | undefined> {
    if (this.target.simulated) {
      this.manifest.gpu = { status: 'skipped', detail: 'simulated target: no GPU is used' };
      return undefined;
    }
    const requested = requestedGpus(this.opts, this.plan);
    this.ctx.visibleDevices = requested.join(',');
    this.emit({ type: 'preflight', framework: null, step: 'gpu', status: 'start', detail: `GPU ${requested.join(', ')}` });
    const g = await checkGpus(this.target.executor, requested);
    this.manifest.gpu = g;
    this.saveManifest();
    this.emit({ type: 'preflight', framework: null, step: 'gpu', status: g.status === 'free' ? 'ok' : g.status === 'unavailable' ? 'warn' : 'failed', detail: g.detail });
    return g;
  }

  /** Rows for every scenario of a framework or candidate that will not run (skipped, user-excluded). */
  private recordNotRun(f: PlannedFramework, cand: PlannedCandidate | undefined, status: RowStatus, reason: string, phase: 'skip' | 'launch' | 'crash', serverLog?: string, scenarios = this.plan.scenarios): void {
    for (const sc of scenarios) {
      const key = candidateKey(f.framework, cand?.id ?? '-', sc.name);
      if (this.finished(key, cand)) continue;
      this.addRow(candidateRow(this.ctx, f.framework, cand, sc, key, status, reason, phase, serverLog));
    }
  }

  private fwState(fw: FrameworkKey): FrameworkState {
    return this.manifest.frameworks[fw] as FrameworkState;
  }

  private async runFramework(f: PlannedFramework): Promise<void> {
    const fw = f.framework;
    const st = this.fwState(fw);
    if (f.status === 'user_excluded') {
      this.recordNotRun(f, undefined, 'user_excluded', f.reason ?? 'left out by the caller', 'skip');
      st.outcome = 'user_excluded';
      this.emit({ type: 'framework-end', framework: fw, outcome: 'user_excluded', ...(f.reason ? { reason: f.reason } : {}) });
      return;
    }
    if (f.status === 'skipped') {
      this.recordNotRun(f, f.candidates[0], 'skipped', f.reason ?? 'skipped', 'skip');
      st.outcome = 'skipped';
      this.emit({ type: 'framework-end', framework: fw, outcome: 'skipped', ...(f.reason ? { reason: f.reason } : {}) });
      return;
    }
    this.emit({ type: 'framework-start', framework: fw, candidates: f.candidates.length });

    // --- preflight: help, version, flag check against the exact CLI ---
    this.emit({ type: 'preflight', framework: fw, step: 'help', status: 'start' });
    const help = await captureHelp(this.target.executor, this.dir, fw, f.serverCommand);
    st.help = { command: help.command.join(' '), ...(help.file ? { file: help.file } : {}), ok: help.ok, detail: help.detail };
    this.emit({ type: 'preflight', framework: fw, step: 'help', status: help.ok ? 'ok' : 'warn', detail: help.detail });
    const ver = await captureVersion(this.target.executor, fw, f.serverCommand);
    st.version = { ...(ver.command ? { command: ver.command.join(' ') } : {}), ...(ver.version ? { version: ver.version } : {}) };
    if (ver.version) this.ctx.versions[fw] = ver.version;
    this.emit({ type: 'preflight', framework: fw, step: 'version', status: ver.version ? 'ok' : 'warn', detail: ver.version ?? 'version not found' });
    if (help.file) {
      const v = validateAgainstHelp(this.opts.planText, this.loaded.snapshots, fw, this.dir.path(help.file), f);
      st.help.checked_against = v.label;
      this.emit({ type: 'preflight', framework: fw, step: 'validate', status: v.skipped ? 'warn' : 'ok', detail: v.skipped ? `${v.skipped} candidate(s) use flags the CLI does not accept` : `every candidate's flags are in ${v.label}` });
    } else {
      this.emit({ type: 'preflight', framework: fw, step: 'validate', status: 'warn', detail: `no --help captured; flags checked against ${f.knownFrom} only` });
    }
    st.candidates = f.candidates.map((c) => ({ id: c.id, name: c.name, command: c.command, ...(c.skip ? { skip: c.skip } : {}) }));
    this.saveManifest();

    const pending = f.candidates.filter((c) => !c.skip && !this.ledger.candidateDone(fw, c));
    // --- preflight smoke on the first candidate that will run ---
    let smokeFail: { cand: PlannedCandidate; status: RowStatus; reason: string; log: string } | undefined;
    const smokeCand = pending[0];
    if (smokeCand && !this.opts.skipSmoke && !this.aborted) smokeFail = await this.smoke(f, smokeCand);

    let tried = 0;
    let launchFailures = 0;
    let stopped: string | undefined;
    for (const cand of f.candidates) {
      if (this.aborted) break;
      const state = st.candidates.find((c) => c.id === cand.id);
      if (cand.skip) {
        this.recordNotRun(f, cand, 'skipped', cand.skip, 'skip');
        if (state) state.outcome = 'skipped';
        continue;
      }
      if (stopped) {
        this.recordNotRun(f, cand, 'skipped', stopped, 'skip');
        if (state) state.outcome = 'skipped (early stop)';
        continue;
      }
      const prev = this.ledger.outcome(fw, cand);
      if (prev !== undefined) {
        // Resumed: this candidate was settled by an earlier run of this directory.
        if (prev !== 'skip') tried++;
        if (prev !== 'ok' && prev !== 'skip') launchFailures++;
      } else {
        this.emit({ type: 'candidate-start', framework: fw, candidateId: cand.id, index: cand.index, of: f.candidates.length, command: cand.command });
        const outcome = smokeFail && smokeFail.cand === cand ? smokeFail : await this.runCandidate(f, cand);
        if (outcome === 'cancelled') break;
        tried++;
        if (outcome !== 'ok') {
          launchFailures++;
          this.recordNotRun(f, cand, outcome.status, outcome.reason, 'launch', outcome.log);
        }
        if (state) state.outcome = outcome === 'ok' ? 'measured' : outcome.status;
        this.emit({ type: 'candidate-end', framework: fw, candidateId: cand.id, status: outcome === 'ok' ? 'done' : outcome.status, ...(outcome === 'ok' ? {} : { reason: outcome.reason }) });
      }
      // Every candidate so far failed to come up (health or OOM): the rest would too.
      if (tried >= 2 && launchFailures === tried) {
        stopped = `not run: the framework was stopped early because all ${tried} candidates tried before it failed to start (health check or out of memory)`;
        this.log('warn', `${fw}: ${stopped}`);
      }
      this.saveManifest();
    }
    st.outcome = this.aborted ? 'cancelled' : stopped ? 'stopped-early' : 'done';
    this.saveManifest();
    this.emit({ type: 'framework-end', framework: fw, outcome: this.aborted ? 'cancelled' : stopped ? 'stopped-early' : 'done', ...(stopped ? { reason: stopped } : {}) });
  }

  private logFile(f: PlannedFramework, label: string): string {
    return this.dir.path('servers', safeName(`${f.framework}-${label}`), 'server.log');
  }

  private async launch(f: PlannedFramework, cand: PlannedCandidate, logFile: string): Promise<LaunchResult> {
    const ref = { framework: f.framework, candidateId: cand.id };
    const r = await launchServer(this.target, {
      framework: f.framework,
      argv: cand.argv,
      flags: cand.flags,
      logFile,
      secretEnv: this.secretNames,
      healthTimeoutMs: this.healthTimeoutMs,
      stopGraceMs: this.graceMs,
      signal: this.signal,
      onState: (state, info) => {
        // Recorded as soon as the group exists, so a killed runner leaves its servers findable.
        if (state === 'waiting' && info.pid) this.track({ pgid: info.pid, target: this.opts.target, framework: f.framework, candidate: cand.id, program: basename(cand.argv[0] ?? '') }, info.pid, true);
        this.emit({ type: 'server', ...ref, state, ...info });
      },
    });
    if (!r.ok && r.status !== 'cancelled' && r.pid) this.track(undefined, r.pid, false);
    if (!r.ok && r.status === 'cancelled') this.manifest.live_servers = [];
    return r;
  }

  private async smoke(f: PlannedFramework, cand: PlannedCandidate): Promise<{ cand: PlannedCandidate; status: RowStatus; reason: string; log: string } | undefined> {
    const fw = f.framework;
    const st = this.fwState(fw);
    const logFile = this.logFile(f, 'preflight-smoke');
    this.emit({ type: 'preflight', framework: fw, step: 'smoke', status: 'start', detail: `${cand.id}: ${cand.command}` });
    const launched = await this.launch(f, cand, logFile);
    if (!launched.ok) {
      if (launched.status === 'cancelled') return undefined;
      st.smoke = { candidate: cand.id, command: cand.command, ok: false, status: launched.status, reason: launched.reason, server_log: this.dir.rel(logFile) };
      this.emit({ type: 'preflight', framework: fw, step: 'smoke', status: 'failed', detail: launched.reason });
      return { cand, status: launched.status, reason: `preflight smoke: ${launched.reason}`, log: this.dir.rel(logFile) };
    }
    const server = launched.server;
    try {
      const sc = this.plan.scenarios[0] as Scenario;
      const res = await smokeTest(server, backendFor(fw, this.plan.bench.endpoint), this.workloadFor(sc), Math.max(5, this.opts.smokeRequests ?? 5), this.signal);
      st.smoke = { candidate: cand.id, command: cand.command, ok: res.ok, models: res.models ?? null, stream: res.stream, bench: res.bench, server_log: this.dir.rel(logFile) };
      this.emit({ type: 'preflight', framework: fw, step: 'smoke', status: res.ok ? 'ok' : 'warn', detail: `models: ${res.models ?? '?'}; streaming request: ${res.stream.detail}; smoke: ${res.bench.detail}` });
    } finally {
      this.emit({ type: 'server', framework: fw, candidateId: cand.id, state: 'stopping', pid: server.proc.pid });
      await stopServer(server, this.graceMs);
      this.track(undefined, server.proc.pid, false);
      this.emit({ type: 'server', framework: fw, candidateId: cand.id, state: 'stopped', pid: server.proc.pid });
    }
    return undefined;
  }

  /** Launch, warm, measure every unfinished trial, tear down. 'ok' once the server came up (trial failures are rows of their own). */
  private async runCandidate(f: PlannedFramework, cand: PlannedCandidate): Promise<'ok' | 'cancelled' | { status: RowStatus; reason: string; log: string }> {
    const fw = f.framework;
    const logFile = this.logFile(f, cand.id);
    const launched = await this.launch(f, cand, logFile);
    if (!launched.ok) {
      if (launched.status === 'cancelled') return 'cancelled';
      this.emit({ type: 'server', framework: fw, candidateId: cand.id, state: 'failed', ...(launched.pid ? { pid: launched.pid } : {}), detail: launched.reason });
      return { status: launched.status, reason: launched.reason, log: this.dir.rel(logFile) };
    }
    const server = launched.server;
    let first = true;
    let dead: { status: RowStatus; reason: string } | undefined;
    try {
      for (const sc of this.plan.scenarios) {
        if (this.aborted) return 'cancelled';
        if (!dead && server.exit) dead = failureOf(fw, server.proc, 'the server died during an earlier trial');
        if (dead) {
          this.recordNotRun(f, cand, dead.status, `not measured: ${dead.reason}`, 'crash', this.dir.rel(logFile), [sc]);
          continue;
        }
        const r = await this.runScenario(f, cand, sc, server, logFile, first);
        first = false;
        if (r === 'cancelled') return 'cancelled';
        if (r !== 'ok') dead = { status: r.status, reason: r.reason };
      }
      return 'ok';
    } finally {
      this.emit({ type: 'server', framework: fw, candidateId: cand.id, state: 'stopping', pid: server.proc.pid });
      await stopServer(server, this.graceMs);
      this.track(undefined, server.proc.pid, false);
      this.emit({ type: 'server', framework: fw, candidateId: cand.id, state: 'stopped', pid: server.proc.pid });
    }
  }

  /** 'ok', 'cancelled', or the failure that ended the server (its trial row is written). */
  private async runScenario(f: PlannedFramework, cand: PlannedCandidate, sc: Scenario, server: LiveServer, logFile: string, firstOfCandidate: boolean): Promise<'ok' | 'cancelled' | { status: RowStatus; reason: string }> {
    const fw = f.framework;
    const b = this.plan.bench;
    let warm = firstOfCandidate;
    const measure = async (ref: TrialRef): Promise<ResultRow | 'cancelled' | { status: RowStatus; reason: string }> => {
      const r = await this.measure(f, cand, sc, server, logFile, ref, warm ? WARMUP_FIRST_TRIAL : WARMUP_LATER);
      warm = false;
      if (r === 'cancelled') return r;
      if (r.dead) return { status: r.row.status, reason: r.row.failure_reason ?? 'the server is gone' };
      return r.row;
    };
    const ended = (r: ResultRow | 'cancelled' | { status: RowStatus; reason: string }): r is 'cancelled' | { status: RowStatus; reason: string } => r === 'cancelled' || !('framework' in r);
    for (const p of b.fixed) {
      const ref: TrialRef = { framework: fw, candidateId: cand.id, scenario: sc.name, mode: 'fixed', rate: p.rate, concurrency: p.concurrency, round: 0, key: '' };
      ref.key = trialKey(ref);
      const prev = this.finished(ref.key, cand);
      if (prev) {
        this.emitResumed(ref, prev);
        continue;
      }
      const r = await measure(ref);
      if (ended(r)) return r;
    }
    if (!b.search) return 'ok';
    for (const c of b.search.concurrencies) {
      const state = newSearch();
      for (let rate = nextRate(b.search, state); rate !== undefined; rate = nextRate(b.search, state)) {
        const ref: TrialRef = { framework: fw, candidateId: cand.id, scenario: sc.name, mode: 'search', rate, concurrency: c, round: state.rounds.length + 1, key: '' };
        ref.key = trialKey(ref);
        let row = this.finished(ref.key, cand);
        if (row) this.emitResumed(ref, row);
        else {
          const r = await measure(ref);
          if (ended(r)) {
            if (r !== 'cancelled') this.fwState(fw).searches[`${cand.id} ${sc.name} c=${c ?? 'none'}`] = `${describeSearch(state)}; ended in round ${ref.round}: ${r.reason}`;
            return r;
          }
          row = r;
        }
        recordRound(state, rate, row.status === 'ok' && row.sla?.passed === true);
      }
      const text = describeSearch(state);
      this.fwState(fw).searches[`${cand.id} ${sc.name} c=${c ?? 'none'}`] = text;
      this.log('info', `${fw} ${cand.id} ${sc.name} (concurrency ${c ?? 'unlimited'}): rate search ${text}`);
    }
    return 'ok';
  }

  private emitResumed(ref: TrialRef, row: ResultRow): void {
    const m = row.metrics ?? {};
    this.emit({ type: 'trial-end', ...ref, status: row.status, slaPassed: row.sla?.passed === true, reasons: row.sla?.reasons ?? [], requestThroughput: m.request_throughput ?? null, p50TtftMs: m.p50_ttft_ms ?? null, p50TpotMs: m.p50_tpot_ms ?? null, resumed: true });
  }

  /** One trial: the row it produced (dead: the server or the connection is gone), or 'cancelled' (no row). */
  private async measure(f: PlannedFramework, cand: PlannedCandidate, sc: Scenario, server: LiveServer, logFile: string, ref: TrialRef, warmup: number): Promise<{ row: ResultRow; dead: boolean } | 'cancelled'> {
    const fw = f.framework;
    const speed = this.target.sim?.speed ?? 1;
    const wallRate = ref.rate === 'inf' ? Infinity : ref.rate * speed;
    const settings: TrialSettings = { backend: backendFor(fw, this.plan.bench.endpoint), wallRate, concurrency: ref.concurrency, warmupRequests: warmup, seed: this.plan.bench.seed, extraBody: this.plan.bench.extraBody, timeoutMs: this.trialTimeoutMs };
    const workload = this.workloadFor(sc);
    this.trialIndex++;
    this.emit({ type: 'trial-start', ...ref, index: this.trialIndex, of: Math.max(this.plannedTrials, this.trialIndex), numPrompts: workload.rows.length });
    const t = (x: number | null) => (x === null ? null : x * speed);
    const outcome = await runTrial(server, workload, settings, {
      signal: this.signal,
      onConnectionLost: (fn) => this.target.executor.onConnectionLost((e) => fn(e.message)),
      onProgress: (p: BenchProgress) =>
        this.emit({ type: 'trial-progress', ...ref, total: p.total, completed: p.completed, failed: p.failed, inFlight: p.inFlight, elapsedS: p.elapsedS, requestsPerS: p.requestsPerS / speed, outputTokensPerS: p.outputTokensPerS / speed, ttftMsP50: t(p.ttftMsP50), tpotMsP50: t(p.tpotMsP50) }),
    });
    if (outcome.kind === 'cancelled') return 'cancelled';
    const result = 'result' in outcome ? outcome.result : undefined;
    let status: RowStatus = 'ok';
    let reason: string | null = null;
    let dead = false;
    switch (outcome.kind) {
      case 'done':
        if (outcome.result.metrics.completed === 0) {
          status = 'failed';
          reason = `no request succeeded; first error: ${outcome.result.records.find((r) => !r.success)?.error ?? 'unknown'}`;
        }
        break;
      case 'error':
        status = 'failed';
        reason = `the benchmark could not run: ${outcome.message}`;
        break;
      case 'server-exit': {
        await server.proc.exited;
        const why = failureOf(fw, server.proc, 'the server died during the trial');
        status = why.status;
        reason = why.reason;
        dead = true;
        break;
      }
      case 'connection-lost':
        status = 'failed';
        reason = `${outcome.message}; the trial was abandoned`;
        dead = true;
        break;
      case 'timeout':
        status = 'timeout';
        reason = `the trial did not finish within ${Math.round(this.trialTimeoutMs / 1000)} s`;
        break;
    }
    const rawRel = `trials/${safeName(fw)}/${safeName(cand.id)}/${safeName(sc.name)}/${safeName(ref.mode === 'search' ? `search-c${ref.concurrency ?? 'none'}-round${ref.round}-rate${ref.rate}` : `fixed-c${ref.concurrency ?? 'none'}-rate${ref.rate}`)}.json`;
    const cmd = benchmarkCommand(settings, server.baseUrl, this.plan.bench.datasetKind, sc.inputLen, sc.outputLen, workload.rows.length);
    if (result) {
      this.dir.writeJson(rawRel, {
        note: this.target.simulated ? `SIMULATED engine at speed x${speed}: the times below are wall-clock; the row reports them in modelled time` : undefined,
        trial: ref,
        status,
        reason,
        benchmark_command: cmd,
        result: rawResult(result),
      });
    }
    const { row, verdict } = measuredRow(this.ctx, {
      fw,
      cand,
      scenario: sc,
      trial: { key: ref.key, mode: ref.mode, rate: ref.rate, concurrency: ref.concurrency, round: ref.round },
      status,
      reason,
      metrics: result?.metrics,
      benchmarkCommand: cmd,
      artifacts: { ...(result ? { raw_result: rawRel } : {}), server_log: this.dir.rel(logFile), ...(this.fwState(fw).help?.file ? { server_help: this.fwState(fw).help?.file } : {}) },
      backend: settings.backend,
      simulatedServer: server.simulated,
      ...(server.transport ? { transport: server.transport } : {}),
    });
    if (server.simulated && !this.target.simulated && !this.manifest.note) {
      this.manifest.note = `SIMULATED: ${fw} ${cand.id} answered as the built-in simulated engine on ${this.opts.target}; its rows are marked simulated.`;
      this.log('warn', this.manifest.note);
    }
    this.addRow(row);
    const m = row.metrics ?? {};
    this.emit({ type: 'trial-end', ...ref, status, slaPassed: verdict.passed, reasons: verdict.reasons, requestThroughput: m.request_throughput ?? null, p50TtftMs: m.p50_ttft_ms ?? null, p50TpotMs: m.p50_tpot_ms ?? null, resumed: false });
    return { row, dead };
  }
}
