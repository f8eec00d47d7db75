// The one snapshot resolver: which --help snapshots apply to a config (an explicit folder, its modeline, a plan's version_manifest, a setting, or the built-in table), and loading them.
import { statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isPyMap } from '../py/value';
import type { PyValue } from '../py/value';
import { FRAMEWORKS, type FrameworkKey } from '../frameworks/types';
import type { SnapshotFlags } from './known-flags';
import { loadSnapshotFiles, loadSnapshotFlags } from './snapshot-flags';

export type SnapshotSource =
  | { kind: 'dir'; dir: string; from: 'explicit' | 'modeline' | 'setting' }
  | { kind: 'files'; files: Partial<Record<FrameworkKey, string[]>>; from: 'version_manifest' }
  | { kind: 'builtin' };

const MODELINE = /^#\s*autobench:\s*(.*)$/m;

/** `# autobench: help-dir=<path>` in the first lines of the file. */
export function modelineHelpDir(text: string): string | undefined {
  const head = text.slice(0, 4096);
  const m = MODELINE.exec(head);
  if (!m) return undefined;
  const opt = /(?:^|\s)help-dir=("[^"]*"|'[^']*'|\S+)/.exec(m[1] ?? '');
  return opt?.[1]?.replace(/^["']|["']$/g, '');
}

function resolveFrom(base: string, p: string, roots: string[], exists: (p: string) => boolean): string {
  if (isAbsolute(p)) return p;
  const candidates = [resolve(base, p), ...roots.map((r) => resolve(r, p))];
  return candidates.find(exists) ?? candidates[0] ?? p;
}

export interface SnapshotContext {
  /** Where the document is (relative paths in it resolve against its folder). */
  docPath: string | undefined;
  /** A folder the caller insists on (`--help-dir`): it wins over everything the document says. */
  explicitDir?: string;
  /** The workspace setting (`autobench.snapshots.helpDir`): used when the document names nothing. */
  settingHelpDir?: string;
  workspaceRoots?: string[];
  exists: (p: string) => boolean;
}

function manifestFiles(root: PyValue | undefined, base: string, roots: string[], exists: (p: string) => boolean): Partial<Record<FrameworkKey, string[]>> {
  const files: Partial<Record<FrameworkKey, string[]>> = {};
  const manifest = isPyMap(root) ? root.get('version_manifest') : undefined;
  if (!isPyMap(manifest)) return files;
  for (const fw of FRAMEWORKS) {
    const entry = manifest.get(fw);
    const help = isPyMap(entry) ? entry.get('server_help') : undefined;
    if (typeof help === 'string' && help) {
      const p = resolveFrom(base, help, roots, exists);
      if (exists(p)) files[fw] = [p];
    }
  }
  return files;
}

/**
 * The snapshot source for a config, in priority order: an explicit folder, the modeline, a plan's
 * `version_manifest.<fw>.server_help`, the workspace setting, else the built-in table.
 */
export function resolveSnapshotSource(text: string, root: PyValue | undefined, c: SnapshotContext): SnapshotSource {
  const roots = c.workspaceRoots ?? [];
  const base = c.docPath ? dirname(c.docPath) : (roots[0] ?? process.cwd());
  if (c.explicitDir) return { kind: 'dir', dir: resolve(c.explicitDir), from: 'explicit' };
  const mode = modelineHelpDir(text);
  if (mode) return { kind: 'dir', dir: resolveFrom(base, mode, roots, c.exists), from: 'modeline' };
  const files = manifestFiles(root, base, roots, c.exists);
  if (Object.keys(files).length > 0) return { kind: 'files', files, from: 'version_manifest' };
  if (c.settingHelpDir) {
    const dir = isAbsolute(c.settingHelpDir) ? c.settingHelpDir : resolve(roots[0] ?? base, c.settingHelpDir);
    return { kind: 'dir', dir, from: 'setting' };
  }
  return { kind: 'builtin' };
}

/** The editor's call shape: modeline > version_manifest > setting > built-in. */
export function snapshotSourceFor(text: string, root: PyValue | undefined, docPath: string | undefined, settingHelpDir: string, workspaceRoots: string[], exists: (p: string) => boolean): SnapshotSource {
  return resolveSnapshotSource(text, root, { docPath, settingHelpDir, workspaceRoots, exists });
}

export interface LoadedSource {
  flags: SnapshotFlags | undefined;
  /** Files and folders whose change invalidates what was loaded. */
  watched: string[];
  /** Why the source could not be used as a whole (the built-in table stands in). */
  problem?: string;
  /** Where the flag names are checked, in words. */
  note: string;
}

/** Reads the snapshots a source names; a missing folder or unreadable file is a problem, never a throw. */
export function loadSnapshotSource(src: SnapshotSource): LoadedSource {
  if (src.kind === 'builtin') return { flags: undefined, watched: [], note: 'built-in flag tables' };
  if (src.kind === 'dir') {
    let isDir = false;
    try {
      isDir = statSync(src.dir).isDirectory();
    } catch {
      /* reported below */
    }
    if (!isDir) return { flags: undefined, watched: [resolve(src.dir)], problem: `help folder ${src.dir} does not exist; using the built-in flag table`, note: 'built-in flag tables' };
    return { flags: loadSnapshotFlags(src.dir).flags, watched: [resolve(src.dir)], note: `snapshots in ${src.dir} (${src.from})` };
  }
  const loaded = loadSnapshotFiles(src.files);
  const out: LoadedSource = { flags: loaded.flags, watched: Object.values(src.files).flat().map((f) => resolve(f)), note: `version_manifest server_help (${Object.keys(loaded.flags).join(', ')})` };
  if (loaded.unreadable.length) out.problem = `cannot read ${loaded.unreadable.join(', ')}`;
  return out;
}
