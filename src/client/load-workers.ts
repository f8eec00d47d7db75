// How many threads measure a run, and how one is started: `workers` asked or chosen by the expected chunk rate and the cores here; the thread runs dist/load-worker.js beside this bundle, else the bundle that registered itself (client-node.js on a host), else the source through tsx (tests).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { runLoadWorker } from './load-worker';

/**
 * Chunks per second one thread times well: at 10 ms gaps one thread's p99 ITL error stays under 4 ms up to about
 * 512 streams (51 k chunks/s; bench:client, 2-core box), so `auto` adds a thread per 40 k.
 */
export const CHUNKS_PER_WORKER = 40_000;
/** Decode gap assumed when the rate of chunks can only be told from the streams held (rate inf under a cap). */
export const ASSUMED_ITL_MS = 10;
/** More threads than this buy nothing: the server's chunks are the limit long before. */
export const MAX_WORKERS = 16;

/** What the run's load lets one tell of its chunk rate before it starts. */
export interface ExpectedLoad {
  requestRate: number;
  cap: number | null;
  requests: number;
  meanOutputTokens: number;
}

/** Chunks per second the run may bring: rate × output tokens, or the streams held at one chunk per ASSUMED_ITL_MS, the lower of the two. */
export function expectedChunkRate(l: ExpectedLoad): number {
  const byRate = Number.isFinite(l.requestRate) ? l.requestRate * l.meanOutputTokens : Infinity;
  const streams = Math.min(l.cap ?? Infinity, l.requests);
  return Math.min(byRate, streams * (1000 / ASSUMED_ITL_MS));
}

/** Cores the client may use: all of them, less one when the server is on this machine (a loopback base URL). */
export function clientCores(loopback: boolean, cores = availableParallelism()): number {
  return Math.max(1, cores - (loopback ? 1 : 0));
}

/** The threads to use: a number asked is kept (at most MAX_WORKERS); 'auto' adds one per CHUNKS_PER_WORKER up to the cores. */
export function chooseWorkers(asked: number | 'auto' | undefined, chunkRate: number, cores: number): number {
  if (typeof asked === 'number') return Math.max(1, Math.min(MAX_WORKERS, Math.floor(asked)));
  return Math.max(1, Math.min(cores, MAX_WORKERS, Math.ceil(chunkRate / CHUNKS_PER_WORKER)));
}

/** The bundle that started a load worker in itself (client-node.js), set by startLoadWorkerIfAsked on the main thread. */
let selfScript: string | undefined;

const MARK = 'autobenchLoadWorker';
export const WORKER_BUNDLE = 'load-worker.js';

/** How to start a worker thread: a file, or code to eval; undefined when this build has no worker script. */
export type WorkerSpawn = { file: string; eval: false; workerData: Record<string, unknown> } | { file: string; eval: true; workerData: Record<string, unknown> };

export function loadWorkerSpawn(): WorkerSpawn | undefined {
  const workerData = { [MARK]: 1 };
  if (__filename.endsWith('.ts')) {
    const entry = join(__dirname, 'load-worker-main.ts');
    const tsx = createRequire(__filename).resolve('tsx/cjs');
    const code = `require(${JSON.stringify(tsx)}); require(${JSON.stringify(entry)});`;
    return { file: code, eval: true, workerData };
  }
  const beside = join(__dirname, WORKER_BUNDLE);
  if (existsSync(beside)) return { file: beside, eval: false, workerData };
  return selfScript ? { file: selfScript, eval: false, workerData } : undefined;
}

/**
 * Call first in an entry point that may start load workers in its own file: in a load worker it runs the worker and
 * says true (the entry must do nothing else); on the main thread it registers the file and says false.
 */
export function startLoadWorkerIfAsked(): boolean {
  if (isMainThread) {
    selfScript = __filename;
    return false;
  }
  const data = workerData as Record<string, unknown> | null;
  if (!parentPort || !data || data[MARK] !== 1) return false;
  runLoadWorker(parentPort);
  return true;
}
