// The load client on the target's host, next to the server: the bundle (dist/client-node.js) copied once into the host's autobench folder (checked by sha256); then, where the executor's processes take a stdin (a Slurm job), one client for all the trials (host-session.ts), else per trial the spec copied over and a client started through the executor; its events read back, its result fetched.
//
// Why: through an ssh port forward every token crosses ssh2's decryption and channel piping on the same event loop
// that timestamps it; on the host the client times what the server did (bench/placement.ts measures both).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CLIENT_HEADERS_ENV, encodeWire, WIRE_VERSION, type HostBenchOptions, type TrialSpec } from '../client';
import type { Workload } from '../core/workload/types';
import type { Executor, ServerProcess } from '../exec';
import { noNodeReason, probeHost, SHA_SCRIPT, type HostFacts, type HostNode } from './host-node';
import { bringNode, DEFAULT_NODE_SOURCE, type NodeSource } from './host-node-fetch';
import { HostSession } from './host-session';
import { endedText, EventReader, fetchResult, RESULT_GRACE_MS, SELF_DEADLINE_SLACK_MS, settleTrial, watchStops, type HostTrialHooks, type HostTrialOutcome } from './host-trial-watch';

export type { HostTrialHooks, HostTrialOutcome } from './host-trial-watch';

/** The bundle: $AUTOBENCH_CLIENT_JS, else dist/client-node.js beside this code (dist/*.js) or two folders up (src/runner/*.ts). */
export function findClientBundle(start = __dirname): string | undefined {
  const env = process.env.AUTOBENCH_CLIENT_JS;
  if (env) return existsSync(env) ? resolve(env) : undefined;
  for (const p of [join(start, 'client-node.js'), join(start, '..', '..', 'dist', 'client-node.js')]) if (existsSync(p)) return resolve(p);
  return undefined;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

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
    const digest = sha256(readFileSync(bundle));
    const relative = `client-${digest.slice(0, 16)}/client-node.js`;
    // The probe hashes a bundle already there in the same round trip (a Slurm job step each).
    const facts = await probeHost(ex, relative);
    const node = await nodeOn(ex, facts, o.bringNode ?? process.env.AUTOBENCH_BRING_NODE === '1');
    if (typeof node === 'string') return { ok: false, reason: node };
    const remote = `${facts.cacheDir}/${relative}`;
    const onHost = async (): Promise<string> => (await ex.run([node.path, '-e', SHA_SCRIPT, remote], { timeoutMs: 30_000 })).stdout.trim();
    if (facts.fileSha256 !== digest) {
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

/** Time a cancelled client gets to go before it is killed. */
const CANCEL_GRACE_MS = 2000;

export class HostClient {
  /** One client for all the trials, where the executor's processes take a stdin; else a client per trial. */
  readonly session: HostSession | undefined;

  constructor(
    readonly executor: Executor,
    readonly node: HostNode,
    /** The bundle's path on the host. */
    readonly bundle: string,
    private readonly cacheDir: string,
  ) {
    this.session = executor.pipesStdin ? new HostSession(executor, node, bundle, cacheDir) : undefined;
  }

  async runTrial(t: HostTrial, hooks: HostTrialHooks): Promise<HostTrialOutcome> {
    if (hooks.signal?.aborted) return { kind: 'cancelled' };
    const spec: TrialSpec = { version: WIRE_VERSION, workload: t.workload, options: t.options, deadlineMs: t.timeoutMs + SELF_DEADLINE_SLACK_MS };
    const local = mkdtempSync(join(tmpdir(), 'autobench-trial-'));
    try {
      // A second trial while the session's runs (never on one job's server today) gets a client of its own.
      if (this.session && !this.session.busy) return await this.session.runTrial(spec, t.timeoutMs, hooks, (ev) => fetchResult(this.executor, ev, local));
      return await this.once(spec, t.timeoutMs, hooks, local);
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  }

  /** Stops the session's client (its folder removed); a later trial runs a client per trial. */
  close(): Promise<void> {
    return this.session?.close() ?? Promise.resolve();
  }

  /** A client of its own for one trial: the spec copied over, the client started, followed to its end, its folder removed. */
  private async once(spec: TrialSpec, timeoutMs: number, hooks: HostTrialHooks, local: string): Promise<HostTrialOutcome> {
    const dir = `${this.cacheDir}/trials/${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
    try {
      writeFileSync(join(local, 'spec.json.gz'), gzipSync(encodeWire(spec), { level: 1 }));
      try {
        await this.executor.copyTo?.(join(local, 'spec.json.gz'), `${dir}/spec.json.gz`);
      } catch (e) {
        return { kind: 'unavailable', reason: `the trial spec could not be copied to the host: ${(e as Error).message}` };
      }
      return await this.watch(timeoutMs, hooks, dir, local);
    } finally {
      // Best effort: a lost connection leaves the folder to the next run's clean-up (host-node.ts).
      await (this.executor.remove ? this.executor.remove(dir) : this.executor.run(['rm', '-rf', '--', dir], { timeoutMs: 30_000 })).catch(() => undefined);
    }
  }

  /** Starts the client and follows it to its end; the outcome as runTrial (client-trial.ts) gives it. */
  private async watch(timeoutMs: number, hooks: HostTrialHooks, dir: string, local: string): Promise<HostTrialOutcome> {
    const events = new EventReader(hooks.onProgress);
    let proc: ServerProcess;
    try {
      const argv = [this.node.path, this.bundle, '--spec', `${dir}/spec.json.gz`, '--result-file', `${dir}/result.json.gz`];
      proc = await this.executor.start({ argv, tailLines: 20, onLine: (l) => events.line(l), secretEnv: [CLIENT_HEADERS_ENV] });
    } catch (e) {
      return { kind: 'unavailable', reason: `the client could not be started on the host: ${(e as Error).message}` };
    }
    // TERM: the client stops and hands back its partial result (a cancel does not wait for it).
    const stopped = watchStops(() => proc.running, (w) => proc.stop({ graceMs: w === 'cancel' || w === 'connection-lost' ? CANCEL_GRACE_MS : RESULT_GRACE_MS }), timeoutMs, hooks);
    const exit = await proc.exited;
    let why = stopped.end();
    if (!why && exit.error) {
      // The channel broke before the executor told its listeners: kill what the host may still run.
      why = 'connection-lost';
      await proc.stop({ graceMs: CANCEL_GRACE_MS }).catch(() => undefined);
    }
    await stopped.stopping;
    // Nothing ran (it never reported a phase): the host cannot run it; anything later is this trial's failure.
    return settleTrial({ why, lost: stopped.lostMessage() || exit.error?.message || '', events, fetch: (ev) => fetchResult(this.executor, ev, local), died: () => endedText(exit, proc.logTail(3)) });
  }
}
