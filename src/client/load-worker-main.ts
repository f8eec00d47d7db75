// Entry of dist/load-worker.js: a load-client worker thread (load-worker.ts) and nothing else.
import { startLoadWorkerIfAsked } from './load-workers';

startLoadWorkerIfAsked();
