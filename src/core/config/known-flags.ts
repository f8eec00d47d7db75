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
  /**
   * Flag names the snapshot folder mentions anywhere (the playbook validator's reading: any `--name` in a file whose
   * name holds the framework's words), with the file: a key found only here is accepted, with a warning.
   */
  mentioned?: ReadonlyMap<string, string>;
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

/**
 * The file that mentions a config key's flag as the playbook's validator spells it (`--max-running-requests`;
 * TensorRT-LLM's key as written), in either spelling, if any (KnownFlags.mentioned).
 */
export function mentionOf(known: KnownFlags, key: string): string | undefined {
  const names = known.mentioned;
  if (!names) return undefined;
  const concrete = known.framework === 'tensorrt_llm' ? key : key.replace(/_/g, '-');
  for (const n of [concrete, concrete.replace(/-/g, '_'), concrete.replace(/_/g, '-')]) {
    const file = names.get(n);
    if (file) return file;
  }
  return undefined;
}

/** The flag a config key names, accepting `_`/`-` spellings and aliases. */
export function findFlag(known: KnownFlags, key: string): FlagSpec | undefined {
  return indexOf(known.flags).get(norm(key));
}

/** Every spelling the known flags accept, for "did you mean" suggestions. */
export function allKeys(known: KnownFlags): string[] {
  return [...indexOf(known.flags).keys()];
}

/** Damerau-Levenshtein distance, bounded: returns max+1 as soon as it is exceeded. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (prev2[j - 2] ?? 0) + 1);
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length] ?? max + 1;
}

/**
 * Flags the known set accepts in place of an unknown key: the same flag under another name
 * (an alias the built-in table links, e.g. across CLI versions), then near spellings (typos).
 */
export function suggestFlags(known: KnownFlags, key: string, otherNames: readonly string[] = []): string[] {
  const out: string[] = [];
  const style = (name: string) => (known.framework === 'tensorrt_llm' ? name.replace(/^-+/, '') : norm(name));
  for (const name of otherNames) {
    const f = findFlag(known, name);
    if (f && !out.includes(f.key)) out.push(style(f.key));
  }
  const target = norm(key);
  const max = target.length <= 6 ? 1 : 2;
  const near = known.flags
    .map((f) => ({ key: f.key, d: Math.min(...[f.key, ...(f.aliases ?? [])].map((n) => editDistance(target, norm(n), max))) }))
    .filter((x) => x.d <= max)
    .sort((a, b) => a.d - b.d || a.key.localeCompare(b.key));
  for (const n of near) if (!out.includes(style(n.key))) out.push(style(n.key));
  return out.slice(0, 3);
}
