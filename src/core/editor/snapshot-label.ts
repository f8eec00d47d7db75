// Short human names for the flag sources in force ("vLLM 0.20.1", "SGLang main 2026-07-18", "TokenSpeed built-in table (0.1.0)"), and the status bar's label.
import { basename, dirname } from 'node:path';
import { frameworkSpec } from '../frameworks';
import { FRAMEWORKS } from '../frameworks/types';
import { knownFlagsFor, type KnownFlags, type SnapshotFlags } from '../config/known-flags';
import type { PlaybookModel } from '../config/model';

/** A version read off a snapshot folder's name: `v0.20.1` -> `0.20.1`, `main-2026-07-18-ece02ffc9` -> `main 2026-07-18`. */
export function versionFromFolder(folder: string): string {
  const v = /^v?(\d+\.\d+[\w.+-]*)$/.exec(folder);
  if (v) return v[1] ?? folder;
  const main = /^(main|initial-release)-(\d{4}-\d{2}-\d{2})/.exec(folder);
  if (main) return `${main[1]} ${main[2]}`;
  const dev = /^(\d+\.\d+[\w.]*?)-[0-9a-f]{7,}$/.exec(folder);
  if (dev) return dev[1] ?? folder;
  return folder;
}

const isBuiltin = (known: KnownFlags): boolean => known.source === 'builtin' || known.files.length === 0;

/** The framework and the version whose `--help` the built-in table follows: "vLLM 0.20.1". */
function builtinVersionLabel(known: KnownFlags): string {
  const spec = frameworkSpec(known.framework);
  return `${spec.displayName} ${spec.builtinVersion}`;
}

export function sourceLabel(known: KnownFlags): string {
  const spec = frameworkSpec(known.framework);
  if (isBuiltin(known)) return `${spec.displayName} built-in table (${spec.builtinVersion})`;
  const first = known.files[0] ?? '';
  return `${spec.displayName} ${versionFromFolder(basename(dirname(first)))}`;
}

/**
 * The status bar's text for the flag sources of the frameworks a config uses: snapshots by version, then the frameworks
 * on the built-in table with the versions that table follows ("flags: vLLM 0.6.6 · built-in table (SGLang main 2026-07-18)").
 */
export function flagSourcesLabel(known: readonly KnownFlags[]): string {
  const snapshots = known.filter((k) => !isBuiltin(k)).map(sourceLabel);
  const builtin = known.filter(isBuiltin).map(builtinVersionLabel);
  const parts = [...snapshots, ...(builtin.length ? [`built-in table (${builtin.join(', ')})`] : [])];
  return `flags: ${parts.join(' · ')}`;
}

/** The status bar's text for a checked config: the flag sources of the frameworks it runs (all four when it runs none). */
export function configFlagSourcesLabel(model: PlaybookModel, snapshots: SnapshotFlags | undefined): string {
  const used = new Set(model.frameworks.filter((s) => s.enabled && !s.userExcluded).map((s) => s.framework));
  const shown = used.size ? FRAMEWORKS.filter((fw) => used.has(fw)) : FRAMEWORKS;
  return flagSourcesLabel(shown.map((fw) => knownFlagsFor(fw, snapshots)));
}

/** Where a flag's facts come from, for hovers: which file, or that no snapshot applies. */
export function sourceDetail(known: KnownFlags): string {
  if (known.source === 'builtin') {
    return `from the built-in flag table (${builtinVersionLabel(known)}): no \`--help\` snapshot applies (set \`autobench.snapshots.helpDir\`, a \`# autobench: help-dir=\` modeline, or \`version_manifest\` help paths)`;
  }
  return `from ${sourceLabel(known)} (\`${known.files.map((f) => basename(f)).join('`, `')}\`)`;
}
