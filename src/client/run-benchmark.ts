// The library entry point: runs one benchmark (readiness, warmup, cache flush, timed arrivals under a concurrency cap) and returns records and metrics.
import { lengthsByScenario, subSeed } from '../core/workload/build';
import type { TokenizerLike } from '../core/workload/tokenizer';
import type { Workload, WorkloadRow } from '../core/workload/types';
import { arrivalSchedule } from '../core/workload/arrivals';
import { apiFor, type BodyOptions } from './backends';
import { flushCache, preconnect, serverInfo, waitReady } from './control';
import { BenchSetupError, parseBaseUrl } from './setup';
import { measure, type RunContext } from './measure';
import { newPool } from './connection-pool';
import { measureInWorkers } from './load-pool';
import { WORKER_BUNDLE, chooseWorkers, clientCores, expectedChunkRate, loadWorkerSpawn, type WorkerSpawn } from './load-workers';
import { isLoopbackOrigin } from './setup';
import { computeMetrics } from './metrics';
import type { RequestRecord } from './record';
import type { BenchHooks, BenchOptions, BenchResult } from './types';
import { sessionStats } from './sessions';

const WARMUP_OUTPUT_CAP = 32;

function originAndPath(baseUrl: string): { origin: string; basePath: string } {
  const parsed = parseBaseUrl(baseUrl);
  if (!parsed.ok) throw new BenchSetupError('bad-url', `--base-url ${parsed.problem}`);
  return parsed;
}

/**
 * Runs the workload against the server. Never throws for request failures (they are records with
 * reasons); throws for setup failures: server not ready, no model, every warmup request failed, cache flush failed.
 */
export async function runBenchmark(workload: Workload, options: BenchOptions, hooks: BenchHooks = {}): Promise<BenchResult> {
  const emit = hooks.onEvent ?? ((): void => undefined);
  const api = apiFor(options.backend);
  const { origin, basePath } = originAndPath(options.baseUrl);
  const maxConcurrency = options.maxConcurrency !== undefined && options.maxConcurrency > 0 ? options.maxConcurrency : null;
  const requestRate = options.requestRate ?? Infinity;
  const burstiness = options.burstiness ?? 1;
  const seed = options.seed ?? 42;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
  const notes: string[] = [];
  const pool = newPool(origin, maxConcurrency);
  try {
    emit({ type: 'phase', phase: 'ready-check' });
    let model = options.model;
    const readyTimeout = options.readyCheckTimeoutS ?? 60;
    if (readyTimeout > 0 || !model) {
      const listed = await waitReady(pool, basePath, headers, readyTimeout, hooks.signal, options.failFastUnreachable ?? false);
      model ??= listed;
    }
    if (!model) {
      if (api.kind !== 'native') throw new BenchSetupError('no-model', `cannot tell the model: GET ${basePath}/v1/models listed none; pass --model`);
      model = '';
    }
    const bodyOpts: BodyOptions = {
      model: options.servedModelName ?? model,
      stream: options.stream ?? true,
      ignoreEos: options.ignoreEos ?? true,
      temperature: options.temperature ?? 0,
      includeUsage: options.includeUsage ?? true,
      continuousUsage: options.continuousUsageStats ?? false,
      tokenizePrompt: options.tokenizePrompt ?? false,
      chatMaxTokensField: options.chatMaxTokensField ?? 'max_completion_tokens',
      extraBody: options.extraRequestBody ?? {},
    };
    if (options.topP !== undefined) bodyOpts.topP = options.topP;
    const ctx: RunContext = { pool, api, basePath, headers, bodyOpts, options, emit, signal: hooks.signal };

    const first = options.warmupRow ?? workload.rows[0];
    const warmupN = options.warmupRequests ?? 1;
    let warmup: RequestRecord[] = [];
    if (warmupN > 0 && first) {
      emit({ type: 'phase', phase: 'warmup', detail: `${warmupN} request(s)` });
      const row: WorkloadRow = { ...first, outputLen: Math.min(first.outputLen, WARMUP_OUTPUT_CAP), turns: undefined };
      const rows = Array.from({ length: warmupN }, () => row);
      warmup = (await measure(ctx, rows, new Float64Array(warmupN), maxConcurrency, true)).records;
      if (hooks.signal?.aborted) throw new Error('the run was cancelled during warmup');
      if (warmup.every((r) => !r.success)) {
        throw new BenchSetupError('warmup-failed', `every warmup request failed; first error: ${warmup[0]?.error ?? 'unknown'}`);
      }
    }
    let flush = 'not requested';
    if (options.flushCache) {
      emit({ type: 'phase', phase: 'flush-cache' });
      flush = await flushCache(pool, basePath, api.flushPath, headers);
      if (flush !== 'ok') notes.push(`--flush-cache: ${flush}; the run started with whatever the server had cached`);
    }

    const arrivals = arrivalSchedule(
      workload.rows.length,
      { requestRate, burstiness, seed: subSeed(seed, 'arrivals') },
      workload.timed ? workload.rows.map((r) => r.arrivalMs) : undefined,
    );
    if (workload.timed && Number.isFinite(requestRate)) notes.push('the dataset carries its own arrival times; --request-rate is ignored');
    const warm = Math.min(workload.rows.length, maxConcurrency ?? (Number.isFinite(requestRate) || workload.timed ? 0 : 1024));
    const threads = measuringThreads(workload, arrivals, maxConcurrency, origin, options.workers, notes);
    if ((options.preconnect ?? true) && warm > 1 && threads.workers === 1) await preconnect(pool, basePath, headers, warm);
    emit({ type: 'phase', phase: 'measure', ...(threads.workers > 1 ? { detail: `${threads.workers} worker threads` } : {}) });
    const startedAt = new Date();
    const m = threads.spawn
      ? await measureInWorkers({ ctx, origin, rows: workload.rows, arrivals, cap: maxConcurrency, workers: threads.workers, preconnect: (options.preconnect ?? true) ? Math.max(warm, threads.workers) : 0 }, threads.spawn)
      : await measure(ctx, workload.rows, arrivals, maxConcurrency, false);
    emit({ type: 'phase', phase: 'finish' });

    const info = api.flushPath === '/flush_cache' ? await serverInfo(pool, basePath, headers) : null;
    countMissingTokens(m.records, options.tokenizer);
    countMissingTokens(warmup, options.tokenizer);
    if (!options.keepTexts) for (const r of m.records) if (!(options.keepUncountedTexts && r.success && r.outputTokensSource === 'stream')) r.generatedText = '';
    const metrics = computeMetrics(m.records, m.durationMs, options.goodput);
    const sessions = sessionStats(m.records, m.durationMs, options.goodput);
    const okRecords = m.records.filter((r) => r.success);
    // Chunks that carried several tokens without a running count: ITL can only be per chunk there.
    const multi = okRecords.filter((r) => r.outputTokensSource === 'usage' && r.chunks > 1 && r.streamTokens < r.outputTokens).length;
    if (multi > 0) notes.push(`${multi} request(s) streamed fewer chunks than tokens without per-chunk counts; their ITL is per chunk (vLLM: --continuous-usage-stats)`);
    return {
      backend: options.backend,
      baseUrl: options.baseUrl,
      endpoint: api.path,
      model,
      startedAt,
      startPerfMs: m.t0,
      records: m.records,
      warmup,
      metrics,
      requestRate,
      burstiness,
      maxConcurrency,
      flushCache: flush,
      ...(sessions ? { sessions } : {}),
      serverInfo: info,
      client: m.client,
      aborted: m.aborted,
      workloadName: workload.name,
      notes: [...workload.notes, ...notes],
      lengths: {
        requested: lengthsByScenario(workload.rows),
        measured: lengthsByScenario(okRecords.map((r) => ({ scenario: r.scenario, promptLen: r.promptTokensServer ?? r.promptLen, outputLen: r.outputTokens }))),
      },
    };
  } finally {
    await pool.destroy().catch(() => undefined);
  }
}

