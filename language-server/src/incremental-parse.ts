// Parses a new version of a document reusing the parts whose text did not change since the last one: top-level
// sections, the entries of a section's mapping (one framework, one scenario list), theirs in turn (a framework's
// search_space, one flag's values), and runs of a long list's items, each parsed on its own behind the key lines above it.
import type { PyMap, PyValue } from '../../src/core/py/value';
import { parseYaml, YAML_LIMITS, type DocNode, type ParsedYaml, type Range } from '../../src/core/config/yaml-doc';
import { splitItems } from './list-runs';
import { splitBody, splitSections, type Section } from './sections';

/** A text parsed alone: a chain of one-entry mappings, its offsets moved by `shift` into the document. */
interface Part {
  shift: number;
  root: DocNode;
  /** For a part put together from smaller ones: their texts, kept with it for the next version. */
  parts?: string[];
}

export interface ParseCounts {
  /** Texts (sections or entries) taken from the previous version. */
  reused: number;
  /** Texts parsed on their own, and their length in all. */
  parsed: number;
  parsedChars: number;
  /** Whole-document parses (the text could not be split, or a part did not parse cleanly). */
  whole: number;
}

/** How deep entries are cut into their own entries: a config is a few levels deep, and so is an edit's re-parse. */
const MAX_DEPTH = 6;

const shiftRange = (r: Range, d: number): Range => [r[0] + d, r[1] + d];

/**
 * A copy of a parsed node with every offset moved by `d`; values are shared (they carry no offsets), and so is a key's
 * range between the entry and its node where the parse shares it. Properties come in the parser's order (children,
 * then the key's range), so that copies and fresh parses share their object shapes in the code that reads them.
 */
function shifted(n: DocNode, d: number): DocNode {
  const out: DocNode = { kind: n.kind, value: n.value, range: shiftRange(n.range, d) };
  if (n.entries) {
    out.entries = n.entries.map((e) => {
      const node = shifted(e.node, d);
      return { key: e.key, keyRange: e.keyRange === e.node.keyRange ? node.keyRange! : shiftRange(e.keyRange, d), node };
    });
  }
  if (n.items) out.items = n.items.map((i) => shifted(i, d));
  if (n.keyRange) out.keyRange = shiftRange(n.keyRange, d);
  return out;
}

const oneEntry = (n: DocNode | undefined): n is DocNode => n?.kind === 'map' && n.entries?.length === 1;
const entryOf = (n: DocNode) => n.entries![0]!;

/** One mapping from one-entry mappings, spanning them all; undefined on a repeated key (the whole parse reports it). */
function merge(maps: DocNode[]): DocNode | undefined {
  const value: PyMap = new Map();
  const entries: NonNullable<DocNode['entries']> = [];
  for (const m of maps) {
    if (!oneEntry(m)) return undefined;
    const e = entryOf(m);
    if (value.has(e.key)) return undefined;
    value.set(e.key, e.node.value);
    entries.push(e);
  }
  return { kind: 'map', value, range: [maps[0]!.range[0], maps[maps.length - 1]!.range[1]], entries };
}

/** A part's one-entry mappings from its root down `depth` levels, then the node found there; undefined if any is not one. */
function chainOf(root: DocNode, depth: number): DocNode[] | undefined {
  const chain = [root];
  for (let n = root; chain.length <= depth; chain.push((n = entryOf(n).node))) if (!oneEntry(n)) return undefined;
  return chain;
}

/** One list from lists, spanning them all: their items in order. */
function concat(seqs: DocNode[]): DocNode | undefined {
  const items: DocNode[] = [];
  const value: PyValue[] = [];
  for (const n of seqs) {
    if (n.kind !== 'seq' || !n.items) return undefined;
    for (const i of n.items) {
      items.push(i);
      value.push(i.value);
    }
  }
  return { kind: 'seq', value, range: [seqs[0]!.range[0], seqs[seqs.length - 1]!.range[1]], items };
}

/**
 * The parse of `prefix + entry` from the parses of `prefix + header + child` for each of the entry's children (its
 * mapping's entries, or runs of its list's items), the children `depth` levels down. Keys and where things start
 * come from the first part (which begins as the entry does), where they end from the last (which ends as the entry
 * does); the children are joined at the bottom by `join` (`merge` or `concat`).
 */
function assemble(parts: DocNode[], depth: number, join: (nodes: DocNode[]) => DocNode | undefined): DocNode | undefined {
  const chains: DocNode[][] = [];
  for (const p of parts) {
    const c = chainOf(p, depth);
    if (!c) return undefined;
    chains.push(c);
  }
  const [first, last] = [chains[0]!, chains[chains.length - 1]!];
  let node = join(chains.map((c) => c[depth]!));
  for (let level = depth - 1; node && level >= 0; level--) {
    const { key, keyRange } = entryOf(first[level]!);
    node.keyRange = keyRange;
    node = { kind: 'map', value: new Map([[key, node.value]]), range: [first[level]!.range[0], last[level]!.range[1]], entries: [{ key, keyRange, node }] };
  }
  return node;
}

