// The extension's end of the run worker: forks it, hands it the run, relays its events and host-key questions, cancels it, and turns its last message into runPlan's outcome.
// No vscode import: the unit tests drive this same code against the source worker.
import { fork, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { PlanError, RunDirInUseError, type HostKeyPrompt, type RunHooks, type RunResult } from '../runner';
import { withoutSecretVariables } from './secrets';
import { isMessage, WORKER_SERIALIZATION, type FromWorker, type ToWorker, type WorkerFailure, type WorkerRunOptions } from './run-worker-protocol';

/** How the worker process is started. */
export interface WorkerProcess {
  /** dist/run-worker.js, or src/extension/run-worker.ts with execArgv ['--import', 'tsx']. */
  file: string;
  /** Node options of the worker; default none (never the extension host's own, e.g. --inspect). */
  execArgv?: string[];
  /** The worker's environment; default this process's. Variables named like secrets, and the run's secret names, are dropped: secrets travel in the request. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How long a cancelled run may take to tear its servers down before the worker is killed (default 60 s). */
  cancelGraceMs?: number;
}

/** The run, split into what crosses the process boundary and the parent's side of the hooks that cannot. */
export interface WorkerRunRequest {
  options: WorkerRunOptions;
  /** Secret values by name, approved for the target; no other name gets a value (the worker has no environment fallback). */
  secrets?: Readonly<Record<string, string>>;
  /** Asked when the worker meets an unknown ssh host key. */
  hostKeyPrompt?: (prompt: HostKeyPrompt) => Promise<boolean>;
  /** Write summary.html (the worker renders it with the webview's report page). */
  renderHtml?: boolean;
}

export interface WorkerRunHooks extends RunHooks {
  /** The worker's pid, once it is forked. */
  onWorker?: (pid: number) => void;
  /** A line the worker printed (a warning, a crash's stack); the runner itself reports through events. */
  onOutput?: (line: string) => void;
}

const DEFAULT_CANCEL_GRACE_MS = 60_000;
/** After its last message the worker exits by itself; this is only a guard. */
const EXIT_GRACE_MS = 5_000;
const TAIL_LINES = 20;

function errorOf(f: WorkerFailure): Error {
  if (f.kind === 'plan') return new PlanError(f.message, f.problems);
  if (f.kind === 'run-dir-in-use') return new RunDirInUseError(f.dir);
  return new Error(f.message);
}

/** runPlan in a worker process: the same events, cancellation and outcome (RunResult, or PlanError / RunDirInUseError / Error thrown). */
export function runPlanInWorker(proc: WorkerProcess, req: WorkerRunRequest, hooks: WorkerRunHooks = {}): Promise<RunResult> {
  return new Promise<RunResult>((resolve, reject) => {
    new WorkerRun(proc, req, hooks, (o) => ('result' in o ? resolve(o.result) : reject(o.error)));
  });
}

type Outcome = { result: RunResult } | { error: Error };

/** One forked worker, from fork to its close: the outcome is settled once, after the process is gone. */
class WorkerRun {
  private readonly child: ChildProcess;
  private readonly tail: string[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private outcome: Outcome | undefined;
  private started = false;
  private killedAfterCancel = false;
  private finished = false;
  private readonly onAbort = (): void => {
    if (this.started) this.send({ type: 'cancel' });
    this.killAfter(this.cancelGraceMs, () => (this.killedAfterCancel = true));
  };

  constructor(
    private readonly proc: WorkerProcess,
    private readonly req: WorkerRunRequest,
    private readonly hooks: WorkerRunHooks,
    private readonly settle: (o: Outcome) => void,
  ) {
    // Never a secret in the worker's environment: the local and sim targets hand it to their servers as their base.
    const env = withoutSecretVariables(proc.env ?? process.env, [...(req.options.secretEnv ?? []), ...Object.keys(req.secrets ?? {})]);
    // Inside VS Code process.execPath is Electron, which fork() must ask to behave as plain Node.
    if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
    this.child = fork(proc.file, [], {
      execArgv: proc.execArgv ?? [],
      env,
      ...(proc.cwd ? { cwd: proc.cwd } : {}),
      serialization: WORKER_SERIALIZATION,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.lines(this.child.stdout);
    this.lines(this.child.stderr);
    if (hooks.signal?.aborted) this.onAbort();
    else hooks.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.child.on('message', (m: unknown) => {
      if (isMessage<FromWorker>(m)) this.onMessage(m);
    });
    this.child.once('spawn', () => {
      if (this.child.pid !== undefined) hooks.onWorker?.(this.child.pid);
    });
    this.child.once('error', (e) => {
      // fork itself failed (no such file, no node): 'close' may never come.
      if (this.child.pid === undefined) this.finish({ error: new Error(`the run worker could not start: ${e.message}`) });
    });
    this.child.once('close', (code, signal) => {
      const why = this.killedAfterCancel
        ? `it was killed ${Math.round(this.cancelGraceMs / 1000)} s after cancel; servers it started may still run (resume the run to reap them)`
        : `it exited (${signal ?? `code ${code}`}) before the run ended`;
      this.finish(this.outcome ?? { error: new Error(`the run worker failed: ${why}${this.tail.length ? `\n${this.tail.join('\n')}` : ''}`) });
    });
  }

  private get cancelGraceMs(): number {
    return this.proc.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  }

  private onMessage(m: FromWorker): void {
    switch (m.type) {
      case 'ready':
        return this.start();
      case 'event':
        try {
          this.hooks.onEvent?.(m.event);
        } catch {
          /* a listener's bug must not stop the run */
        }
        return;
      case 'host-key':
        return this.answerHostKey(m.id, m.prompt);
      case 'result':
        this.outcome = { result: m.result };
        return this.killAfter(EXIT_GRACE_MS);
      case 'failed':
        this.outcome = { error: errorOf(m.failure) };
        return this.killAfter(EXIT_GRACE_MS);
    }
  }

  private start(): void {
    const { req } = this;
    try {
      this.send({ type: 'start', options: req.options, secrets: { ...req.secrets }, hostKeyPrompt: !!req.hostKeyPrompt, renderHtml: req.renderHtml === true });
    } catch (e) {
      // A value that cannot be cloned (a function slipped into the options): nothing ran.
      this.outcome = { error: new Error(`the run could not be handed to its worker: ${(e as Error).message}`) };
      this.child.kill('SIGKILL');
      return;
    }
    this.started = true;
    if (this.hooks.signal?.aborted) this.send({ type: 'cancel' });
  }

  private answerHostKey(id: number, prompt: HostKeyPrompt): void {
    const ask = this.req.hostKeyPrompt ?? (() => Promise.resolve(false));
    ask(prompt)
      .catch(() => false)
      .then((trust) => this.send({ type: 'host-key-answer', id, trust }))
      .catch(() => undefined);
  }

  private send(m: ToWorker): void {
    if (this.child.connected) this.child.send(m);
  }

  /** What the worker printed, for the log and for the error should it die. */
  private lines(s: Readable | null): void {
    if (!s) return;
    createInterface({ input: s, crlfDelay: Infinity }).on('line', (line) => {
      this.tail.push(line);
      if (this.tail.length > TAIL_LINES) this.tail.shift();
      this.hooks.onOutput?.(line);
    });
  }

  private killAfter(ms: number, before?: () => void): void {
    this.timers.push(
      setTimeout(() => {
        before?.();
        this.child.kill('SIGKILL');
      }, ms),
    );
  }

  private finish(o: Outcome): void {
    if (this.finished) return;
    this.finished = true;
    for (const t of this.timers) clearTimeout(t);
    this.hooks.signal?.removeEventListener('abort', this.onAbort);
    this.settle(o);
  }
}
