// Turns a folder of captured --help texts into the per-framework flag sets validation checks against.
import { basename, dirname } from 'node:path';
import { FRAMEWORKS } from '../frameworks/types';
import { catalogToFlagSpecs, loadServerCatalogs, mergeCatalogs, parseHelp, readHelpFile } from '../help';
import type { FlagCatalog } from '../help';
import type { FrameworkKey } from '../frameworks/types';
import type { KnownFlags, SnapshotFlags } from './known-flags';

export interface LoadedSnapshots {
  flags: SnapshotFlags;
  /** Frameworks for which the folder held no server snapshot (they use the built-in table). */
  missing: string[];
}

function knownFromCatalog(fw: FrameworkKey, files: string[], catalog: FlagCatalog, dir: string): KnownFlags {
  return {
    framework: fw,
    source: 'snapshot',
    files,
    label: `snapshot ${basename(dirname(files[0] ?? dir))}/${files.map((f) => basename(f)).join('+')}`,
    groupedSummaryOnly: catalog.groupedSummaryOnly,
    flags: catalogToFlagSpecs(catalog, fw),
  };
}

/** Reads named help files per framework (a plan's `version_manifest.<fw>.server_help`). Unreadable files are listed, not thrown. */
export function loadSnapshotFiles(files: Partial<Record<FrameworkKey, string[]>>): { flags: SnapshotFlags; unreadable: string[] } {
  const flags: SnapshotFlags = {};
  const unreadable: string[] = [];
  for (const fw of FRAMEWORKS) {
    const paths = files[fw];
    if (!paths?.length) continue;
    const catalogs: FlagCatalog[] = [];
    const used: string[] = [];
    for (const p of paths) {
      try {
        catalogs.push(parseHelp(readHelpFile(p), { framework: fw, role: 'server', fileName: p }));
        used.push(p);
      } catch {
        unreadable.push(p);
      }
    }
    const merged = mergeCatalogs(catalogs);
    if (merged) flags[fw] = knownFromCatalog(fw, used, merged, dirname(used[0] ?? ''));
  }
  return { flags, unreadable };
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
    flags[fw] = knownFromCatalog(fw, entry.files, entry.catalog, dir);
  }
  return { flags, missing };
}
