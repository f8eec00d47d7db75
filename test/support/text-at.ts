// Exact offsets inside real config texts for the in-process editor tests: a needle must be there, and only once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Range } from '../../src/core/config/yaml-doc';

export const REPO = join(__dirname, '..', '..');

/** A shipped config or example, read from the repository (`configs/...`). */
export function readRepoFile(...parts: string[]): string {
  return readFileSync(join(REPO, ...parts), 'utf8');
}

/** Where `needle` starts: its only occurrence, or with `after` (itself unique) its first occurrence past `after`. Throws otherwise. */
export function indexOfOnce(text: string, needle: string, after?: string): number {
  const from = after === undefined ? 0 : indexOfOnce(text, after) + after.length;
  const i = text.indexOf(needle, from);
  if (i < 0) throw new Error(`text not found: ${JSON.stringify(needle)}`);
  if (after === undefined && text.indexOf(needle, i + 1) >= 0) throw new Error(`text not unique: ${JSON.stringify(needle)}`);
  return i;
}

/** The offset just past `needle` (where a cursor sits after typing it). */
export function offsetAfter(text: string, needle: string, after?: string): number {
  return indexOfOnce(text, needle, after) + needle.length;
}

/** The offsets `needle` covers. */
export function spanOf(text: string, needle: string, after?: string): Range {
  const i = indexOfOnce(text, needle, after);
  return [i, i + needle.length];
}

/** `text` with its one occurrence of `from` replaced; throws when `from` is missing or repeated. */
export function replaceOnce(text: string, from: string, to: string): string {
  const i = indexOfOnce(text, from);
  return text.slice(0, i) + to + text.slice(i + from.length);
}
