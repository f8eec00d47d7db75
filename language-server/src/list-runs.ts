// Cuts an entry whose value is a long list (block `- item` lines, or a one-line flow `[a, b, ...]` of plain values) into
// runs of items that parse alone, behind the entry's key line, exactly as they do in place; so that an edit in a list
// of thousands of values re-parses one run.
import { gapAt, headerEnd, indentAt, itemAt, keyAt, matchesAt, type Section } from './sections';

/** An entry's list cut into runs of its items: run i is parsed as `header` + its text, + `close` unless it is the last. */
export interface SectionItems {
  /** The text up to where the items start: the key line (and `[` for a flow list), comments before it included. */
  header: string;
  /** Runs of whole items; the first starts right after the header, the last ends where the entry does. */
  runs: Section[];
  /** What ends a run that is not the last so that it parses alone: `]` and a line break for a flow list, else nothing. */
  close: string;
}

/**
 * Where runs end: before an item whose text hashes to a multiple of RUN_MASK + 1, once the run holds MIN_RUN items,
 * and at MAX_RUN items. Cutting by content, not by count, keeps the runs after an added or removed item as they were,
 * so that they are reused too.
 */
const MIN_RUN = 8;
const RUN_MASK = 31;
const MAX_RUN = 128;

/** FNV-1a over `text` from `at` to `end` or the end of the line, whichever comes first. */
function hashAt(text: string, at: number, end = text.length): number {
  let h = 0x811c9dc5;
  for (let i = at; i < end && text.charCodeAt(i) !== 10; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Whether a run that holds `items` items ends before the item whose text is at `at` (up to `end`). */
function cutBefore(items: number, text: string, at: number, end?: number): boolean {
  return items >= MIN_RUN && (items >= MAX_RUN || (hashAt(text, at, end) & RUN_MASK) === 0);
}

/**
 * Starts of the runs of a block list's items (its indentation set by the first content line, at `outer` or deeper),
 * or undefined when unsure: a content line left of the items, or one at their indentation that starts no item. A run
 * never starts after a blank or comment line, so that no item (a block scalar's kept newlines, a trailing comment)
 * ends differently alone than in place.
 */
function runStarts(text: string, from: number, outer: number): number[] | undefined {
  const starts: number[] = [];
  let n = -1;
  let items = 0;
  let afterGap = false;
  for (let at = from; at < text.length; ) {
    const ind = indentAt(text, at);
    if (gapAt(text, at + ind)) afterGap = true;
    else {
      if (n < 0) {
        if (ind < outer || !itemAt(text, at + ind)) return undefined;
        n = ind;
        starts.push(from);
      } else if (ind < n || (ind === n && !itemAt(text, at + n))) return undefined;
      if (ind === n) {
        if (!afterGap && cutBefore(items, text, at)) {
          starts.push(at);
          items = 0;
        }
        items++;
      }
      afterGap = false;
    }
    const nl = text.indexOf('\n', at);
    at = nl < 0 ? text.length : nl + 1;
  }
  return starts;
}

/** The runs that start at `starts` (the first right after the header); `comma` drops the comma before each next run. */
function runsOf(s: Section, header: number, starts: number[], close: string, comma: boolean): SectionItems | undefined {
  if (starts.length < 2) return undefined;
  const end = (i: number) => (i + 1 < starts.length ? starts[i + 1]! - (comma ? 1 : 0) : s.text.length);
  const runs = starts.map((at, i) => ({ start: s.start + at, text: s.text.slice(at, end(i)) }));
  return { header: s.text.slice(0, header), runs, close };
}

/**
 * An entry whose value is a block list (`key:` then `- item` lines, compact or indented), cut into runs of whole
 * items when it is long enough to hold two; undefined otherwise.
 */
function blockItems(s: Section, indent: number): SectionItems | undefined {
  const end = headerEnd(s.text, indent);
  if (end === undefined) return undefined;
  const starts = runStarts(s.text, end, indent);
  return starts ? runsOf(s, end, starts, '', false) : undefined;
}

/** `key: [` at a key line's indentation: a flow list that starts on its key's line. */
const FLOW_HEAD = /[A-Za-z_][\w.-]*[ ]*:[ ]+\[/y;
/** One item of such a list, spaces around it included: a plain value of word characters, dots and signs only. */
const FLOW_ITEM = /[ ]*[+-]?[\w.][\w.+-]*[ ]*/y;
/** The list's end: `]`, then spaces or a comment, then the end of the line. */
const FLOW_END = /\](?:[ ]+#[^\n]*|[ ]*)(?:\r?\n|$)/y;

/** Whether only blank and comment lines are left from `at`. */
function onlyGaps(text: string, at: number): boolean {
  for (let i = at; i < text.length; ) {
    if (!gapAt(text, i + indentAt(text, i))) return false;
    const nl = text.indexOf('\n', i);
    i = nl < 0 ? text.length : nl + 1;
  }
  return true;
}

/**
 * An entry whose value is a flow list on its key's line, `key: [1, 2, 3]`, of plain values that nothing in a flow
 * context reads otherwise (no quotes, brackets, colons, comments or empty items), followed by nothing but blank and
 * comment lines; cut into runs after the commas, each parsed with a `]` put after it. Undefined otherwise.
 */
function flowItems(s: Section, indent: number): SectionItems | undefined {
  const text = s.text;
  let at = 0;
  while (at < text.length && gapAt(text, at + indentAt(text, at))) {
    const nl = text.indexOf('\n', at);
    at = nl < 0 ? text.length : nl + 1;
  }
  if (indentAt(text, at) !== indent || !keyAt(text, at + indent) || !matchesAt(FLOW_HEAD, text, at + indent)) return undefined;
  const open = FLOW_HEAD.lastIndex;
  const starts = [open];
  let items = 0;
  for (let i = open; ; ) {
    if (!matchesAt(FLOW_ITEM, text, i)) return undefined;
    const end = FLOW_ITEM.lastIndex;
    if (cutBefore(items, text, i, end)) {
      starts.push(i);
      items = 0;
    }
    items++;
    if (text.charCodeAt(end) === 44) i = end + 1;
    else if (matchesAt(FLOW_END, text, end) && onlyGaps(text, FLOW_END.lastIndex)) break;
    else return undefined;
  }
  return runsOf(s, open, starts, ']\n', true);
}

/**
 * An entry (its key at `indent`) whose value is a long list, cut into runs of items: a block list (see `runStarts`)
 * or a one-line flow list of plain values (see `flowItems`). Undefined for anything else, or a list too short to
 * cut (the entry is then parsed as one).
 */
export function splitItems(s: Section, indent = 0): SectionItems | undefined {
  return blockItems(s, indent) ?? flowItems(s, indent);
}