/** The threads that measure: one here, or worker threads (with how to start them); a note when more were asked than can start. */
function measuringThreads(workload: Workload, arrivals: Float64Array, cap: number | null, origin: string, asked: number | 'auto' | undefined, notes: string[]): { workers: number; spawn?: WorkerSpawn } {
  const n = workload.rows.length;
  const span = n > 1 ? (arrivals[n - 1] as number) - (arrivals[0] as number) : 0;
  const rate = span > 0 ? ((n - 1) / span) * 1000 : Infinity;
  const meanOutputTokens = n > 0 ? workload.rows.reduce((a, r) => a + r.outputLen, 0) / n : 0;
  const chunkRate = expectedChunkRate({ requestRate: rate, cap, requests: n, meanOutputTokens });
  const workers = chooseWorkers(asked, chunkRate, clientCores(isLoopbackOrigin(origin)));
  if (workers === 1) return { workers };
  const spawn = loadWorkerSpawn();
  if (spawn) return { workers, spawn };
  notes.push(`${workers} load-client worker threads were asked for, but this build has no worker script (dist/${WORKER_BUNDLE}); one thread measured`);
  return { workers: 1 };
}

/** After the run: count output tokens with the tokenizer where the server reported none. */
function countMissingTokens(records: RequestRecord[], tokenizer: TokenizerLike | undefined): void {
  for (const r of records) {
    if (!r.success || r.outputTokensSource === 'usage') continue;
    if (tokenizer && r.generatedText) {
      r.outputTokens = tokenizer.encode(r.generatedText, false).length;
      r.outputTokensSource = 'tokenizer';
    } else if (r.outputTokensSource === 'tokenizer') {
      // A non-streamed answer without usage and nothing to count with: SGLang's fallback.
      r.outputTokens = r.outputLenRequested;
      r.outputTokensSource = 'requested';
    }
  }
}

