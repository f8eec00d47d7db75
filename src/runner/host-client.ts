// The load client on the target's host, next to the server: the bundle (dist/client-node.js) copied once into the host's autobench folder (checked by sha256), then per trial the spec copied over, the client started through the executor, its events read back, its result fetched.
//
// Why: through an ssh port forward every token crosses ssh2's decryption and channel piping on the same event
// loop that timestamps it; on the host the client times what the server did (bench/placement.ts measures both).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeWire, encodeWire, EVENT_PREFIX, resultFromWire, WIRE_VERSION, type BenchProgress, type BenchResult, type HostBenchOptions, type TrialSpec, type WireEvent } from '../client';
import type { Workload } from '../core/workload/types';
import type { Executor, ServerProcess } from '../exec';
import type { TrialOutcome } from './client-trial';
import { noNodeReason, probeHost, type HostFacts, type HostNode } from './host-node';
import { bringNode, DEFAULT_NODE_SOURCE, type NodeSource } from './host-node-fetch';

/** The bundle: $AUTOBENCH_CLIENT_JS, else dist/client-node.js beside this code (dist/*.js) or two folders up (src/runner/*.ts). */
export function findClientBundle(start = __dirname): string | undefined {
  const env = process.env.AUTOBENCH_CLIENT_JS;
  if (env) return existsSync(env) ? resolve(env) : undefined;
  for (const p of [join(start, 'client-node.js'), join(start, '..', '..', 'dist', 'client-node.js')]) if (existsSync(p)) return resolve(p);
  return undefined;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

// Run by the host's node: the sha256 of a file, or nothing when there is none.
const SHA_SCRIPT = `const f=process.argv[1];try{process.stdout.write(require('crypto').createHash('sha256').update(require('fs').readFileSync(f)).digest('hex'))}catch{}`;

export type HostClientSetup = { ok: true; client: HostClient } | { ok: false; reason: string };

export interface HostClientOptions {
  /** The bundle to copy (default: findClientBundle()). */
  bundle?: string;
  /** Bring Node from the npm registry to a host without Node >= 20 (default: AUTOBENCH_BRING_NODE=1; a source for tests). */
  bringNode?: boolean | NodeSource;
}

/** The host's usable node: its own, else (when asked) one brought there; or why there is none. */
async function nodeOn(ex: Executor, facts: HostFacts, bring: boolean | NodeSource): Promise<HostNode | string> {
  if (facts.node) return facts.node;
  if (!bring) return `${noNodeReason(facts)}; AUTOBENCH_BRING_NODE=1 brings Node ${DEFAULT_NODE_SOURCE.version} from the npm registry`;
  try {
    return await bringNode(ex, facts, bring === true ? DEFAULT_NODE_SOURCE : bring);
  } catch (e) {
    return `${noNodeReason(facts)}, and bringing one failed: ${(e as Error).message}`;
  }
}

/** Finds node on the host and puts the bundle there (a copy only when the host's differs); never throws. */
export async function prepareHostClient(ex: Executor, o: HostClientOptions = {}): Promise<HostClientSetup> {
  if (!ex.copyTo) return { ok: false, reason: `${ex.target} cannot take files` };
  const bundle = o.bundle ?? findClientBundle();
  if (!bundle) return { ok: false, reason: 'the client bundle dist/client-node.js was not found beside autobench (npm run build makes it)' };
  try {
    const facts = await probeHost(ex);
    const node = await nodeOn(ex, facts, o.bringNode ?? process.env.AUTOBENCH_BRING_NODE === '1');
    if (typeof node === 'string') return { ok: false, reason: node };
    const digest = sha256(readFileSync(bundle));
    const remote = `${facts.cacheDir}/client-${digest.slice(0, 16)}/client-node.js`;
    const onHost = async (): Promise<string> => (await ex.run([node.path, '-e', SHA_SCRIPT, remote], { timeoutMs: 30_000 })).stdout.trim();
    if ((await onHost()) !== digest) {
      await ex.copyTo(bundle, remote);
      if ((await onHost()) !== digest) return { ok: false, reason: `the client bundle copied to ${remote} does not match its sha256` };
    }
    return { ok: true, client: new HostClient(ex, node, remote, facts.cacheDir) };
  } catch (e) {
    return { ok: false, reason: `the client could not be put on the host: ${(e as Error).message}` };
  }
}

/** One trial's input: the workload, the client's options (base URL on the host's loopback) and the trial's time limit. */
export interface HostTrial {
  workload: Workload;
  options: HostBenchOptions;
  timeoutMs: number;
}

export interface HostTrialHooks {
  signal: AbortSignal | undefined;
  /** The server this trial measures; its exit ends the trial early (outcome server-exit). */
  server?: ServerProcess;
  onConnectionLost: (fn: (message: string) => void) => () => void;
  onProgress: (p: BenchProgress) => void;
}

/** A trial's outcome, or 'unavailable' when the client could not run on the host at all (the caller falls back). */
export type HostTrialOutcome = TrialOutcome | { kind: 'unavailable'; reason: string };

/** Time a TERM'd client gets to hand back its partial result before KILL. */
const RESULT_GRACE_MS = 10_000;
/** Beyond the trial's limit, when the client stops itself (the runner gone, the connection lost). */
const SELF_DEADLINE_SLACK_MS = 60_000;

type Why = 'cancel' | 'server-exit' | 'connection-lost' | 'timeout';

export class HostClient {
  constructor(
    readonly executor: Executor,
    readonly node: HostNode,
    /** The bundle's path on the host. */
    readonly bundle: string,
    private readonly cacheDir: string,
  ) {}

  async runTrial(t: HostTrial, hooks: HostTrialHooks): Promise<HostTrialOutcome> {
    if (hooks.signal?.aborted) return { kind: 'cancelled' };
    const dir = `${this.cacheDir}/trials/${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
    const local = mkdtempSync(join(tmpdir(), 'autobench-trial-'));
    try {
      const spec: TrialSpec = { version: WIRE_VERSION, workload: t.workload, options: t.options, deadlineMs: t.timeoutMs + SELF_DEADLINE_SLACK_MS };
      writeFileSync(join(local, 'spec.json.gz'), gzipSync(encodeWire(spec), { level: 1 }));
      try {
        await this.executor.copyTo?.(join(local, 'spec.json.gz'), `${dir}/spec.json.gz`);
      } catch (e) {
        return { kind: 'unavailable', reason: `the trial spec could not be copied to the host: ${(e as Error).message}` };
      }
      return await this.watch(t, hooks, dir, local);
    } finally {
      rmSync(local, { recursive: true, force: true });
      // Best effort: a lost connection leaves the folder to the next run's clean-up (host-node.ts).
      await (this.executor.remove ? this.executor.remove(dir) : this.executor.run(['rm', '-rf', '--', dir], { timeoutMs: 30_000 })).catch(() => undefined);
    }
  }

  /** Starts the client and follows it to its end; the outcome as runTrial (client-trial.ts) gives it. */
  private async watch(t: HostTrial, hooks: HostTrialHooks, dir: string, local: string): Promise<HostTrialOutcome> {
    const events = new EventReader(hooks.onProgress);
    let proc: ServerProcess;
    try {
      const argv = [this.node.path, this.bundle, '--spec', `${dir}/spec.json.gz`, '--result-file', `${dir}/result.json.gz`];
      proc = await this.executor.start({ argv, tailLines: 20, onLine: (l) => events.line(l) });
    } catch (e) {
      return { kind: 'unavailable', reason: `the client could not be started on the host: ${(e as Error).message}` };
    }
    const stopped = stopOnEvents(proc, t.timeoutMs, hooks);
    const exit = await proc.exited;
    let why = stopped.end();
    if (!why && exit.error) {
      // The channel broke before the executor told its listeners: kill what the host may still run.
      why = 'connection-lost';
      await proc.stop({ graceMs: 2000 }).catch(() => undefined);
    }
    await stopped.stopping;
    if (why === 'cancel') return { kind: 'cancelled' };
    if (why === 'connection-lost') return { kind: 'connection-lost', message: stopped.lostMessage() || exit.error?.message || 'the connection to the host was lost' };
    let result: BenchResult | undefined;
    let problem: string | undefined;
    if (events.result) {
      try {
        result = await this.fetchResult(events.result, local);
      } catch (e) {
        problem = (e as Error).message;
      }
    }
    if (why === 'server-exit') return result ? { kind: 'server-exit', result } : { kind: 'server-exit' };
    if (why === 'timeout') return result ? { kind: 'timeout', result } : { kind: 'timeout' };
    if (result) return { kind: 'done', result };
    if (events.error !== undefined) return { kind: 'error', message: events.error };
    const tail = proc.logTail(3).join(' | ');
    const how = `the client on the host ${exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`}${tail ? `: ${tail}` : ''}`;
    // Nothing ran (it never reported a phase): the host cannot run it; anything later is this trial's failure.
    return problem ? { kind: 'error', message: problem } : events.started ? { kind: 'error', message: how } : { kind: 'unavailable', reason: how };
  }

  private async fetchResult(ev: WireEvent & { event: 'result' }, local: string): Promise<BenchResult> {
    if (ev.result !== undefined) return resultFromWire(ev.result);
    if (!ev.file) throw new Error('the client on the host named no result');
    const path = join(local, 'result.json.gz');
    await this.executor.copyBack(ev.file, path);
    const body = readFileSync(path);
    if (ev.sha256 && sha256(body) !== ev.sha256) throw new Error('the result fetched from the host does not match its sha256');
    return resultFromWire(decodeWire(gunzipSync(body).toString('utf8')));
  }
}

/** The client's stdout lines: progress to the caller, the result and error events kept; other lines go to the tail. */
class EventReader {
  result: (WireEvent & { event: 'result' }) | undefined;
  error: string | undefined;
  started = false;
  constructor(private readonly onProgress: (p: BenchProgress) => void) {}

  line(l: string): boolean {
    if (!l.startsWith(EVENT_PREFIX)) return false;
    let e: WireEvent;
    try {
      e = decodeWire(l) as WireEvent;
    } catch {
      return false;
    }
    this.started = true;
    if (e.event === 'progress') {
      const { event: _e, ...rest } = e;
      this.onProgress({ type: 'progress', ...rest });
    } else if (e.event === 'result') this.result = e;
    else if (e.event === 'error') this.error = e.message;
    return true;
  }
}

/** Stops the client on a cancel, the server's exit, a lost connection or the trial's time limit; says which came first. */
function stopOnEvents(proc: ServerProcess, timeoutMs: number, hooks: HostTrialHooks): { end: () => Why | undefined; stopping: Promise<unknown>; lostMessage: () => string } {
  let why: Why | undefined;
  let lost = '';
  let stopping: Promise<unknown> = Promise.resolve();
  const stop = (w: Why, graceMs: number, evenAfterExit = false): void => {
    if (why || (!proc.running && !evenAfterExit)) return;
    why = w;
    stopping = proc.stop({ graceMs }).catch(() => undefined);
  };
  const onAbort = (): void => stop('cancel', 2000);
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  hooks.server?.onExit(() => stop('server-exit', RESULT_GRACE_MS));
  const unlisten = hooks.onConnectionLost((m) => {
    lost = m;
    // The host may still run the client though its channel is gone: the executor reconnects to kill its group.
    stop('connection-lost', 2000, true);
  });
  const timer = setTimeout(() => stop('timeout', RESULT_GRACE_MS), timeoutMs);
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
