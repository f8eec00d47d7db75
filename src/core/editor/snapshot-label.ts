// Short human names for the flag sources in force ("vLLM 0.20.1", "SGLang main 2026-07-18", "built-in table").
import { basename, dirname } from 'node:path';
import { frameworkSpec } from '../frameworks';
import type { KnownFlags } from '../config/known-flags';

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

export function sourceLabel(known: KnownFlags): string {
  const name = frameworkSpec(known.framework).displayName;
  if (known.source === 'builtin' || known.files.length === 0) return `${name} built-in table`;
  const first = known.files[0] ?? '';
  return `${name} ${versionFromFolder(basename(dirname(first)))}`;
}

/** Where a flag's facts come from, for hovers: which file, or that no snapshot applies. */
export function sourceDetail(known: KnownFlags): string {
  if (known.source === 'builtin') {
    return 'from the built-in flag table: no `--help` snapshot applies (set `autobench.helpDir`, a `# autobench: help-dir=` modeline, or `version_manifest` help paths)';
  }
  return `from ${sourceLabel(known)} (\`${known.files.map((f) => basename(f)).join('`, `')}\`)`;
}