/**
 * One per document. Gives exactly what `parseYaml` gives for the same text: a text that splits into top-level
 * sections (see `splitSections`) is parsed section by section, a section whose value is a block mapping entry by
 * entry (see `splitBody`), and so on down, a long list in runs of items (see `splitItems`), each part parsed behind
 * the key lines above it; each unchanged part is taken from the previous version with its offsets moved; anything
 * else, or any problem, goes to the whole-document parse.
 */
export class IncrementalParser {
  private previous = new Map<string, Part>();
  private next = new Map<string, Part>();
  readonly counts: ParseCounts = { reused: 0, parsed: 0, parsedChars: 0, whole: 0 };

  parse(text: string): ParsedYaml {
    const sections = text.length <= YAML_LIMITS.maxBytes ? splitSections(text) : undefined;
    this.next = new Map<string, Part>();
    const roots = sections?.map((s) => this.unit('', s, 0, 0));
    const root = roots && !roots.includes(undefined) ? merge(roots as DocNode[]) : undefined;
    this.previous = root ? this.next : new Map<string, Part>();
    if (root) return { text, root, problems: [] };
    this.counts.whole++;
    return parseYaml(text);
  }

  /**
   * The parse of `prefix + s.text` (`s` is an entry whose key is at `indent`, `depth` mappings down), offsets moved
   * so that `s` lands where it is in the document: taken from the previous version, put together from the entries
   * of its value or from runs of its list's items, or parsed alone.
   */
  private unit(prefix: string, s: Section, indent: number, depth: number): DocNode | undefined {
    const text = prefix + s.text;
    const shift = s.start - prefix.length;
    const hit = this.reuse(text, shift);
    if (hit) return hit;
    const body = depth < MAX_DEPTH ? splitBody(s, indent, 1) : undefined;
    // One entry: its text with the header before it is this text, one level further down (a long list may be there).
    if (body?.entries.length === 1) return this.unit(prefix + body.header, body.entries[0]!, body.indent, depth + 1);
    if (body) {
      const inner = prefix + body.header;
      const parts = body.entries.map((e) => this.unit(inner, e, body.indent, depth + 1));
      const root = parts.includes(undefined) ? undefined : assemble(parts as DocNode[], depth + 1, merge);
      if (root) {
        this.next.set(text, { shift, root, parts: body.entries.map((e) => inner + e.text) });
        return root;
      }
    }
    const list = depth < MAX_DEPTH && !body ? splitItems(s, indent) : undefined;
    if (list) {
      const inner = prefix + list.header;
      const texts = list.runs.map((r, i) => inner + r.text + (i + 1 < list.runs.length ? list.close : ''));
      const parts = texts.map((t, i) => this.reuse(t, list.runs[i]!.start - inner.length) ?? this.part(t, list.runs[i]!.start - inner.length));
      const root = parts.includes(undefined) ? undefined : assemble(parts as DocNode[], depth + 1, concat);
      if (root) {
        this.next.set(text, { shift, root, parts: texts });
        return root;
      }
    }
    return this.part(text, shift);
  }

  /** `text` parsed alone, offsets moved by `shift`; undefined unless clean and one entry. */
  private part(text: string, shift: number): DocNode | undefined {
    const p = parseYaml(text);
    if (p.problems.length > 0 || !oneEntry(p.root)) return undefined;
    this.counts.parsed++;
    this.counts.parsedChars += text.length;
    const root = shift === 0 ? p.root : shifted(p.root, shift);
    this.next.set(text, { shift, root });
    return root;
  }

  /** The previous version's parse of `text`, moved to `shift`, carried on to the next version with its parts. */
  private reuse(text: string, shift: number): DocNode | undefined {
    const hit = this.previous.get(text) ?? this.next.get(text);
    if (!hit) return undefined;
    this.counts.reused++;
    const part: Part = hit.shift === shift ? hit : { ...hit, shift, root: shifted(hit.root, shift - hit.shift) };
    this.next.set(text, part);
    this.carry(part);
    return part.root;
  }

  /** A reused part's own parts, and theirs, kept for the next version: an edit there re-parses only what it touches. */
  private carry(part: Part): void {
    for (const p of part.parts ?? []) {
      const child = this.previous.get(p);
      if (child && !this.next.has(p)) {
        this.next.set(p, child);
        this.carry(child);
      }
    }
  }
}
