// Which server flags a framework accepts: its captured --help snapshot when one applies, else the built-in table.
import type { FlagSpec, FrameworkKey } from '../frameworks/types';
import { frameworkSpec } from '../frameworks';

export interface KnownFlags {
  framework: FrameworkKey;
  source: 'builtin' | 'snapshot';
  /** Snapshot files the flags come from (empty for the built-in table). */
  files: string[];
  /** Human label for hovers and status: "built-in table" or the snapshot's folder/version. */
  label: string;
  /** The snapshot is vLLM's grouped summary and lists no options. */
  groupedSummaryOnly: boolean;
  flags: FlagSpec[];
}

/** Per framework, the snapshot flags in force (frameworks absent here use the built-in table). */
export type SnapshotFlags = Partial<Record<FrameworkKey, KnownFlags>>;

export function builtinKnownFlags(fw: FrameworkKey): KnownFlags {
  return { framework: fw, source: 'builtin', files: [], label: 'built-in table', groupedSummaryOnly: false, flags: frameworkSpec(fw).builtinFlags };
}

export function knownFlagsFor(fw: FrameworkKey, snapshots: SnapshotFlags | undefined): KnownFlags {
  return snapshots?.[fw] ?? builtinKnownFlags(fw);
}

function norm(key: string): string {
  return key.replace(/^-+/, '').replace(/-/g, '_');
}

const indexCache = new WeakMap<FlagSpec[], Map<string, FlagSpec>>();

function indexOf(flags: FlagSpec[]): Map<string, FlagSpec> {
  let idx = indexCache.get(flags);
  if (!idx) {
    idx = new Map();
    for (const f of flags) {
      for (const k of [f.key, ...(f.aliases ?? [])]) if (!idx.has(norm(k))) idx.set(norm(k), f);
    }
    indexCache.set(flags, idx);
  }
  return idx;
}

/** The flag a config key names, accepting `_`/`-` spellings and aliases. */
export function findFlag(known: KnownFlags, key: string): FlagSpec | undefined {
  return indexOf(known.flags).get(norm(key));
}

/** Every spelling the known flags accept, for "did you mean" suggestions. */
export function allKeys(known: KnownFlags): string[] {
  return [...indexOf(known.flags).keys()];
}
