// The measured run on several worker threads: each takes rows from one shared counter under one cap, on the main thread's t0 through the monotonic clock they share; this thread relays cancel, turns their finished requests into live events and progress, and merges one result.
import { Worker } from 'node:worker_threads';
import type { WorkloadRow } from '../core/workload/types';
import type { WorkerSpawn } from './load-workers';
import { hrOffsetMs, type FromWorker, type ToWorker, type WorkerOptions } from './load-worker';
import { clientStats, type LoopDelay, type MeasureResult, type RunContext } from './measure';
import { ProgressWindow } from './progress-window';
import type { RequestRecord } from './record';
import { sharedState, STARTED } from './rows';

export interface PoolRun {
  ctx: RunContext;
  origin: string;
  rows: readonly WorkloadRow[];
  arrivals: Float64Array;
  cap: number | null;
  workers: number;
  /** Connections to open before the clock starts, over all workers. */
  preconnect: number;
}

/** A started worker and what it said. */
interface Member {
  worker: Worker;
  ready: Promise<void>;
  done: Promise<{ aborted: boolean; loop: LoopDelay }>;
}

function workerOptions(o: RunContext['options']): WorkerOptions {
  const { tokenizer: _t, ...rest } = o;
  return rest;
}

/** Starts one worker; its records go to `onRecords`; an error or an early exit rejects what it has not said yet. */
function startMember(spawn: WorkerSpawn, init: ToWorker, onRecords: (r: RequestRecord[]) => void): Member {
  const worker = new Worker(spawn.file, { eval: spawn.eval, workerData: spawn.workerData });
  let readyFns: [() => void, (e: Error) => void] | undefined;
  let doneFns: [(v: { aborted: boolean; loop: LoopDelay }) => void, (e: Error) => void] | undefined;
  const ready = new Promise<void>((res, rej) => (readyFns = [res, rej]));
  const done = new Promise<{ aborted: boolean; loop: LoopDelay }>((res, rej) => (doneFns = [res, rej]));
  ready.catch(() => undefined);
  done.catch(() => undefined);
  const failAll = (e: Error): void => {
    readyFns?.[1](e);
    doneFns?.[1](e);
  };
  worker.on('message', (m: FromWorker) => {
    if (m.type === 'ready') readyFns?.[0]();
    else if (m.type === 'records') onRecords(m.records);
    else if (m.type === 'done') doneFns?.[0]({ aborted: m.aborted, loop: m.loop });
    else failAll(new Error(`a load-client worker failed: ${m.message}`));
  });
  worker.on('error', (e) => failAll(new Error(`a load-client worker failed: ${e.message}`)));
  worker.on('exit', (code) => failAll(new Error(`a load-client worker exited (code ${code}) before its run ended`)));
  worker.postMessage(init);
  return { worker, ready, done };
}

/** Runs the measured rows on `workers` threads and returns one result, as measure() does in one thread. */
export async function measureInWorkers(run: PoolRun, spawn: WorkerSpawn): Promise<MeasureResult> {
  const { ctx, rows, arrivals, cap, workers } = run;
  const state = sharedState();
  const quota = cap === null ? Infinity : Math.ceil(cap / workers);
  const records: RequestRecord[] = [];
  const window = new ProgressWindow();
  const onRecords = (batch: RequestRecord[]): void => {
    for (const rec of batch) {
      records.push(rec);
      window.count(rec);
      ctx.emit({ type: 'request', record: rec });
    }
  };
  const base = { type: 'init' as const, origin: run.origin, basePath: ctx.basePath, headers: ctx.headers, bodyOpts: ctx.bodyOpts, options: workerOptions(ctx.options), rows, arrivals, state, cap, quota };
  const members = Array.from({ length: workers }, () => startMember(spawn, { ...base, preconnect: Math.min(quota, Math.ceil(run.preconnect / workers)) }, onRecords));
  const send = (m: ToWorker): void => members.forEach((w) => w.worker.postMessage(m));
  const onAbort = (): void => send({ type: 'abort' });
  let progress: NodeJS.Timeout | undefined;
  try {
    await Promise.all(members.map((w) => w.ready));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const inFlight = (): number => Atomics.load(state, STARTED) - window.completed - window.failed;
    const tick = (): void => ctx.emit(window.tick(performance.now() - t0, rows.length, Atomics.load(state, STARTED), inFlight()));
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    send({ type: 'start', t0HrMs: t0 + hrOffsetMs() });
    if (ctx.signal?.aborted) onAbort();
    progress = setInterval(tick, ctx.options.progressIntervalMs ?? 500);
    const ends = await Promise.all(members.map((w) => w.done));
    const durationMs = performance.now() - t0;
    tick();
    records.sort((a, b) => a.index - b.index || a.turn - b.turn);
    const client = clientStats(durationMs, process.cpuUsage(cpu0), ends.map((e) => e.loop));
    return { t0, records, durationMs, aborted: ends.some((e) => e.aborted), client };
  } finally {
    if (progress) clearInterval(progress);
    ctx.signal?.removeEventListener('abort', onAbort);
    await Promise.all(members.map((w) => w.worker.terminate().catch(() => undefined)));
  }
}
