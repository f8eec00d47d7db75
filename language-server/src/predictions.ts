// Predictions for open configs, computed in one worker thread (never on the server's event loop): one job at a time, the
// latest version per document queued, a newer version cancelling an older job (a shared flag the worker reads between
// candidates) and ignoring what it still sends; one result cached per document, for the version it was computed from.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EditorPrediction } from '../../src/core/editor/predicted';
import type { EditorPredictInput } from '../../src/predict/editor';

/** The built worker, beside the server's bundle (dist/server.js). */
export const PREDICT_WORKER_FILE = 'server-predict-worker.js';
/** Quiet time after the last edit before a document is predicted. */
export const PREDICT_IDLE_MS = 500;

export interface PredictRequest {
  id: number;
  input: EditorPredictInput;
  maxCandidates: number;
  deadlineMs: number;
  /** An Int32Array's buffer: set to 1 when a newer version replaces the job. */
  cancel: SharedArrayBuffer;
}

export interface PredictReply {
  id: number;
  /** The worker's thread id (never 0, the main thread's). */
  threadId: number;
  /** Absent when cancelled or when the config has nothing to predict. */
  prediction?: EditorPrediction;
  error?: string;
}

/** What the service needs of a worker thread (a fake in tests). */
export interface WorkerLike {
  postMessage(m: PredictRequest): void;
  on(event: 'message', f: (m: PredictReply) => void): unknown;
  on(event: 'error', f: (e: Error) => void): unknown;
  on(event: 'exit', f: (code: number) => void): unknown;
  terminate(): unknown;
  ref?(): void;
  unref?(): void;
}

export interface PredictionServiceOptions {
  /** Starts the worker; undefined: no predictions at all (they never run on the calling thread). */
  spawn: (() => WorkerLike) | undefined;
  /** A prediction for the latest requested version of a document arrived (and is cached). */
  onResult: (uri: string, version: number, prediction: EditorPrediction) => void;
  onError?: (uri: string, message: string) => void;
  maxCandidates?: number;
  deadlineMs?: number;
}

interface Job {
  id: number;
  uri: string;
  version: number;
  input: EditorPredictInput;
  cancel: Int32Array;
}

/** The built worker script beside `dir` (the server bundle's folder), if there is one. */
export function builtWorker(dir: string): (() => WorkerLike) | undefined {
  const script = join(dir, PREDICT_WORKER_FILE);
  return existsSync(script) ? () => new Worker(script) : undefined;
}

export class PredictionService {
  private readonly cache = new Map<string, { version: number; prediction: EditorPrediction | undefined }>();
  /** The latest version asked for, per document: only its result is kept. */
  private readonly latest = new Map<string, number>();
  private readonly queue = new Map<string, Job>();
  private running: Job | undefined;
  private worker: WorkerLike | undefined;
  private nextId = 1;
  /** The thread the last reply came from (tests: not the main thread). */
  lastThreadId: number | undefined;

  constructor(private readonly o: PredictionServiceOptions) {}

  /** The cached prediction of exactly this version; never waits. */
  get(uri: string, version: number): EditorPrediction | undefined {
    const hit = this.cache.get(uri);
    return hit && hit.version === version ? hit.prediction : undefined;
  }

  /** Whether a job is queued or running. */
  get busy(): boolean {
    return this.running !== undefined || this.queue.size > 0;
  }

  /** Asks for a version's prediction (no-op when cached, running or queued); an older job of the document is cancelled. */
  request(uri: string, version: number, input: EditorPredictInput): void {
    if (!this.o.spawn) return;
    if (this.cache.get(uri)?.version === version || this.latest.get(uri) === version) return;
    this.latest.set(uri, version);
    if (this.running?.uri === uri) Atomics.store(this.running.cancel, 0, 1);
    this.queue.set(uri, { id: this.nextId++, uri, version, input, cancel: new Int32Array(new SharedArrayBuffer(4)) });
    this.pump();
  }

  forget(uri: string): void {
    if (this.running?.uri === uri) Atomics.store(this.running.cancel, 0, 1);
    this.queue.delete(uri);
    this.cache.delete(uri);
    this.latest.delete(uri);
  }

  /** Settings or snapshots changed: every prediction is stale. */
  clear(): void {
    if (this.running) Atomics.store(this.running.cancel, 0, 1);
    this.queue.clear();
    this.cache.clear();
    this.latest.clear();
  }

  dispose(): void {
    this.clear();
    const w = this.worker;
    this.worker = undefined;
    this.running = undefined;
    if (w) void w.terminate();
  }

  private pump(): void {
    if (this.running) return;
    const [uri, job] = this.queue.entries().next().value ?? [];
    if (!uri || !job) {
      this.worker?.unref?.();
      return;
    }
    this.queue.delete(uri);
    this.running = job;
    const w = this.workerNow();
    w.ref?.();
    const deadlineMs = this.o.deadlineMs ?? 2000;
    w.postMessage({ id: job.id, input: job.input, maxCandidates: this.o.maxCandidates ?? 40, deadlineMs, cancel: job.cancel.buffer as SharedArrayBuffer });
  }

  private workerNow(): WorkerLike {
    if (this.worker) return this.worker;
    const w = this.o.spawn!();
    this.worker = w;
    w.on('message', (m: PredictReply) => this.settle(m));
    w.on('error', (e: Error) => {
      if (this.running) this.o.onError?.(this.running.uri, e.message);
    });
    w.on('exit', () => {
      if (this.worker !== w) return;
      // A worker that dies takes only its current job with it; the next job starts a new one.
      this.worker = undefined;
      const lost = this.running;
      this.running = undefined;
      if (lost && this.latest.get(lost.uri) === lost.version) this.latest.delete(lost.uri);
      this.pump();
    });
    return w;
  }

  private settle(m: PredictReply): void {
    const job = this.running;
    if (!job || m.id !== job.id) return;
    this.running = undefined;
    this.lastThreadId = m.threadId;
    // A stale version's result (the document moved on, or was closed) is dropped.
    if (this.latest.get(job.uri) === job.version) {
      this.cache.set(job.uri, { version: job.version, prediction: m.prediction });
      if (m.error) this.o.onError?.(job.uri, m.error);
      else if (m.prediction) this.o.onResult(job.uri, job.version, m.prediction);
    }
    this.pump();
  }
}
