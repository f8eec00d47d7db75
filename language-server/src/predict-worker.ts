// The language server's predict worker (bundled as dist/server-predict-worker.js, a worker thread): predicts one config text per message, off the server's event loop.
import { parentPort, threadId } from 'node:worker_threads';
import { predictForEditor } from '../../src/predict/editor';
import type { PredictReply, PredictRequest } from './predictions';

parentPort?.on('message', (job: PredictRequest) => {
  const cancel = new Int32Array(job.cancel);
  let reply: PredictReply;
  try {
    const prediction = predictForEditor(job.input, { maxCandidates: job.maxCandidates, deadlineMs: job.deadlineMs, cancelled: () => Atomics.load(cancel, 0) !== 0 });
    reply = { id: job.id, threadId, ...(prediction ? { prediction } : {}) };
  } catch (e) {
    reply = { id: job.id, threadId, error: (e as Error).message ?? String(e) };
  }
  parentPort?.postMessage(reply);
});
