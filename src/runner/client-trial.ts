// The load client against a live server for one trial: the client settings, the `autobench bench` line that reproduces them, and the outcome (done, crash, lost connection, timeout, cancel).
import { runBenchmark, type Backend, type BenchProgress, type BenchResult, type HostBenchOptions } from '../client';
import { shlexJoin } from '../core/candidates/shell';
import type { FrameworkKey } from '../core/frameworks/types';
import type { TokenizerLike } from '../core/workload/tokenizer';
import type { Workload, WorkloadRow } from '../core/workload/types';
import type { Endpoint } from '../core/plan/types';
import type { LiveServer } from './server';

/** Same request format for every framework on an endpoint; SGLang-family servers get the SGLang flavour only for its cache-flush route. */
export function backendFor(fw: FrameworkKey, endpoint: Endpoint): Backend {
  const sglangFamily = fw === 'sglang' || fw === 'tokenspeed';
  if (endpoint === '/generate') return 'sglang';
  if (endpoint === '/v1/chat/completions') return sglangFamily ? 'sglang-oai-chat' : 'openai-chat';
  return sglangFamily ? 'sglang-oai' : 'openai';
}

export interface TrialSettings {
  backend: Backend;
  /** Wall-clock request rate sent (modelled rate x sim speed). */
  wallRate: number;
  concurrency: number | null;
  warmupRequests: number;
  /** The prompt warm-ups send: one no measured trial sends, so it never primes a measured prompt's cache. */
  warmupRow?: WorkloadRow;
  seed: number;
  extraBody: Record<string, unknown>;
  timeoutMs: number;
  /** Counts output tokens when the server streams no usage (a client in this process only: it does not travel to a host). */
  tokenizer?: TokenizerLike;
}

export type TrialOutcome =
  | { kind: 'done'; result: BenchResult }
  | { kind: 'error'; message: string }
  | { kind: 'server-exit'; result?: BenchResult }
  | { kind: 'connection-lost'; message: string; result?: BenchResult }
  | { kind: 'timeout'; result?: BenchResult }
  | { kind: 'cancelled' };

/**
 * The client settings as an `autobench bench` command line (rows record it as benchmark_command). `datasetFlags`
 * (Workloads.benchFlags) replace the random-length flags for the kinds that are not per-scenario.
 */
export function benchmarkCommand(s: TrialSettings, baseUrl: string, tokenizer: string, datasetKind: string, inputLen: number, outputLen: number, numPrompts: number, datasetFlags?: readonly string[]): string {
  const dataset = datasetFlags ?? ['--dataset-name', datasetKind, '--random-input-len', String(inputLen), '--random-output-len', String(outputLen), '--random-range-ratio', '1', '--num-prompts', String(numPrompts)];
  const argv = ['autobench', 'bench', '--backend', s.backend, '--base-url', baseUrl, '--tokenizer', tokenizer, ...dataset, '--request-rate', Number.isFinite(s.wallRate) ? String(s.wallRate) : 'inf'];
  if (s.concurrency !== null) argv.push('--max-concurrency', String(s.concurrency));
  argv.push('--seed', String(s.seed), '--warmup-requests', String(s.warmupRequests), '--flush-cache');
  if (Object.keys(s.extraBody).length) argv.push('--extra-request-body', JSON.stringify(s.extraBody));
  return shlexJoin(argv);
}

/** The client's options for a trial, wherever it runs (in this process, or on the host: host-client.ts). */
export function trialBenchOptions(baseUrl: string, model: string | undefined, s: TrialSettings, noModelList = false): HostBenchOptions {
  return {
    backend: s.backend,
    baseUrl,
    ...(model ? { model } : {}),
    requestRate: s.wallRate,
    ...(s.concurrency !== null ? { maxConcurrency: s.concurrency } : {}),
    warmupRequests: s.warmupRequests,
    ...(s.warmupRow ? { warmupRow: s.warmupRow } : {}),
    seed: s.seed,
    flushCache: true,
    extraRequestBody: s.extraBody,
    // A server without GET /v1/models (TensorRT-LLM's disaggregated front end) was found ready by its own route already.
    readyCheckTimeoutS: noModelList && model ? 0 : 10,
    progressIntervalMs: 500,
    // A client on another host has no tokenizer: texts it could count only by chunks come back for the runner to count.
    keepUncountedTexts: true,
  };
}

export async function runTrial(
  server: LiveServer,
  workload: Workload,
  s: TrialSettings,
  hooks: { signal: AbortSignal | undefined; onConnectionLost: (fn: (message: string) => void) => () => void; onProgress: (p: BenchProgress) => void },
): Promise<TrialOutcome> {
  const ac = new AbortController();
  let why: 'cancel' | 'server-exit' | 'connection-lost' | 'timeout' | undefined;
  let lostMessage = '';
  const stop = (w: typeof why) => {
    why ??= w;
    ac.abort();
  };
  const onAbort = () => stop('cancel');
  if (hooks.signal?.aborted) return { kind: 'cancelled' };
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  server.proc.onExit(() => stop('server-exit'));
  const unlisten = hooks.onConnectionLost((m) => {
    lostMessage = m;
    stop('connection-lost');
  });
  const timer = setTimeout(() => stop('timeout'), s.timeoutMs);
  let result: BenchResult | undefined;
  let error: string | undefined;
  try {
    result = await runBenchmark(
      workload,
      { ...trialBenchOptions(server.baseUrl, server.model, s, server.noModelList), ...(server.headers ? { headers: { ...server.headers } } : {}), ...(s.tokenizer ? { tokenizer: s.tokenizer } : {}) },
      {
        signal: ac.signal,
        onEvent: (e) => {
          if (e.type === 'progress') hooks.onProgress(e);
        },
      },
    );
  } catch (e) {
    error = (e as Error).message;
  } finally {
    clearTimeout(timer);
    unlisten();
    hooks.signal?.removeEventListener('abort', onAbort);
  }
  if (server.exit && !why) why = 'server-exit';
  switch (why) {
    case 'cancel':
      return { kind: 'cancelled' };
    case 'server-exit':
      return result ? { kind: 'server-exit', result } : { kind: 'server-exit' };
    case 'connection-lost':
      return { kind: 'connection-lost', message: lostMessage, ...(result ? { result } : {}) };
    case 'timeout':
      return result ? { kind: 'timeout', result } : { kind: 'timeout' };
    default:
      return result ? { kind: 'done', result } : { kind: 'error', message: error ?? 'the benchmark returned nothing' };
  }
}

/** The client's result without per-request texts, for trials/…json. */
export function rawResult(r: BenchResult): unknown {
  return {
    backend: r.backend,
    base_url: r.baseUrl,
    endpoint: r.endpoint,
    model: r.model,
    started_at: r.startedAt.toISOString(),
    request_rate: Number.isFinite(r.requestRate) ? r.requestRate : 'inf',
    max_concurrency: r.maxConcurrency,
    flush_cache: r.flushCache,
    aborted: r.aborted,
    notes: r.notes,
    metrics: r.metrics,
    client: r.client,
    lengths: r.lengths,
    requests: r.records.map((x) => ({ index: x.index, success: x.success, error: x.error || undefined, prompt_len: x.promptLen, output_tokens: x.outputTokens, start_ms: x.startMs, ttft_ms: x.ttftMs, e2e_ms: x.e2eMs })),
  };
}
