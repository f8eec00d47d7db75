// A trial of the load client on the target's host, whichever way it runs there (a process per trial: host-client.ts; one process for a job's trials: host-session.ts): its event lines read, the stops (cancel, the server's exit, a lost connection, the time limit), its result fetched, and the outcome as runTrial (client-trial.ts) gives it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { decodeWire, EVENT_PREFIX, resultFromWire, type BenchProgress, type BenchResult, type WireEvent } from '../client';
import type { Executor, ServerProcess } from '../exec';
import type { TrialOutcome } from './client-trial';

export interface HostTrialHooks {
  signal: AbortSignal | undefined;
  /** The server this trial measures; its exit ends the trial early (outcome server-exit). */
  server?: ServerProcess;
  onConnectionLost: (fn: (message: string) => void) => () => void;
  onProgress: (p: BenchProgress) => void;
}

/** A trial's outcome, or 'unavailable' when the client could not run on the host at all (the caller falls back). */
export type HostTrialOutcome = TrialOutcome | { kind: 'unavailable'; reason: string };

/** Time a stopped client gets to hand back its partial result before it is killed. */
export const RESULT_GRACE_MS = 10_000;
/** Beyond the trial's limit, when the client stops the trial itself (the runner gone, the connection lost). */
export const SELF_DEADLINE_SLACK_MS = 60_000;

export type Why = 'cancel' | 'server-exit' | 'connection-lost' | 'timeout';

/** One client output line as an event, or undefined when it is none (anything else the process prints). */
export function parseEvent(line: string): WireEvent | undefined {
  if (!line.startsWith(EVENT_PREFIX)) return undefined;
  try {
    const e = decodeWire(line) as WireEvent;
    return e && typeof e === 'object' && typeof e.event === 'string' ? e : undefined;
  } catch {
    return undefined;
  }
}

/** One trial's events: progress to the caller, the result and error kept; `ended` settles on either. */
export class EventReader {
  result: (WireEvent & { event: 'result' }) | undefined;
  error: string | undefined;
  /** The client reported something (or, in a session, was up): a later failure is the trial's, not the host's. */
  started = false;
  /** The client said something about this trial. */
  heard = false;
  readonly ended: Promise<void>;
  private end: () => void = () => undefined;

  constructor(private readonly onProgress: (p: BenchProgress) => void) {
    this.ended = new Promise((r) => (this.end = r));
  }

  /** A stdout line; true when it was an event (kept out of the log tail). */
  line(l: string): boolean {
    const e = parseEvent(l);
    if (!e) return false;
    this.event(e);
    return true;
  }

  event(e: WireEvent): void {
    this.started = true;
    this.heard = true;
    if (e.event === 'progress') {
      const { event: _e, trial: _t, ...rest } = e;
      this.onProgress({ type: 'progress', ...rest });
    } else if (e.event === 'result') {
      this.result = e;
      this.end();
    } else if (e.event === 'error') {
      this.error = e.message;
      this.end();
    }
  }
}

export interface StopWatch {
  /** Stops listening; says which stop came first, if any. */
  end: () => Why | undefined;
  /** Settles when the stop that fired has done its work. */
  readonly stopping: Promise<unknown>;
  lostMessage: () => string;
}

/**
 * Calls `stop` once, on a cancel, the server's exit, a lost connection or the trial's time limit, while `running()`
 * (a lost connection even after: the host may still run the client though its channel is gone).
 */
export function watchStops(running: () => boolean, stop: (why: Why) => Promise<unknown>, timeoutMs: number, hooks: HostTrialHooks): StopWatch {
  let why: Why | undefined;
  let lost = '';
  let stopping: Promise<unknown> = Promise.resolve();
  const fire = (w: Why, evenAfterExit = false): void => {
    if (why || (!running() && !evenAfterExit)) return;
    why = w;
    stopping = stop(w).catch(() => undefined);
  };
  const onAbort = (): void => fire('cancel');
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  hooks.server?.onExit(() => fire('server-exit'));
  const unlisten = hooks.onConnectionLost((m) => {
    lost = m;
    fire('connection-lost', true);
  });
  const timer = setTimeout(() => fire('timeout'), timeoutMs);
  return {
    end: () => {
      clearTimeout(timer);
      unlisten();
      hooks.signal?.removeEventListener('abort', onAbort);
      if (!why && hooks.server && !hooks.server.running) why = 'server-exit';
      return why;
    },
    get stopping() {
      return stopping;
    },
    lostMessage: () => lost,
  };
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The result a 'result' event hands back: inline, or its file fetched from the host into `localDir` (sha256 checked). */
export async function fetchResult(ex: Executor, ev: WireEvent & { event: 'result' }, localDir: string): Promise<BenchResult> {
  if (ev.result !== undefined) return resultFromWire(ev.result);
  if (!ev.file) throw new Error('the client on the host named no result');
  const path = join(localDir, 'result.json.gz');
  await ex.copyBack(ev.file, path);
  const body = readFileSync(path);
  if (ev.sha256 && sha256(body) !== ev.sha256) throw new Error('the result fetched from the host does not match its sha256');
  return resultFromWire(decodeWire(gunzipSync(body).toString('utf8')));
}

/** How a client process ended, with its last lines: `the client on the host exited with code 1: ...`. */
export function endedText(exit: { code: number | null; signal: string | null }, tail: readonly string[]): string {
  return `the client on the host ${exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`}${tail.length ? `: ${tail.join(' | ')}` : ''}`;
}

/**
 * The trial's outcome from why it was stopped (if it was), what its events said and its result. `died`: how the
 * client ended when it gave neither a result nor an error; before it started that means the host cannot run it
 * ('unavailable'), later it is this trial's failure.
 */
export async function settleTrial(o: { why: Why | undefined; lost: string; events: EventReader; fetch: (ev: WireEvent & { event: 'result' }) => Promise<BenchResult>; died: () => string }): Promise<HostTrialOutcome> {
  const { why, events } = o;
  if (why === 'cancel') return { kind: 'cancelled' };
  if (why === 'connection-lost') return { kind: 'connection-lost', message: o.lost || 'the connection to the host was lost' };
  let result: BenchResult | undefined;
  let problem: string | undefined;
  if (events.result) {
    try {
      result = await o.fetch(events.result);
    } catch (e) {
      problem = (e as Error).message;
    }
  }
  if (why === 'server-exit') return result ? { kind: 'server-exit', result } : { kind: 'server-exit' };
  if (why === 'timeout') return result ? { kind: 'timeout', result } : { kind: 'timeout' };
  if (result) return { kind: 'done', result };
  if (events.error !== undefined) return { kind: 'error', message: events.error };
  if (problem) return { kind: 'error', message: problem };
  const how = o.died();
  return events.started ? { kind: 'error', message: how } : { kind: 'unavailable', reason: how };
}
