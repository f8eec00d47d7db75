// Output files and folders checked writable before any work starts, so a run never loses its result at the end.
// Missing parent folders are created one level at a time (Node 20's recursive mkdir can spin forever on /proc).
import { closeSync, mkdirSync, openSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EnvironmentError, UsageError, errnoText } from './errors';

type Kind = 'file' | 'folder' | 'other' | 'missing';

function kindOf(path: string): Kind {
  try {
    const s = statSync(path);
    return s.isDirectory() ? 'folder' : s.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}

/** Creates `dir` and its missing parents; throws an EnvironmentError naming `flag` and the fix. */
function ensureFolder(dir: string, flag: string, given: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const kind = kindOf(at);
    if (kind === 'folder') break;
    if (kind !== 'missing') throw new UsageError(`${flag} ${given}: ${at} is a file, not a folder; choose another path`);
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && kindOf(m) === 'folder') continue;
      throw new EnvironmentError(`${flag} ${given}: cannot create the folder ${m}: ${errnoText(e)}; choose a path you can write to`);
    }
  }
}

/**
 * Makes sure `path` can be written (or appended to) before the work that produces it: its folder exists
 * (created if needed), it is not a folder, and opening it for appending succeeds. A file created only
 * for the check is removed again, so a run that fails later leaves nothing behind.
 */
export function checkOutputFile(path: string, flag: string): void {
  if (path.trim() === '') throw new UsageError(`${flag} needs a file path`);
  const kind = kindOf(path);
  if (kind === 'folder') throw new UsageError(`${flag} ${path}: is a folder; give a file path, e.g. ${join(path, 'result.jsonl')}`);
  ensureFolder(dirname(resolve(path)), flag, path);
  try {
    closeSync(openSync(path, 'a'));
    if (kind === 'missing') unlinkSync(path);
  } catch (e) {
    throw new EnvironmentError(`${flag} ${path}: cannot write: ${errnoText(e)}; choose a path you can write to`);
  }
}

/** Makes sure the folder `path` exists (created if needed) and a file can be written in it. */
export function checkOutputFolder(path: string, flag: string): void {
  if (path.trim() === '') throw new UsageError(`${flag} needs a folder path`);
  ensureFolder(path, flag, path);
  const probe = join(path, `.autobench-write-check-${process.pid}`);
  try {
    writeFileSync(probe, '');
    unlinkSync(probe);
  } catch (e) {
    throw new EnvironmentError(`${flag} ${path}: cannot write in this folder: ${errnoText(e)}; choose a folder you can write to`);
  }
}

/** Writes a file whose path was checked with checkOutputFile; a failure now is still one clear line. */
export function writeOutputFile(path: string, text: string, flag: string): void {
  try {
    ensureFolder(dirname(resolve(path)), flag, path);
    writeFileSync(path, text, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new EnvironmentError(`${flag} ${path}: cannot write: ${errnoText(e)}`);
  }
}
