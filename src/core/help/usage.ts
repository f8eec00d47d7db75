// Reads the options an argparse `usage:` block names (`[--flag X]`, `[--a | --no-a]`), for flags a capture lists nowhere else.
import type { HelpOption } from './types';
import { metavarKind } from './value-kind';

// A usage block is a few dozen lines; a longer run of indented lines is not one.
const MAX_USAGE_LINES = 400;
const LONG_OPTION = /(?<=^|[\s[(|])--[A-Za-z0-9][A-Za-z0-9_.-]*/g;

/** The `usage:` line and the indented lines that continue it, joined with spaces. */
export function usageText(lines: string[]): string | undefined {
  const start = lines.findIndex((l) => /^\s*usage:/i.test(l));
  const first = lines[start];
  if (first === undefined) return undefined;
  const parts = [first.replace(/^\s*usage:/i, '')];
  for (const line of lines.slice(start + 1, start + 1 + MAX_USAGE_LINES)) {
    if (line.trim() === '' || !/^\s/.test(line)) break;
    parts.push(line.trim());
  }
  return parts.join(' ');
}

/** Index just past the `{...}` or `[...]` group opening at `i` (nesting counted). */
function groupEnd(s: string, i: number): number {
  const open = s[i];
  const close = open === '{' ? '}' : ']';
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    if (s[j] === open) depth++;
    else if (s[j] === close && --depth === 0) return j + 1;
  }
  return s.length;
}

/** A metavar starting at `at`: a word, `{a,b}`, an optional `[X]`, with a trailing `[X ...]` repeat kept. */
function readMetavar(s: string, at: number): string | undefined {
  const c = s[at];
  if (c === undefined || /[-\]|)(]/.test(c)) return undefined;
  // `[--x [X]]` (an optional value) versus `[--x] [--y]` (the next option).
  if (c === '[') return s[at + 1] === '-' ? undefined : s.slice(at, groupEnd(s, at));
  const word = c === '{' ? s.slice(at, groupEnd(s, at)) : /^[^\s\]|)(]+/.exec(s.slice(at))?.[0];
  if (word === undefined) return undefined;
  const repeat = /^ \[[^\]-][^\]]*\.\.\.\]/.exec(s.slice(at + word.length))?.[0];
  return repeat ? word + repeat : word;
}

/** The metavar printed right after an option name (`--x X`, `--x=X`, `--x{a,b}`), if any. */
function metavarAt(s: string, i: number): string | undefined {
  const c = s[i];
  if (c === '=') return readMetavar(s, i + 1) ?? '';
  if (c === '{') return readMetavar(s, i);
  return c === ' ' ? readMetavar(s, i + 1) : undefined;
}

/** Options named in the usage block, with their metavar; `--no-x` next to `--x` is its negation. */
export function usageOptions(lines: string[]): HelpOption[] {
  const text = usageText(lines);
  if (text === undefined) return [];
  const byName = new Map<string, HelpOption>();
  for (const m of text.matchAll(LONG_OPTION)) {
    const name = m[0];
    if (byName.has(name) || name === '--help') continue;
    const metavar = metavarAt(text, m.index + name.length);
    const opt: HelpOption = { names: [name], negations: [], takesValue: metavar !== undefined, valueKind: 'bool', description: '' };
    if (metavar !== undefined) {
      const info = metavarKind(metavar, 'argparse', name, undefined);
      Object.assign(opt, { metavar, valueKind: info.kind }, info.choices ? { choices: info.choices } : {});
    }
    byName.set(name, opt);
  }
  return pairNegations([...byName.values()]);
}

function pairNegations(options: HelpOption[]): HelpOption[] {
  const names = new Map(options.map((o) => [o.names[0], o]));
  return options.filter((o) => {
    const name = o.names[0] ?? '';
    const base = /^--no[-_](.+)$/.exec(name)?.[1];
    const positive = base === undefined ? undefined : names.get(`--${base}`);
    if (!positive || o.takesValue) return true;
    positive.negations.push(name);
    return false;
  });
}
