// Predicts many files on several cores: worker threads (dist/predict-worker.js) take one file at a time; results come back in file order.
// Without the built worker beside this module (tests run from source) or with one job, files are predicted in this thread.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CalibrationInput } from '../predict/calibrated';
import { predictFile, type FileOutcome, type PredictFileOptions } from '../predict/folder';
import type { AtSpec } from '../predict/at';
import type { EfficiencyTerm } from '../sim/efficiency';

export interface PredictJob {
  index: number;
  file: string;
  gpu?: string;
  calibration?: CalibrationInput;
  efficiency?: EfficiencyTerm[];
  at?: AtSpec;
}

/** What predictFiles passes on to every file's job. */
export type PoolOptions = Omit<PredictJob, 'index' | 'file'>;

/** The predictFile options a job carries. */
export function jobOptions(job: PredictJob): PredictFileOptions {
  return { ...(job.gpu !== undefined ? { gpu: job.gpu } : {}), ...(job.calibration ? { calibration: job.calibration } : {}), ...(job.efficiency ? { efficiency: job.efficiency } : {}), ...(job.at ? { at: job.at } : {}) };
}

export type PredictReply = { index: number; outcome: FileOutcome } | { index: number; error: string; stack?: string | undefined };

/** A file's result, or the bug that stopped it (reported as an internal error). */
export type PoolResult = { outcome: FileOutcome } | { error: string; stack?: string | undefined };

export const WORKER_FILE = 'predict-worker.js';

/** The built worker script, when this module runs from the bundle. */
function workerScript(): string | undefined {
  const p = join(__dirname, WORKER_FILE);
  return existsSync(p) ? p : undefined;
}

function inThread(job: PredictJob): PoolResult {
  try {
    return { outcome: predictFile(job.file, jobOptions(job)) };
  } catch (e) {
    return { error: (e as Error).message ?? String(e), stack: (e as Error).stack };
  }
}

/**
 * Predicts `files` with up to `jobs` workers; `onResult` sees each file's result in file order, as soon as it
 * and every file before it are done (so output streams in a stable order).
 */
export async function predictFiles(files: readonly string[], o: PoolOptions & { jobs: number; onResult: (index: number, r: PoolResult) => void }): Promise<PoolResult[]> {
  const jobs: PredictJob[] = files.map((file, index) => ({ index, file, ...jobOptions({ index, file, ...o }) }));
  const results: Array<PoolResult | undefined> = files.map(() => undefined);
  let flushed = 0;
  const done = (index: number, r: PoolResult): void => {
    results[index] = r;
    while (flushed < results.length && results[flushed] !== undefined) {
      o.onResult(flushed, results[flushed] as PoolResult);
      flushed++;
    }
  };
  const script = workerScript();
  const n = Math.min(o.jobs, jobs.length);
  if (!script || n <= 1) {
    for (const job of jobs) {
      done(job.index, inThread(job));
      // Let stdout drain between files (a long folder's table streams rather than arriving at the end).
      await new Promise((r) => setImmediate(r));
    }
  } else await inWorkers(script, jobs, n, done);
  return results as PoolResult[];
}

function inWorkers(script: string, jobs: readonly PredictJob[], n: number, done: (index: number, r: PoolResult) => void): Promise<void> {
  let next = 0;
  let left = jobs.length;
  return new Promise((resolve) => {
    const start = (): void => {
      const w = new Worker(script);
      let current: PredictJob | undefined;
      const feed = (): void => {
        current = jobs[next++];
        if (current) w.postMessage(current);
        else void w.terminate();
      };
      const finish = (index: number, r: PoolResult): void => {
        done(index, r);
        if (--left === 0) resolve();
      };
      w.on('message', (m: PredictReply) => {
        finish(m.index, 'outcome' in m ? { outcome: m.outcome } : { error: m.error, stack: m.stack });
        feed();
      });
      // A worker that dies takes only its current file with it: the file is reported and a new worker goes on.
      let failure: Error | undefined;
      w.on('error', (e) => (failure = e));
      w.on('exit', (code) => {
        const lost = current;
        current = undefined;
        if (!lost) return;
        finish(lost.index, { error: failure?.message ?? `the worker thread exited with code ${code}`, stack: failure?.stack });
        if (next < jobs.length) start();
      });
      feed();
    };
    for (let i = 0; i < n; i++) start();
  });
}
