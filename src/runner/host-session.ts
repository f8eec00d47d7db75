// The load client on the host as one process for many trials (client-node.js --serve): started on the first trial through an executor whose processes take a stdin (a Slurm job's `srun --overlap` step), fed one trial spec per line, each trial's events and result read back by its name, started again when it died, ended with its executor (the job).
//
// Why: a trial of the demo plan loads the server for well under a second at the simulator's speed; a fresh client per
// trial cost a job step and a Node start (~0.4 s, measured by bench/slurm-trial-overhead.ts). The measurement itself
// is unchanged: each trial's event-loop lag and CPU are its own run's (client/measure.ts), so the client-bound gate
// still judges every trial.
import { randomBytes } from 'node:crypto';
import { CLIENT_HEADERS_ENV, encodeWire, WIRE_VERSION, type BenchResult, type ServeCommand, type TrialSpec, type WireEvent } from '../client';
import type { ExitInfo, Executor, ServerProcess } from '../exec';
import type { HostNode } from './host-node';
import { endedText, EventReader, parseEvent, RESULT_GRACE_MS, settleTrial, watchStops, type HostTrialHooks, type HostTrialOutcome, type Why } from './host-trial-watch';

/** How long a starting client may take to say it is ready (a job step can wait on a busy slurmd). */
const READY_TIMEOUT_MS = 60_000;
/** How long a client whose input was closed may take to exit before it is killed. */
const CLOSE_GRACE_MS = 5_000;

/** Settles with `p`, or with `fallback` after `ms` (the timer never outlives the race). */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((r) => (timer = setTimeout(() => r(fallback), ms)))]).finally(() => clearTimeout(timer));
}

export class HostSession {
  /** Folder of the client's results on the host (under trials/, where the host probe clears leftovers a day old). */
  readonly dir: string;
  private proc: ServerProcess | undefined;
  private starting: Promise<ServerProcess | string> | undefined;
  private current: { id: string; events: EventReader } | undefined;
  private seq = 0;
  private closed = false;
  private inUse = false;
  /** Client processes started so far (1 while none died). */
  starts = 0;

