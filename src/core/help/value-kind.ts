// Guesses what kind of value an option takes from its metavar, default and name; 'string' when in doubt.
import type { ValueKind } from '../frameworks/types';

export interface MetavarInfo {
  kind: ValueKind;
  choices?: string[];
}

const INT_WORDS = /^(INT|INTEGER|N|NUM|NUMBER)( RANGE)?$/;
const FLOAT_WORDS = /^FLOAT( RANGE)?$/;
const PATH_WORDS = /^(PATH|FILE|FILENAME|DIRECTORY|DIR)$/;
// Names whose value is a count or size in every framework we read; kept short on purpose.
const INT_NAMES = /(^|[-_])(port|seed)$|(^|[-_])(tp|pp|dp|ep|cp)[-_]size$|parallel[-_]size$/;
const FLOAT_NAMES = /(mem|memory)[-_](fraction|fraction[-_]static|utilization)$/;

function splitChoices(inner: string, sep: string): string[] | undefined {
  // A JSON example (`{"key1": "value1"}`) is a metavar, not a choice set.
  if (/["':]/.test(inner) && sep === ',') return undefined;
  const items = inner.split(sep).map((s) => s.trim());
  return items.every((s) => s.length > 0 && !/\s/.test(s)) ? items : undefined;
}

/** The first metavar word, keeping a `{...}` group whole even when it holds spaces. */
function firstToken(s: string): string {
  if (s.startsWith('{')) {
    const end = s.indexOf('}');
    return end < 0 ? s : s.slice(0, end + 1);
  }
  return s.split(' ')[0] ?? s;
}

function baseKind(word: string): ValueKind | undefined {
  if (INT_WORDS.test(word)) return 'int';
  if (FLOAT_WORDS.test(word)) return 'float';
  if (PATH_WORDS.test(word)) return 'path';
  if (word === 'JSON') return 'json';
  if (word === 'TEXT') return 'string';
  return undefined;
}

/**
 * Reads a metavar as argparse or click prints it: `{a,b}`, `[a|b]`, `X [X ...]`, `[X]`, `INTEGER`.
 * `optionName` and `printedDefault` only refine an otherwise uninformative metavar.
 */
export function metavarKind(
  metavar: string,
  format: 'argparse' | 'click',
  optionName: string,
  printedDefault?: string,
): MetavarInfo {
  let mv = metavar.trim();
  // click appends `...` for multiple=True / nargs=-1.
  const multiple = /\.\.\.\]?$/.test(mv) || (format === 'argparse' && /^\S+ \S+/.test(mv) && !mv.startsWith('{'));
  let choices: string[] | undefined;
  if (format === 'click') {
    const m = /^\[([^\]]*\|[^\]]*)\]/.exec(mv);
    if (m?.[1] !== undefined) choices = splitChoices(m[1], '|');
  } else {
    // `[X]` (nargs='?') and `[X ...]` (nargs='*') wrap the real metavar in brackets.
    mv = firstToken(mv.replace(/^\[(.*)\]$/, '$1'));
    const m = /^\{(.*)\}$/.exec(mv);
    if (m?.[1] !== undefined) choices = splitChoices(m[1], ',');
    if (!choices && mv.startsWith('{')) return { kind: 'json' };
  }
  if (choices) return { kind: multiple ? 'list' : 'choice', choices };
  if (multiple) return { kind: 'list' };
  const word = mv.split(' ')[0] ?? '';
  const fromWord = baseKind(format === 'click' ? mv : word);
  if (fromWord) return { kind: fromWord };
  if (format === 'click') return { kind: 'string' };
  const name = optionName.replace(/^-+/, '');
  if (printedDefault !== undefined && /^-?\d+\.\d*(e-?\d+)?$/i.test(printedDefault)) return { kind: 'float' };
  if (INT_NAMES.test(name)) return { kind: 'int' };
  if (FLOAT_NAMES.test(name)) return { kind: 'float' };
  return { kind: 'string' };
}
