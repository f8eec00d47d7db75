// Where a trial's load client runs, and the trial run there: on the server's host (ssh and other remote targets, by default), through the port forward when it cannot run there (no node >= 20, the bundle not copied), or in this process next to a local server. Every outcome says which.
import { recountOutputTokens } from '../client';
import { ContainerExecutor, type Executor } from '../exec';
import type { Workload } from '../core/workload/types';
import { runTrial, trialBenchOptions, type TrialOutcome, type TrialSettings } from './client-trial';
import { probeForwardUnderLoad, type ForwardLoad } from './forward-load';
import { prepareHostClient, type HostClientSetup, type HostTrialHooks } from './host-client';
import type { LiveServer } from './server';

export type Placement = 'host' | 'forward' | 'local';

/** Where the client ran; the row's `client` block carries it (snake_case as written). */
export interface ClientPlacement {
  placement: Placement;
  /** The URL the client sent to: the host's loopback ('host'), the forward's end here ('forward'), the server ('local'). */
  base_url: string;
  /** 'host': the node that ran the client there. */
  node_version?: string;
  /** Threads that sent and timed the trial's requests (set once the trial measured). */
  workers?: number;
  /** 'forward' on a remote target: why the client did not run on the host. */
  fallback_reason?: string;
  /** 'forward': what the forward added under this trial's own load. */
  forward_overhead?: ForwardLoad;
}

export type PlacedOutcome = TrialOutcome & { client: ClientPlacement };

type Hooks = Omit<HostTrialHooks, 'server'>;

/** The executor that runs things on the server's host: a container target's host, not a fresh container. */
export function hostExecutorOf(ex: Executor): Executor {
  return ex instanceof ContainerExecutor ? hostExecutorOf(ex.inner) : ex;
}

// One set-up per executor (so per run): node found and the bundle copied once; a failure sticks, so a run's
// trials are measured one way.
const setups = new WeakMap<Executor, Promise<HostClientSetup>>();

function setupFor(host: Executor): Promise<HostClientSetup> {
  let s = setups.get(host);
  if (!s) {
    s = prepareHostClient(host);
    setups.set(host, s);
  }
  return s;
}

/** Forgets an executor's set-up (tests; a later trial prepares again), stopping its client if one serves its trials. */
export function resetHostClient(ex: Executor): void {
  void closeHostClient(ex);
}

/** Stops the client that serves an executor's trials (a Slurm job's, before the job ends) and forgets its set-up. */
export async function closeHostClient(ex: Executor): Promise<void> {
  const host = hostExecutorOf(ex);
  const s = setups.get(host);
  setups.delete(host);
  const setup = await s?.catch(() => undefined);
  if (setup?.ok) await setup.client.close().catch(() => undefined);
}

/** One trial with the client where it belongs (see the module's first line); the outcome as runTrial's, plus where it ran. */
export async function runPlacedTrial(executor: Executor, server: LiveServer, workload: Workload, s: TrialSettings, hooks: Hooks): Promise<PlacedOutcome> {
  const host = hostExecutorOf(executor);
  if (host.target === 'local') {
    return { ...(await runTrial(server, workload, s, hooks)), client: { placement: 'local', base_url: server.baseUrl } };
  }
  const setup = await setupFor(host);
  let reason = setup.ok ? '' : setup.reason;
  if (setup.ok) {
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const out = await setup.client.runTrial({ workload, options: trialBenchOptions(baseUrl, server.model, s, server.noModelList), timeoutMs: s.timeoutMs }, { ...hooks, server: server.proc });
    // The host's client has no tokenizer: what it could count only by chunks (no usage streamed) is counted here.
    if ('result' in out && out.result && s.tokenizer) recountOutputTokens(out.result, s.tokenizer);
    if (out.kind !== 'unavailable') return { ...out, client: { placement: 'host', base_url: baseUrl, node_version: setup.client.node.version } };
    reason = out.reason;
    // The rest of the run goes through the forward too: one run, one way of measuring.
    setups.set(host, Promise.resolve({ ok: false, reason }));
  }
  return forwardTrial(host, server, workload, s, hooks, reason);
}

/** The in-process client through the port forward, with the forward's overhead probed while the trial runs. */
async function forwardTrial(host: Executor, server: LiveServer, workload: Workload, s: TrialSettings, hooks: Hooks, reason: string): Promise<PlacedOutcome> {
  const probe = await probeForwardUnderLoad(host, server.forward, server.port);
  const outcome = await runTrial(server, workload, s, hooks).catch((e: unknown): TrialOutcome => ({ kind: 'error', message: (e as Error).message }));
  const load = await probe.stop();
  return { ...outcome, client: { placement: 'forward', base_url: server.baseUrl, fallback_reason: reason, forward_overhead: load } };
}
