// Turns a folder of captured --help texts into the per-framework flag sets validation checks against.
import { basename, dirname } from 'node:path';
import { FRAMEWORKS } from '../frameworks/types';
import { catalogToFlagSpecs, loadServerCatalogs } from '../help';
import type { KnownFlags, SnapshotFlags } from './known-flags';

export interface LoadedSnapshots {
  flags: SnapshotFlags;
  /** Frameworks for which the folder held no server snapshot (they use the built-in table). */
  missing: string[];
}

/** Reads every server snapshot in `dir`; frameworks without one keep the built-in table. */
export function loadSnapshotFlags(dir: string): LoadedSnapshots {
  const catalogs = loadServerCatalogs(dir);
  const flags: SnapshotFlags = {};
  const missing: string[] = [];
  for (const fw of FRAMEWORKS) {
    const entry = catalogs.get(fw);
    if (!entry) {
      missing.push(fw);
      continue;
    }
    const known: KnownFlags = {
      framework: fw,
      source: 'snapshot',
      files: entry.files,
      label: `snapshot ${basename(dirname(entry.files[0] ?? dir))}/${entry.files.map((f) => basename(f)).join('+')}`,
      groupedSummaryOnly: entry.catalog.groupedSummaryOnly,
      flags: catalogToFlagSpecs(entry.catalog, fw),
    };
    flags[fw] = known;
  }
  return { flags, missing };
}
