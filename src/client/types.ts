// The load client's public shapes: what a run is asked to do, the events it emits while running, and what it returns.
import type { ScenarioLengths } from '../core/workload/build';
import type { TokenizerLike } from '../core/workload/tokenizer';
import type { WorkloadRow } from '../core/workload/types';
import type { Backend } from './backends';
import type { BenchMetrics, GoodputSlo } from './metrics';
import type { RequestRecord } from './record';
import type { SessionStats } from './sessions';

export interface BenchOptions {
  backend: Backend;
  /** http://host:port[/prefix] */
  baseUrl: string;
  /** Model id; asked from GET /v1/models when absent. */
  model?: string;
  /** The model name sent in request bodies (default: model). */
  servedModelName?: string;
  /** Sent with every request (Authorization, --header K=V). */
  headers?: Record<string, string>;
  stream?: boolean;
  ignoreEos?: boolean;
  temperature?: number;
  topP?: number;
  extraRequestBody?: Record<string, unknown>;
  /** Ask for the usage chunk (default true). */
  includeUsage?: boolean;
  /** Ask for usage on every chunk so multi-token chunks give per-token ITL (vLLM's continuous_usage_stats). */
  continuousUsageStats?: boolean;
  tokenizePrompt?: boolean;
  chatMaxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /** Requests per second; Infinity (default) sends all at once. */
  requestRate?: number;
  burstiness?: number;
  maxConcurrency?: number;
  /** Default 1. Each repeats the first row with at most 32 output tokens; excluded from metrics. */
  warmupRequests?: number;
  /** The prompt warm-up requests send (default: the workload's first row, which then reaches the cache before it is measured). */
  warmupRow?: WorkloadRow;
  seed?: number;
  flushCache?: boolean;
  /** Per request, from send to last byte (default 6 h, as SGLang). */
  requestTimeoutS?: number;
  /** Wait this long for GET /v1/models (default 60; 0: one try). */
  readyCheckTimeoutS?: number;
  /**
   * Nobody is starting the server for this run (plain `autobench bench`): a refused connection or an unknown
   * host ends the ready check at once instead of polling until the timeout (default false).
   */
  failFastUnreachable?: boolean;
  goodput?: GoodputSlo;
  /** Counts output tokens when the server reports none (after the run, never while measuring). */
  tokenizer?: TokenizerLike;
  /** Keep generated texts in the records (output details, multi-turn needs them anyway). */
  keepTexts?: boolean;
  /**
   * Keep the generated text of each request whose output tokens could only be counted by chunks (no usage streamed, no
   * tokenizer here), so that the caller can count them with its tokenizer (recount.ts): a client on a remote host.
   */
  keepUncountedTexts?: boolean;
  /** Interval of 'progress' events (default 500 ms). */
  progressIntervalMs?: number;
  /**
   * Threads that send and time the measured requests: 1 (this thread), N worker threads sharing the rows and the
   * cap, or 'auto' (default): by the streams the run can hold and the cores here (load-workers.ts).
   */
  workers?: number | 'auto';
  /** Open the connections the run will need before it starts (default true): up to the concurrency cap, or every request (at most 1024) at rate inf. */
  preconnect?: boolean;
}

export type BenchPhase = 'ready-check' | 'warmup' | 'flush-cache' | 'measure' | 'finish';

export interface BenchProgress {
  type: 'progress';
  elapsedS: number;
  total: number;
  started: number;
  completed: number;
  failed: number;
  inFlight: number;
  outputTokens: number;
  /** Over the last interval. */
  requestsPerS: number;
  outputTokensPerS: number;
  /** Medians over requests finished in the last interval (null when none). */
  ttftMsP50: number | null;
  tpotMsP50: number | null;
}

export type BenchEvent =
  | { type: 'phase'; phase: BenchPhase; detail?: string }
  | BenchProgress
  /** After each measured request; runs on the measuring loop, so handlers must be cheap. */
  | { type: 'request'; record: RequestRecord };

export interface BenchHooks {
  onEvent?: (e: BenchEvent) => void;
  signal?: AbortSignal;
}

/** What the client process cost over the measured run (warmup excluded). */
export interface ClientStats {
  /** Client process CPU (user + system, every thread), % of one core. */
  cpuPercent: number;
  maxRssMb: number;
  /** Event-loop delay histogram (perf_hooks, sampled every 10 ms): whole timer periods, the 10 ms included. */
  eventLoopDelayMeanMs: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** The lag: delay beyond the 10 ms period, p99 and max (ms). */
  eventLoopLagP99Ms: number;
  eventLoopLagMaxMs: number;
  /** Threads that sent and timed requests (1: this thread; more: worker threads, the lag above being the worst one's). */
  workers: number;
  /** Why the client itself may have set the pace (lag p99 over CLIENT_LAG_P99_LIMIT_MS, or CPU over CLIENT_CPU_LIMIT_PERCENT); null when neither. */
  bound: string | null;
}

export interface BenchResult {
  backend: Backend;
  baseUrl: string;
  endpoint: string;
  model: string;
  startedAt: Date;
  /** performance.now() of this process at the measured run's t = 0 (records' times are relative to it). */
  startPerfMs: number;
  records: RequestRecord[];
  warmup: RequestRecord[];
  metrics: BenchMetrics;
  requestRate: number;
  burstiness: number;
  maxConcurrency: number | null;
  flushCache: string;
  serverInfo: unknown;
  client: ClientStats;
  aborted: boolean;
  workloadName: string;
  notes: string[];
  /** Dataset lengths per scenario (requested), and measured (prompt as counted, output as generated). */
  lengths: { requested: ScenarioLengths[]; measured: ScenarioLengths[] };
  /** Multi-turn runs: per turn and per session (sessions.ts); absent when no row had a later turn. */
  sessions?: SessionStats;
}
