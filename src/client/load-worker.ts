// A load-client worker thread: its own connection pool and measuring loop over the rows it takes from the shared state (rows.ts SharedRows), on the main thread's t0; finished requests go back in batches, its event-loop delay at the end.
import type { MessagePort } from 'node:worker_threads';
import type { WorkloadRow } from '../core/workload/types';
import { apiFor, type BodyOptions } from './backends';
import { newPool } from './connection-pool';
import { preconnect } from './control';
import { MeasureLoop, type LoopDelay, type RunContext } from './measure';
import type { RequestRecord } from './record';
import { SharedRows, STARTED } from './rows';
import type { BenchOptions } from './types';

/** BenchOptions a worker gets: what structured clone carries (no tokenizer, no functions). */
export type WorkerOptions = Omit<BenchOptions, 'tokenizer'>;

export interface WorkerInit {
  type: 'init';
  origin: string;
  basePath: string;
  headers: Record<string, string>;
  bodyOpts: BodyOptions;
  options: WorkerOptions;
  rows: readonly WorkloadRow[];
  arrivals: Float64Array;
  /** rows.ts cells, in a SharedArrayBuffer. */
  state: Int32Array;
  /** The run's cap (null: none), and this worker's share of it. */
  cap: number | null;
  quota: number;
  /** Connections to open before the clock starts. */
  preconnect: number;
}

export type ToWorker = WorkerInit | { type: 'start'; t0HrMs: number } | { type: 'abort' };

export type FromWorker =
  | { type: 'ready'; offsetMs: number }
  | { type: 'records'; records: RequestRecord[] }
  | { type: 'done'; aborted: boolean; loop: LoopDelay }
  | { type: 'error'; message: string };

/** How often finished requests go back to the main thread (ms). */
const BATCH_MS = 50;

/** The monotonic clock every thread shares (process.hrtime) less this thread's performance.now(), read where the two reads are closest. */
export function hrOffsetMs(): number {
  let best = Infinity;
  let offset = 0;
  for (let k = 0; k < 5; k++) {
    const a = performance.now();
    const h = Number(process.hrtime.bigint()) / 1e6;
    const b = performance.now();
    if (b - a < best) {
      best = b - a;
      offset = h - (a + b) / 2;
    }
  }
  return offset;
}

/** Runs one measured run in this thread as the main thread asks (init, start, abort). */
export function runLoadWorker(port: MessagePort): void {
  const ac = new AbortController();
  let init: WorkerInit | undefined;
  let pool: ReturnType<typeof newPool> | undefined;
  const post = (m: FromWorker): void => port.postMessage(m);
  const fail = (e: unknown): void => post({ type: 'error', message: (e as Error)?.message ?? String(e) });
  port.on('message', (m: ToWorker) => {
    if (m.type === 'abort') ac.abort();
    else if (m.type === 'init') {
      init = m;
      pool = newPool(m.origin, m.cap === null ? null : m.quota);
      preconnect(pool, m.basePath, m.headers, m.preconnect).then(() => post({ type: 'ready', offsetMs: hrOffsetMs() }), fail);
    } else if (init && pool) {
      const p = pool;
      measureHere(init, p, m.t0HrMs - hrOffsetMs(), ac.signal, post)
        .catch(fail)
        .finally(() => void p.destroy().catch(() => undefined));
    }
  });
}

async function measureHere(init: WorkerInit, pool: ReturnType<typeof newPool>, t0: number, signal: AbortSignal, post: (m: FromWorker) => void): Promise<void> {
  let batch: RequestRecord[] = [];
  const flush = (): void => {
    if (batch.length === 0) return;
    post({ type: 'records', records: batch });
    batch = [];
  };
  const ctx: RunContext = {
    pool,
    api: apiFor(init.options.backend),
    basePath: init.basePath,
    headers: init.headers,
    bodyOpts: init.bodyOpts,
    options: init.options,
    emit: (e) => {
      if (e.type === 'request') batch.push(e.record);
    },
    signal,
  };
  const { state } = init;
  const rows = new SharedRows(init.arrivals, state, init.cap ?? Infinity, init.quota);
  const loop = new MeasureLoop(ctx, init.rows, init.arrivals, rows, false, () => void Atomics.add(state, STARTED, 1));
  const timer = setInterval(flush, BATCH_MS);
  try {
    const r = await loop.run({ t0, progress: false });
    flush();
    post({ type: 'done', aborted: r.aborted, loop: r.loop });
  } finally {
    clearInterval(timer);
  }
}
