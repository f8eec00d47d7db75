// Finds the help captures in a `--help-dir` folder and its sub-folders, as the playbook's validator does (`rglob("*.txt")`).
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import { classifySnapshotFile } from './classify';
import type { SnapshotFile } from './types';

// Bounds for a folder pointed at by mistake (a home directory): captures sit a level or two deep.
const MAX_DEPTH = 16;
const MAX_FILES = 10_000;

function isRegularFile(path: string, entry: Dirent): boolean {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Every `*.txt` under `dir` (hidden ones too; symlinked folders are not entered, as pathlib's rglob does not). */
function walkTxt(dir: string, depth: number, out: string[]): void {
  if (depth > MAX_DEPTH || out.length >= MAX_FILES) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walkTxt(path, depth + 1, out);
    // `*.txt` is case-sensitive in pathlib on POSIX: `NOTES.TXT` is not a capture there either.
    else if (entry.name.endsWith('.txt') && isRegularFile(path, entry)) out.push(path);
  }
}

/**
 * Help captures in `dir` and every folder below it: regular `*.txt` files whose name (not its folder)
 * `classifySnapshotFile` recognises, sorted by their path under `dir`. Provenance notes (`SOURCE.md`)
 * and other files are skipped. Client (benchmark) captures are listed too, with role `client`.
 */
export function discoverSnapshots(dir: string): SnapshotFile[] {
  const paths = listTxtFiles(dir);
  const out: SnapshotFile[] = [];
  for (const path of paths) {
    const cls = classifySnapshotFile(path);
    if (cls) out.push({ path, framework: cls.framework, role: cls.role });
  }
  return out;
}

/** Every regular `*.txt` in `dir` and the folders below it, sorted by path under `dir` (what `rglob("*.txt")` yields). */
export function listTxtFiles(dir: string): string[] {
  const paths: string[] = [];
  walkTxt(dir, 0, paths);
  return paths.sort((a, b) => compareRelative(dir, a, b));
}

function compareRelative(dir: string, a: string, b: string): number {
  const ra = relative(dir, a).split(/[\\/]/);
  const rb = relative(dir, b).split(/[\\/]/);
  for (let i = 0; i < Math.min(ra.length, rb.length); i++) {
    const x = ra[i] ?? '';
    const y = rb[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return ra.length - rb.length;
}
