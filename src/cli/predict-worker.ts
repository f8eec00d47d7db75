// The worker thread of `autobench predict` (bundled as dist/predict-worker.js): predicts one file per message, so files run on several cores.
import { parentPort } from 'node:worker_threads';
import { predictFile } from '../predict/folder';
import { jobOptions, type PredictJob, type PredictReply } from './predict-pool';

parentPort?.on('message', (job: PredictJob) => {
  let reply: PredictReply;
  try {
    reply = { index: job.index, outcome: predictFile(job.file, jobOptions(job)) };
  } catch (e) {
    reply = { index: job.index, error: (e as Error).message ?? String(e), stack: (e as Error).stack };
  }
  parentPort?.postMessage(reply);
});
