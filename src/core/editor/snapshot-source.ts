// Which --help snapshots apply to one document: its modeline, a plan's version_manifest, or the workspace setting.
import { dirname, isAbsolute, resolve } from 'node:path';
import { isPyMap } from '../py/value';
import type { PyValue } from '../py/value';
import { FRAMEWORKS, type FrameworkKey } from '../frameworks/types';

export type SnapshotSource =
  | { kind: 'dir'; dir: string; from: 'modeline' | 'setting' }
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

/**
 * The snapshot source for a document at `docPath`, in priority order: modeline, plan
 * `version_manifest.<fw>.server_help`, the `autobench.helpDir` setting, else the built-in table.
 */
export function snapshotSourceFor(
  text: string,
  root: PyValue | undefined,
  docPath: string | undefined,
  settingHelpDir: string,
  workspaceRoots: string[],
  exists: (p: string) => boolean,
): SnapshotSource {
  const base = docPath ? dirname(docPath) : (workspaceRoots[0] ?? process.cwd());
  const mode = modelineHelpDir(text);
  if (mode) return { kind: 'dir', dir: resolveFrom(base, mode, workspaceRoots, exists), from: 'modeline' };
  const manifest = isPyMap(root) ? root.get('version_manifest') : undefined;
  if (isPyMap(manifest)) {
    const files: Partial<Record<FrameworkKey, string[]>> = {};
    for (const fw of FRAMEWORKS) {
      const entry = manifest.get(fw);
      const help = isPyMap(entry) ? entry.get('server_help') : undefined;
      if (typeof help === 'string' && help) {
        const p = resolveFrom(base, help, workspaceRoots, exists);
        if (exists(p)) files[fw] = [p];
      }
    }
    if (Object.keys(files).length > 0) return { kind: 'files', files, from: 'version_manifest' };
  }
  if (settingHelpDir) {
    const dir = isAbsolute(settingHelpDir) ? settingHelpDir : resolve(workspaceRoots[0] ?? base, settingHelpDir);
    return { kind: 'dir', dir, from: 'setting' };
  }
  return { kind: 'builtin' };
}