  constructor(
    private readonly ex: Executor,
    private readonly node: HostNode,
    private readonly bundle: string,
    cacheDir: string,
  ) {
    this.dir = `${cacheDir}/trials/serve-${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  }

  /** A trial runs now (from the call on, before any await): a second one at the same time goes another way (host-client.ts: a client of its own). */
  get busy(): boolean {
    return this.inUse;
  }

  /** The pid of the running client (tests), if one runs. */
  get pid(): number | undefined {
    return this.proc?.running ? this.proc.pid : undefined;
  }

  /**
   * One trial through the client, started first when none runs. `fetch` reads a result event's result. A client that
   * died before it said a word of the trial (its first event comes before any request) never ran it: once, the trial
   * goes to a fresh client.
   */
  async runTrial(spec: TrialSpec, timeoutMs: number, hooks: HostTrialHooks, fetch: (ev: WireEvent & { event: 'result' }) => Promise<BenchResult>): Promise<HostTrialOutcome> {
    this.inUse = true;
    try {
      const first = await this.attempt(spec, timeoutMs, hooks, fetch);
      return first === 'unheard' ? ((await this.attempt(spec, timeoutMs, hooks, fetch, true)) as HostTrialOutcome) : first;
    } finally {
      this.inUse = false;
    }
  }

  private async attempt(spec: TrialSpec, timeoutMs: number, hooks: HostTrialHooks, fetch: (ev: WireEvent & { event: 'result' }) => Promise<BenchResult>, last = false): Promise<HostTrialOutcome | 'unheard'> {
    const proc = await this.up();
    if (typeof proc === 'string') return { kind: 'unavailable', reason: proc };
    if (hooks.signal?.aborted) return { kind: 'cancelled' };
    const id = `t${++this.seq}`;
    const events = new EventReader(hooks.onProgress);
    // The client is up and speaks the protocol: whatever goes wrong now is this trial's, not the host's.
    events.started = true;
    this.current = { id, events };
    try {
      let over = false;
      const stops = watchStops(() => !over && proc.running, (w) => this.stopTrial(proc, id, w, events), timeoutMs, hooks);
      this.send(proc, { run: id, spec });
      const exit = await Promise.race([events.ended.then(() => undefined), proc.exited]);
      over = true;
      let why = stops.end();
      if (!why && exit?.error) {
        // The transport broke before the executor told its listeners: kill what the host may still run.
        why = 'connection-lost';
        await proc.stop({ graceMs: 2000 }).catch(() => undefined);
      }
      await stops.stopping;
      if (!why && !events.heard && !last) return 'unheard';
      return await settleTrial({ why, lost: stops.lostMessage() || exit?.error?.message || '', events, fetch, died: () => endedText(exit ?? { code: null, signal: null }, proc.logTail(3)) });
    } finally {
      this.current = undefined;
    }
  }

  /** Ends the client: its input closed (it exits, removing its folder), killed if it lingers; no trial starts it again. */
  async close(): Promise<void> {
    this.closed = true;
    const proc = this.proc ?? (this.starting ? await this.starting : undefined);
    this.proc = undefined;
    if (proc && typeof proc !== 'string' && proc.running) {
      proc.endInput?.();
      if (!(await within(proc.exited.then(() => true), CLOSE_GRACE_MS, false))) await proc.stop({ graceMs: 2000 }).catch(() => undefined);
    }
    // Killed clients leave their folder; where removing it costs no job step (a Slurm job's shared file system).
    await this.ex.remove?.(this.dir).catch(() => undefined);
  }

  private send(proc: ServerProcess, c: ServeCommand): boolean {
    return proc.write?.(`${encodeWire(c)}\n`) ?? false;
  }

  /** Cancel and a lost connection kill the client (the next trial starts another); a timeout or the server's exit asks for the partial result first. */
  private async stopTrial(proc: ServerProcess, id: string, why: Why, events: EventReader): Promise<void> {
    if (why === 'timeout' || why === 'server-exit') {
      if (this.send(proc, { abort: id }) && (await within(Promise.race([events.ended.then(() => true), proc.exited.then(() => false)]), RESULT_GRACE_MS, false))) return;
    }
    await proc.stop({ graceMs: 2000 });
  }

  /** The running client, started when there is none (the first trial, or the last client died); or why none can run. */
  private up(): Promise<ServerProcess | string> {
    if (this.closed) return Promise.resolve('the client on the host was stopped with its job');
    if (this.proc?.running) return Promise.resolve(this.proc);
    this.proc = undefined;
    this.starting ??= this.launch().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async launch(): Promise<ServerProcess | string> {
    let ready: (v: string | undefined) => void = () => undefined;
    const isReady = new Promise<string | undefined>((r) => (ready = r));
    const onLine = (l: string): boolean => {
      const e = parseEvent(l);
      if (!e) return false;
      if (e.event === 'ready') ready(e.version === WIRE_VERSION ? undefined : `the client on the host reads wire version ${e.version}, not ${WIRE_VERSION}`);
      else if (e.trial === undefined) return false;
      else if (e.trial === this.current?.id) this.current.events.event(e);
      // A finished trial's late line is dropped.
      return true;
    };
    let proc: ServerProcess;
    try {
      proc = await this.ex.start({ argv: [this.node.path, this.bundle, '--serve', '--result-dir', this.dir], stdin: 'pipe', tailLines: 20, onLine, secretEnv: [CLIENT_HEADERS_ENV] });
    } catch (e) {
      return `the client could not be started on the host: ${(e as Error).message}`;
    }
    this.starts++;
    const exited = proc.exited.then((x: ExitInfo) => endedText(x, proc.logTail(3)));
    const problem = await within(Promise.race([isReady, exited]), READY_TIMEOUT_MS, `the client on the host did not say it was ready within ${READY_TIMEOUT_MS / 1000} s`);
    if (problem === undefined && proc.write) {
      this.proc = proc;
      return proc;
    }
    await proc.stop({ graceMs: 2000 }).catch(() => undefined);
    return problem ?? `${this.ex.target} gives the client no stdin`;
  }
}
