// Finds help snapshots in a `--help-dir` folder and merges each framework's server snapshots into one catalog.
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameworkKey } from '../frameworks/types';
import { classifySnapshotFile } from './classify';
import { parseHelp } from './parse';
import type { FlagCatalog, HelpOption, SnapshotFile } from './types';

// Larger files are read only this far; no real help text comes near it.
const MAX_READ_BYTES = 8 * 1024 * 1024;

/**
 * Help snapshots directly in `dir` (not its subfolders): regular `*.txt` files whose name
 * `classifySnapshotFile` recognises, sorted by file name. Provenance notes (`SOURCE.md`) and other
 * files are skipped. Client (benchmark) snapshots are listed too, with role `client`.
 */
export function discoverSnapshots(dir: string): SnapshotFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: SnapshotFile[] = [];
  for (const name of [...names].sort()) {
    if (!name.toLowerCase().endsWith('.txt')) continue;
    const cls = classifySnapshotFile(name);
    if (!cls) continue;
    const path = join(dir, name);
    try {
      if (!statSync(path).isFile()) continue;
    } catch {
      continue;
    }
    out.push({ path, framework: cls.framework, role: cls.role });
  }
  return out;
}

export function readHelpFile(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(statSync(path).size, MAX_READ_BYTES));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function cloneOption(o: HelpOption): HelpOption {
  const c: HelpOption = { ...o, names: [...o.names], negations: [...o.negations] };
  if (o.choices) c.choices = [...o.choices];
  if (o.tags) c.tags = [...o.tags];
  return c;
}

/**
 * One catalog holding every option of `catalogs` (TokenSpeed splits its flags over two files).
 * The first catalog that lists an option describes it; later ones only add names.
 */
export function mergeCatalogs(catalogs: FlagCatalog[]): FlagCatalog | undefined {
  const first = catalogs[0];
  if (!first) return undefined;
  const options: HelpOption[] = [];
  const byName = new Map<string, HelpOption>();
  for (const cat of catalogs) {
    for (const o of cat.options) {
      const all = [...o.names, ...o.negations];
      const known = all.map((n) => byName.get(n)).find((k) => k !== undefined);
      const target = known ?? cloneOption(o);
      if (!known) options.push(target);
      for (const n of o.names) if (!target.names.includes(n)) target.names.push(n);
      for (const n of o.negations) if (!target.negations.includes(n)) target.negations.push(n);
      for (const n of all) byName.set(n, target);
    }
  }
  const strings = new Set(catalogs.flatMap((c) => c.optionStrings));
  const merged: FlagCatalog = {
    framework: first.framework,
    role: first.role,
    format: catalogs.find((c) => !c.groupedSummaryOnly)?.format ?? first.format,
    options,
    optionStrings: [...strings].sort(),
    // One full listing is enough to know the flags; only summaries alone leave them unknown.
    groupedSummaryOnly: catalogs.every((c) => c.groupedSummaryOnly),
  };
  const prog = catalogs.find((c) => c.prog !== undefined)?.prog;
  if (prog !== undefined) merged.prog = prog;
  return merged;
}

/** Server snapshots of `dir`, parsed and merged per framework. Unreadable files are skipped. */
export function loadServerCatalogs(dir: string): Map<FrameworkKey, { files: string[]; catalog: FlagCatalog }> {
  const grouped = new Map<FrameworkKey, { files: string[]; catalogs: FlagCatalog[] }>();
  for (const snap of discoverSnapshots(dir)) {
    if (snap.role !== 'server') continue;
    let text: string;
    try {
      text = readHelpFile(snap.path);
    } catch {
      continue;
    }
    const catalog = parseHelp(text, { framework: snap.framework, role: 'server', fileName: snap.path });
    const entry = grouped.get(snap.framework) ?? { files: [], catalogs: [] };
    entry.files.push(snap.path);
    entry.catalogs.push(catalog);
    grouped.set(snap.framework, entry);
  }
  const out = new Map<FrameworkKey, { files: string[]; catalog: FlagCatalog }>();
  for (const [fw, { files, catalogs }] of grouped) {
    const catalog = mergeCatalogs(catalogs);
    if (catalog) out.set(fw, { files, catalog });
  }
  return out;
}
