// Turns a folder of captured --help texts into the per-framework flag sets validation checks against.
import { basename, dirname } from 'node:path';
import { FRAMEWORKS } from '../frameworks/types';
import { captureProblem, catalogToFlagSpecs, flagMentions, mergeCatalogs, parseHelp, readHelpFile, readServerCaptures } from '../help';
import type { FlagCatalog, IgnoredCapture } from '../help';
import type { FrameworkKey } from '../frameworks/types';
import type { KnownFlags, SnapshotFlags } from './known-flags';

export interface LoadedSnapshots {
  flags: SnapshotFlags;
  /** Frameworks for which the folder held no usable server snapshot (they use the built-in table). */
  missing: string[];
  /** Captures naming no option (failed captures), left out. */
  ignored: IgnoredCapture[];
}

export type { IgnoredCapture } from '../help';

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

/**
 * Reads named help files per framework (a plan's `version_manifest.<fw>.server_help`, a preflight
 * capture). Unreadable files are listed, not thrown; files naming no option are left out.
 */
export function loadSnapshotFiles(files: Partial<Record<FrameworkKey, string[]>>): { flags: SnapshotFlags; unreadable: string[]; ignored: IgnoredCapture[] } {
  const flags: SnapshotFlags = {};
  const unreadable: string[] = [];
  const ignored: IgnoredCapture[] = [];
  for (const fw of FRAMEWORKS) {
    const catalogs: FlagCatalog[] = [];
    const used: string[] = [];
    for (const path of files[fw] ?? []) {
      let text: string;
      try {
        text = readHelpFile(path);
      } catch {
        unreadable.push(path);
        continue;
      }
      const why = captureProblem(text);
      if (why) ignored.push({ path, framework: fw, why });
      else {
        catalogs.push(parseHelp(text, { framework: fw, role: 'server', fileName: path }));
        used.push(path);
      }
    }
    const merged = mergeCatalogs(catalogs);
    if (merged) flags[fw] = knownFromCatalog(fw, used, merged, dirname(used[0] ?? ''));
  }
  return { flags, unreadable, ignored };
}

/** Reads every server snapshot in `dir`; frameworks without one keep the built-in table. */
export function loadSnapshotFlags(dir: string): LoadedSnapshots {
  const { catalogs, ignored } = readServerCaptures(dir);
  const mentions = flagMentions(dir);
  const flags: SnapshotFlags = {};
  const missing: string[] = [];
  for (const fw of FRAMEWORKS) {
    const entry = catalogs.get(fw);
    if (!entry) {
      missing.push(fw);
      continue;
    }
    const mentioned = mentions.get(fw);
    flags[fw] = { ...knownFromCatalog(fw, entry.files, entry.catalog, dir), ...(mentioned ? { mentioned } : {}) };
  }
  return { flags, missing, ignored };
}
