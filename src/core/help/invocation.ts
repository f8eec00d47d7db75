// Splits the left column of a help option line (`--tp-size TP_SIZE, --tensor-parallel-size TP_SIZE`) into names and metavar.

export interface Invocation {
  /** Option strings in printed order, short ones included. */
  names: string[];
  /** `--no-x` partners (argparse BooleanOptionalAction, click `--x / --no-x`). */
  negations: string[];
  /** The first metavar printed, verbatim (`TP_SIZE`, `{a,b}`, `X [X ...]`, `[a|b]`). */
  metavar?: string;
}

const OPTION_TOKEN = /^--?[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Splits on `sep` only where no bracket or quote is open, so `{"a": 1, "b": 2}` stays whole. */
function splitTopLevel(s: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && s.startsWith(sep, i)) {
      parts.push(s.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

function isNegationOf(neg: string, names: string[]): boolean {
  if (!neg.startsWith('--no-') && !neg.startsWith('--no_')) return false;
  const base = neg.slice(5);
  return names.some((n) => n.startsWith('--') && n.slice(2) === base);
}

// `--flag=VALUE` and `--flag{a,b}`: a metavar printed against its option, without a space.
const GLUED = /^(--?[A-Za-z0-9][A-Za-z0-9_.-]*)(?:=(\S.*)|([{[].*))$/;

/** `--tp-size TP_SIZE`, `--tp-size=TP_SIZE`, `--mode{a,b}` -> [name, metavar ('' when none)]. */
function splitNameMetavar(p: string): [string, string] | undefined {
  const space = p.indexOf(' ');
  const head = space < 0 ? p : p.slice(0, space);
  if (OPTION_TOKEN.test(head)) return [head, space < 0 ? '' : p.slice(space + 1).trim()];
  const glued = GLUED.exec(p);
  const name = glued?.[1];
  if (name === undefined) return undefined;
  return [name, (glued?.[2] ?? glued?.[3] ?? '').trim()];
}

/** Returns undefined when the text is not an option invocation (e.g. prose that happens to start with `-`). */
export function parseInvocation(text: string): Invocation | undefined {
  const names: string[] = [];
  const negations: string[] = [];
  let metavar: string | undefined;
  for (const group of splitTopLevel(text.trim(), ', ')) {
    // click prints boolean switch pairs as `--shout / --no-shout`.
    for (const part of splitTopLevel(group.trim(), ' / ')) {
      const p = part.trim();
      if (!p) return undefined;
      const split = splitNameMetavar(p);
      if (!split) return undefined;
      const [name, mv] = split;
      if (mv && metavar === undefined) metavar = mv;
      if (name.startsWith('--') && isNegationOf(name, names)) negations.push(name);
      else names.push(name);
    }
  }
  if (names.length === 0) return undefined;
  return metavar === undefined ? { names, negations } : { names, negations, metavar };
}
