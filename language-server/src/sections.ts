// Cuts a config's text into parts that parse alone exactly as they do in place: its top-level sections, a section's
// mapping entries, and level by level the entries of theirs (a long list's items: list-runs.ts); so that an edit
// re-parses only the part it touched.

/** One top-level entry's text (with the comments and blank lines before the next key), at `start` in the document. */
export interface Section {
  start: number;
  text: string;
}

/** A plain key at column 0 followed by `:` and a space or the end of the line (tried at each line start). */
const KEY_LINE = /[A-Za-z_][\w.-]*[ ]*:(?:[ \r\n]|$)/y;
/** What else may start at column 0 inside a section: indentation, a comment, a compact sequence item, nothing. */
const INNER_LINE = /(?:[ #\r\n]|-(?:[ \r\n]|$)|$)/y;
/** Aliases (and so merge keys) tie sections together, and their expansion is bounded over the whole document. */
const ALIAS = /(?:^|[\s,[{])\*[^\s,\]}]/;

export const matchesAt = (re: RegExp, text: string, at: number): boolean => {
  re.lastIndex = at;
  return re.test(text);
};

/** KEY_LINE at `at`, its first character tested before the pattern is run (most lines fail there). */
export function keyAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95) && matchesAt(KEY_LINE, text, at);
}

/**
 * The sections of a text whose top level is a plain block mapping, or undefined when splitting could change what
 * the text means: directives, document markers, aliases, a first entry that is not a plain key, or any other line
 * at column 0 (a flow collection or multi-line scalar written there). Each section is then parsed on its own; a
 * section that does not parse cleanly as one entry sends the caller back to a whole-document parse. (A section
 * may end in comments: the next key is at column 0, so there is no indentation for the value to stretch over.)
 */
export function splitSections(text: string): Section[] | undefined {
  if (ALIAS.test(text)) return undefined;
  const starts: number[] = [];
  for (let at = 0; at < text.length; ) {
    const c = text.charCodeAt(at);
    // Indentation, a comment or a blank line (most lines) is an inner line with no key: no pattern needed.
    if (c !== 32 && c !== 35 && c !== 10 && c !== 13) {
      if (keyAt(text, at)) starts.push(starts.length === 0 ? 0 : at);
      else if (!matchesAt(INNER_LINE, text, at) || (starts.length === 0 && c === 45)) return undefined;
    }
    const nl = text.indexOf('\n', at);
    at = nl < 0 ? text.length : nl + 1;
  }
  if (starts.length === 0) return undefined;
  return starts.map((start, i) => ({ start, text: text.slice(start, starts[i + 1] ?? text.length) }));
}

/** A section (or an entry) whose value is a block mapping, cut into its entries: each is parsed as `header` + its text. */
export interface SectionBody {
  /** The text up to and with its key line (`frameworks:`, `  vllm:`), comments before it included. */
  header: string;
  /** The mapping's entries: each with the lines after it up to the next; the first starts right after the header. */
  entries: Section[];
  /** Where the entries' keys start on their lines. */
  indent: number;
}

/** A key line with nothing after the colon but a comment: its value is the block below. */
const HEADER_LINE = /[A-Za-z_][\w.-]*[ ]*:[ ]*(?:#[^\n]*)?\r?\n/y;

/** A compact sequence item at `at`: `-` then a space, a line break or the end of the text. */
export function itemAt(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 45) return false;
  const c = text.charCodeAt(at + 1);
  return at + 1 >= text.length || c === 32 || c === 13 || c === 10;
}

export function indentAt(text: string, at: number): number {
  let i = at;
  while (text.charCodeAt(i) === 32) i++;
  return i - at;
}

/**
 * What a line holds at `i`, just after its indentation: 0 for content, 1 for nothing (a blank line), 2 for a comment.
 * A line is blank up to `\n`, `\r\n`, or `\r` or the end of the text.
 */
export function gapAt(text: string, i: number): 0 | 1 | 2 {
  if (i >= text.length) return 1;
  const c = text.charCodeAt(i);
  if (c === 35) return 2;
  if (c === 10) return 1;
  return c === 13 && (i + 1 === text.length || text.charCodeAt(i + 1) === 10) ? 1 : 0;
}

/** Where the header ends: after the first key line at `indent`, if that line leaves the value to the block below. */
export function headerEnd(text: string, indent: number): number | undefined {
  for (let at = 0; at < text.length; ) {
    if (indentAt(text, at) >= indent && keyAt(text, at + indent)) {
      return matchesAt(HEADER_LINE, text, at + indent) ? HEADER_LINE.lastIndex : undefined;
    }
    const nl = text.indexOf('\n', at);
    at = nl < 0 ? text.length : nl + 1;
  }
  return undefined;
}

/**
 * Starts of the block mapping's keys (its indentation set by the first content line, deeper than `outer`), or
 * undefined when unsure. An entry may not end in a comment: the parser then stretches its value over the next key's
 * indentation.
 */
function entryStarts(text: string, from: number, outer: number): { starts: number[]; indent: number } | undefined {
  const starts: number[] = [];
  let n = 0;
  let afterComment = false;
  for (let at = from; at < text.length; ) {
    const ind = indentAt(text, at);
    const gap = gapAt(text, at + ind);
    if (gap) {
      // Blank or a comment, at any indentation: part of the entry before it.
      afterComment ||= gap === 2;
    } else {
      if (n === 0) {
        if (ind <= outer || !keyAt(text, at + ind)) return undefined;
        n = ind;
        starts.push(from);
      } else if (ind === n && keyAt(text, at + n)) {
        if (afterComment) return undefined;
        starts.push(at);
      } else if (ind < n || (ind === n && !itemAt(text, at + n))) return undefined;
      afterComment = false;
    }
    const nl = text.indexOf('\n', at);
    at = nl < 0 ? text.length : nl + 1;
  }
  return { starts, indent: n };
}

/**
 * A section's value cut into its entries, when it is a block mapping of `min` or more plain keys (two unless told),
 * each starting a line at one indentation, and nothing else at or left of that indentation but comments, blank
 * lines and compact sequence items. Undefined otherwise (the section is then parsed as one). The same holds one
 * level down: an entry of such a mapping, its key at `indent`, is cut into the entries of its own value.
 */
export function splitBody(s: Section, indent = 0, min = 2): SectionBody | undefined {
  const end = headerEnd(s.text, indent);
  if (end === undefined) return undefined;
  const found = entryStarts(s.text, end, indent);
  if (!found || found.starts.length < Math.max(1, min)) return undefined;
  const { starts } = found;
  const entries = starts.map((at, i) => ({ start: s.start + at, text: s.text.slice(at, starts[i + 1] ?? s.text.length) }));
  return { header: s.text.slice(0, end), entries, indent: found.indent };
}
