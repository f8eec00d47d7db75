// The simulated engine model's measured error on published GPU measurements (bench:predict-published --write keeps
// model-error.json), said next to every prediction: a prediction is never shown as more certain than that.
import { join } from 'node:path';
import stored from './model-error.json';

/** The uncalibrated model against the corpus in test/fixtures/published/. */
export interface ModelError {
  /** The day it was measured (YYYY-MM-DD), and the corpus it was measured on. */
  measured: string;
  corpus_digest: string;
  points: number;
  sources: number;
  median_abs_error: number;
  /** The error as a relative sd (median |ln(predicted / published)| / 0.6745): what an uncalibrated prediction is trusted to. */
  rel_sd: number;
  /** The median predicted / published latency: below 1, latencies are predicted too fast. */
  latency_ratio: number | null;
  within_25: number;
}

/** Where the bench writes it (from the repository root). */
export const MODEL_ERROR_FILE = join('src', 'predict', 'model-error.json');

export const MODEL_ERROR: ModelError = stored;

/** The figures in words: what the tables print (two lines) and the JSON carries (one). */
export function modelErrorLines(e: ModelError = MODEL_ERROR): [string, string] {
  const pct = (x: number): string => `${Math.round(x * 100)}%`;
  const lat = e.latency_ratio === null ? '' : `; latencies predicted ${pct(Math.abs(1 - e.latency_ratio))} too ${e.latency_ratio < 1 ? 'fast' : 'slow'} (median)`;
  return [`model error on published GPU data (uncalibrated; ${e.points} points from ${e.sources} sources, measured ${e.measured}):`, `  median ${pct(e.median_abs_error)}, ${pct(e.within_25)} of points within 25%${lat}`];
}

export function modelErrorText(e: ModelError = MODEL_ERROR): string {
  return modelErrorLines(e).map((l) => l.trim()).join(' ');
}
