// The workspace's calibration store (`.autobench/calibration.json`): per (GPU, framework, version) the measured candidates' fitted speed factors, reused by later predictions and runs.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FrameworkKey } from '../core/frameworks/types';
import type { CalibrationPoint } from './calibration';

export const STORE_VERSION = 1;
/** Where a workspace keeps its calibration, relative to the workspace folder. */
export const DEFAULT_STORE = '.autobench/calibration.json';

export interface StoreEntry {
  gpu: string;
  framework: FrameworkKey;
  version: string;
  /** Fitted on the simulated engine: never mixed with a GPU's. */
  simulated: boolean;
  points: CalibrationPoint[];
  updated_at: string;
  /** Run ids (or directories) the points came from. */
  sources: string[];
}

export interface CalibrationStore {
  version: typeof STORE_VERSION;
  entries: StoreEntry[];
}

export interface StoreKey {
  gpu: string;
  framework: FrameworkKey;
  version: string;
  simulated: boolean;
}

const same = (e: StoreEntry, k: StoreKey): boolean => e.gpu === k.gpu && e.framework === k.framework && e.version === k.version && e.simulated === k.simulated;

/** The store at `path`; an empty one when the file does not exist. A file that is not a store is an error naming it. */
export function loadStore(path: string): CalibrationStore {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { version: STORE_VERSION, entries: [] };
    throw e;
  }
  const j = JSON.parse(text) as Partial<CalibrationStore>;
  if (j.version !== STORE_VERSION || !Array.isArray(j.entries)) throw new Error(`${path}: not an autobench calibration store (version ${STORE_VERSION}); delete it or pass another --calibration file`);
  return j as CalibrationStore;
}

export function pointsFor(store: CalibrationStore, k: StoreKey): CalibrationPoint[] {
  return store.entries.find((e) => same(e, k))?.points ?? [];
}

/** Merges points into the entry of `k`: a point replaces an earlier one with the same flags. */
export function mergePoints(store: CalibrationStore, k: StoreKey, points: readonly CalibrationPoint[], source: string): void {
  let e = store.entries.find((x) => same(x, k));
  if (!e) store.entries.push((e = { ...k, points: [], updated_at: '', sources: [] }));
  for (const p of points) {
    const key = p.features.join('\u0000');
    e.points = [...e.points.filter((q) => q.features.join('\u0000') !== key), p];
  }
  e.updated_at = new Date().toISOString();
  if (!e.sources.includes(source)) e.sources.push(source);
}

/** Writes the store atomically (a temporary file renamed over it). */
export function saveStore(path: string, store: CalibrationStore): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(store, null, 2)}\n`);
  renameSync(tmp, path);
}
