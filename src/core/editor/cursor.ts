// Where the cursor is in a block-style YAML config, read from the text so it works mid-typing, when the YAML does not parse.

export interface CursorContext {
  /** Keys of the enclosing mappings, outermost first. */
  parents: string[];
  /** Typing a key, a value after `key:`, or a list item (`- ` or inside `[...]`) of `key`. */
  where: 'key' | 'value' | 'item';
  /** For `value` and `item`: the key whose value is being typed. */
  key?: string;
  /** The partial word before the cursor. */
  prefix: string;
  /** Offsets of the partial word (start, cursor), which a completion replaces. */
  replace: [number, number];
  /** Indentation of the line (for keys: the column new sibling keys start at). */
  indent: number;
  /** Keys already present beside the cursor in the same mapping. */
  siblings: string[];
}

const KEY_LINE = /^(\s*)(?:- )?([^\s#'"][^:#]*?|'[^']*'|"[^"]*"):(?:\s+(.*))?$/;

interface Line {
  text: string;
  indent: number;
}

function indentOf(s: string): number {
  return s.length - s.trimStart().length;
}

function isBlank(s: string): boolean {
  const t = s.trim();
  return t === '' || t.startsWith('#');
}

function unquote(k: string): string {
  const t = k.trim();
  return (t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"')) ? t.slice(1, -1) : t;
}

/** The chain of mapping keys that own a line at `indent`, looking upwards from line `from`. */
function parentsAbove(lines: Line[], from: number, indent: number): string[] {
  const out: string[] = [];
  let threshold = indent;
  for (let i = from; i >= 0 && threshold > 0; i--) {
    const l = lines[i];
    if (!l || isBlank(l.text)) continue;
    if (l.indent >= threshold) continue;
    const m = KEY_LINE.exec(l.text);
    if (m && (m[3] === undefined || m[3].trim() === '' || m[3].trim().startsWith('#'))) out.unshift(unquote(m[2] ?? ''));
    threshold = l.indent;
  }
  return out;
}

/** Keys at exactly `indent` in the block around line `at`. */
function siblingKeys(lines: Line[], at: number, indent: number): string[] {
  const out: string[] = [];
  for (const dir of [-1, 1]) {
    for (let i = at + dir; i >= 0 && i < lines.length; i += dir) {
      const l = lines[i];
      if (!l || isBlank(l.text)) continue;
      if (l.indent < indent) break;
      if (l.indent > indent) continue;
      const m = KEY_LINE.exec(l.text);
      if (m) out.push(unquote(m[2] ?? ''));
    }
  }
  return out;
}

export function cursorContext(text: string, offset: number): CursorContext {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  const allLines: Line[] = [];
  const rows = text.split('\n');
  for (const t of rows) allLines.push({ text: t, indent: indentOf(t) });
  let lineNo = 0;
  for (let i = 0, pos = 0; i < rows.length; i++) {
    if (pos + (rows[i]?.length ?? 0) >= offset || i === rows.length - 1) {
      lineNo = i;
      break;
    }
    pos += (rows[i]?.length ?? 0) + 1;
  }
  const word = /[\w.\-/]*$/.exec(before)?.[0] ?? '';
  const replace: [number, number] = [offset - word.length, offset];
  const indent = indentOf(before);

  // `key: value` or `key: [a, b` on this line.
  const kv = /^(\s*)(?:- )?([^\s#:'"][^:#]*?):\s+(.*)$/.exec(before);
  if (kv) {
    const key = unquote(kv[2] ?? '');
    const rest = kv[3] ?? '';
    const parents = parentsAbove(allLines, lineNo - 1, kv[1]?.length ?? 0);
    const inFlowList = rest.trimStart().startsWith('[');
    return { parents, where: inFlowList ? 'item' : 'value', key, prefix: word, replace, indent, siblings: [] };
  }
  // `- value`: an item of the nearest key line above that opens a block.
  const item = /^(\s*)- +([^:]*)$/.exec(before);
  if (item) {
    const itemIndent = item[1]?.length ?? 0;
    for (let i = lineNo - 1; i >= 0; i--) {
      const l = allLines[i];
      if (!l || isBlank(l.text) || /^\s*- /.test(l.text)) continue;
      if (l.indent > itemIndent) continue;
      const m = KEY_LINE.exec(l.text);
      if (!m) break;
      const key = unquote(m[2] ?? '');
      return { parents: parentsAbove(allLines, i - 1, l.indent), where: 'item', key, prefix: word, replace, indent, siblings: [] };
    }
  }
  return { parents: parentsAbove(allLines, lineNo - 1, indent), where: 'key', prefix: word, replace, indent, siblings: siblingKeys(allLines, lineNo, indent) };
}
