// Reads the help captures of a `--help-dir` folder and merges each framework's server captures into one catalog; flag-less (failed) captures are left out.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { FrameworkKey } from '../frameworks/types';
import { discoverSnapshots } from './discover';
import { parseHelp } from './parse';
import type { FlagCatalog, HelpOption } from './types';

// Larger files are read only this far; no real help text comes near it.
const MAX_READ_BYTES = 8 * 1024 * 1024;

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

/** A capture that names no option at all (a failed capture): it is left out rather than read as "no flag exists". */
export interface IgnoredCapture {
  path: string;
  framework: FrameworkKey;
  /** `empty` (no text at all) or `no-flags` (text, but not one `--option` in it: an error message, say). */
  why: 'empty' | 'no-flags';
}

/**
 * Why a server capture says nothing about its flags, if it does not. The reference's test: not one
 * `--option` anywhere in the text (it then leaves the framework unrestricted).
 */
export function captureProblem(text: string): IgnoredCapture['why'] | undefined {
  if (text.trim() === '') return 'empty';
  return /--[A-Za-z0-9]/.test(text) ? undefined : 'no-flags';
}

export interface ServerCaptures {
  catalogs: Map<FrameworkKey, { files: string[]; catalog: FlagCatalog }>;
  ignored: IgnoredCapture[];
}

/**
 * Server captures under `dir`, parsed and merged per framework. Unreadable files are skipped; a
 * capture naming no option is listed in `ignored` and left out, as the reference leaves a framework
 * whose captures name no option unrestricted (read as a flag list, it would make every flag unknown).
 */
export function readServerCaptures(dir: string): ServerCaptures {
  const grouped = new Map<FrameworkKey, { files: string[]; catalogs: FlagCatalog[] }>();
  const ignored: IgnoredCapture[] = [];
  for (const snap of discoverSnapshots(dir)) {
    if (snap.role !== 'server') continue;
    let text: string;
    try {
      text = readHelpFile(snap.path);
    } catch {
      continue;
    }
    const why = captureProblem(text);
    if (why) {
      ignored.push({ path: snap.path, framework: snap.framework, why });
      continue;
    }
    const catalog = parseHelp(text, { framework: snap.framework, role: 'server', fileName: snap.path });
    const entry = grouped.get(snap.framework) ?? { files: [], catalogs: [] };
    entry.files.push(snap.path);
    entry.catalogs.push(catalog);
    grouped.set(snap.framework, entry);
  }
  const catalogs = new Map<FrameworkKey, { files: string[]; catalog: FlagCatalog }>();
  for (const [fw, { files, catalogs: list }] of grouped) {
    const catalog = mergeCatalogs(list);
    if (catalog) catalogs.set(fw, { files, catalog });
  }
  return { catalogs, ignored };
}

/** Server snapshots of `dir`, parsed and merged per framework (captures without flags left out). */
export function loadServerCatalogs(dir: string): Map<FrameworkKey, { files: string[]; catalog: FlagCatalog }> {
  return readServerCaptures(dir).catalogs;
}
