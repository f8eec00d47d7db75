// POSIX shell quoting and splitting with exactly the results of Python's shlex.quote/join/split.

/** An unbalanced quote or a trailing backslash; the message is the one Python's shlex raises. */
export class ShellSyntaxError extends Error {
  constructor(message: 'No closing quotation' | 'No escaped character') {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}

// Python compiles this with re.ASCII, so any non-ASCII letter forces quoting.
const UNSAFE = /[^A-Za-z0-9_@%+=:,./-]/;

/** Python's shlex.quote: single quotes only when needed; a `'` becomes `'"'"'`. */
export function shlexQuote(s: string): string {
  if (s === '') return "''";
  if (!UNSAFE.test(s)) return s;
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

/** Python's shlex.join. */
export function shlexJoin(argv: readonly string[]): string {
  return argv.map(shlexQuote).join(' ');
}

const WHITESPACE = ' \t\r\n';

/**
 * Python's shlex.split (posix, no comments). Unlike sh, a backslash inside double quotes escapes
 * only `"` and `\` (others stay literal, `"\$"` is `\$`), and backslash-newline outside quotes
 * yields a newline rather than vanishing; we follow Python so commands compare equal to its output.
 */
export function shlexSplit(s: string): string[] {
  const out: string[] = [];
  let token = '';
  // A token was started: even `''` yields an (empty) argument.
  let inToken = false;
  let i = 0;
  while (i < s.length) {
    const ch = s[i] as string;
    i++;
    if (WHITESPACE.includes(ch)) {
      if (inToken) {
        out.push(token);
        token = '';
        inToken = false;
      }
    } else if (ch === '\\') {
      if (i >= s.length) throw new ShellSyntaxError('No escaped character');
      token += s[i];
      i++;
      inToken = true;
    } else if (ch === "'") {
      const end = s.indexOf("'", i);
      if (end < 0) throw new ShellSyntaxError('No closing quotation');
      token += s.slice(i, end);
      i = end + 1;
      inToken = true;
    } else if (ch === '"') {
      for (;;) {
        if (i >= s.length) throw new ShellSyntaxError('No closing quotation');
        const c = s[i] as string;
        i++;
        if (c === '"') break;
        if (c === '\\') {
          if (i >= s.length) throw new ShellSyntaxError('No escaped character');
          const next = s[i] as string;
          i++;
          token += next === '"' || next === '\\' ? next : c + next;
        } else {
          token += c;
        }
      }
      inToken = true;
    } else {
      token += ch;
      inToken = true;
    }
  }
  if (inToken) out.push(token);
  return out;
}
