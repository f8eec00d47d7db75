// Parses YAML text into Python-equivalent values (PyYAML safe_load, YAML 1.1 scalar rules)
// while keeping every node's source range, bounded against hostile input.
import { isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node as YamlNode, Document , Alias, Scalar } from 'yaml';
import { PyFloat, type PyScalar, type PyValue } from '../py/value';

export type Range = [start: number, end: number];
export type PathSegment = string | number;
export type YamlPath = PathSegment[];

/** One node of the parsed document: its value, where it is, and its children. */
export interface DocNode {
  kind: 'map' | 'seq' | 'scalar';
  value: PyValue;
  /** Offsets of the value in the text. */
  range: Range;
  /** Offsets of the key that holds this node, when it sits in a mapping. */
  keyRange?: Range;
  /**
   * For a map: each key's node in the order PyYAML's dict has them: keys merged in with `<<` first,
   * then the mapping's own keys (a repeated own key appears once, the first).
   */
  entries?: Array<{ key: PyScalar; keyRange: Range; node: DocNode }>;
  items?: DocNode[];
}

export interface ParseProblem {
  code: string;
  message: string;
  range: Range;
}

export interface ParsedYaml {
  text: string;
  root: DocNode | undefined;
  problems: ParseProblem[];
}

/** Limits that keep parsing bounded: a cookbook config is a few kilobytes. */
export const YAML_LIMITS = {
  maxBytes: 4 * 1024 * 1024,
  maxDepth: 200,
  /** Nodes created while expanding aliases (billion-laughs guard). */
  maxExpandedNodes: 20_000,
};

const BOOL_TRUE = new Set(['yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const BOOL_FALSE = new Set(['no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
// PyYAML's implicit resolvers (resolver.py), which differ from YAML 1.2: a float needs a dot.
const INT_RE = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT_RE = /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function sexagesimal(body: string): number {
  let value = 0;
  for (const part of body.split(':')) value = value * 60 + Number(part);
  return value;
}

/** PyYAML's constructor for a YAML 1.1 int. */
export function resolveInt(raw: string): number {
  let s = raw.replace(/_/g, '');
  let sign = 1;
  if (s.startsWith('-')) {
    sign = -1;
    s = s.slice(1);
  } else if (s.startsWith('+')) s = s.slice(1);
  if (s === '0') return 0;
  if (s.startsWith('0b')) return sign * parseInt(s.slice(2), 2);
  if (s.startsWith('0x')) return sign * parseInt(s.slice(2), 16);
  if (s.startsWith('0')) return sign * parseInt(s, 8);
  if (s.includes(':')) return sign * sexagesimal(s);
  return sign * Number(s);
}

/** PyYAML's constructor for a YAML 1.1 float. */
export function resolveFloat(raw: string): number {
  let s = raw.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (s.startsWith('-')) {
    sign = -1;
    s = s.slice(1);
  } else if (s.startsWith('+')) s = s.slice(1);
  if (s === '.inf') return sign * Infinity;
  if (s === '.nan') return NaN;
  if (s.includes(':')) return sign * sexagesimal(s);
  return sign * Number(s);
}

/** The Python value PyYAML's safe_load gives a plain (unquoted, untagged) scalar. */
export function resolvePlainScalar(raw: string): PyScalar {
  if (NULLS.has(raw)) return null;
  if (BOOL_TRUE.has(raw)) return true;
  if (BOOL_FALSE.has(raw)) return false;
  if (INT_RE.test(raw)) return resolveInt(raw);
  if (FLOAT_RE.test(raw)) {
    const v = resolveFloat(raw);
    return Number.isInteger(v) || !Number.isFinite(v) ? new PyFloat(v) : v;
  }
  return raw;
}

// The tags yaml.safe_load constructs (SafeConstructor); any other tag fails the load.
const SAFE_TAGS = new Set(['!!null', '!!bool', '!!int', '!!float', '!!binary', '!!timestamp', '!!omap', '!!pairs', '!!set', '!!str', '!!seq', '!!map']);

function looksBinary(text: string): boolean {
  // NUL bytes or U+FFFD from a failed UTF-8 decode: not a text file.
  const probe = text.length > 65536 ? text.slice(0, 65536) : text;
  return probe.includes('\u0000') || probe.includes('\uFFFD');
}

class Converter {
  problems: ParseProblem[] = [];
  expanded = 0;
  private aborted = false;
  private readonly resolving = new Set<YamlNode>();

  constructor(private readonly doc: Document) {}

  convert(node: YamlNode | null | undefined, depth: number, fallback: Range, viaAlias: boolean): DocNode | undefined {
    if (this.aborted) return undefined;
    if (viaAlias && ++this.expanded > YAML_LIMITS.maxExpandedNodes) {
      this.abort('alias-bomb', `aliases expand to more than ${YAML_LIMITS.maxExpandedNodes} nodes; refusing to expand (a "billion laughs" document?)`, fallback);
      return undefined;
    }
    if (depth > YAML_LIMITS.maxDepth) {
      this.abort('too-deep', `nesting deeper than ${YAML_LIMITS.maxDepth} levels; a cookbook config is a few levels deep`, rangeOf(node, fallback));
      return undefined;
    }
    if (node == null) return { kind: 'scalar', value: null, range: fallback };
    const range = rangeOf(node, fallback);
    // An aliased node's tag was judged where it was anchored.
    if (!viaAlias) this.checkTag(node, range);
    if (isAlias(node)) return this.alias(node, depth, range);
    if (isScalar(node)) return { kind: 'scalar', value: this.scalar(node), range };
    if (isSeq(node)) {
      const items: DocNode[] = [];
      for (const item of node.items) {
        const child = this.convert(item as YamlNode, depth + 1, range, viaAlias);
        if (!child) return undefined;
        items.push(child);
      }
      return { kind: 'seq', value: items.map((i) => i.value), range, items };
    }
    if (isMap(node)) return this.map(node.items, depth, range, viaAlias);
    return { kind: 'scalar', value: null, range };
  }

  private map(pairs: Array<{ key: unknown; value: unknown }>, depth: number, range: Range, viaAlias: boolean): DocNode | undefined {
    const own: MapEntry[] = [];
    const merged: MapEntry[] = [];
    const firstAt = new Map<PyScalar, Range>();
    for (const pair of pairs) {
      const keyNode = pair.key as YamlNode | null;
      const keyRange = rangeOf(keyNode, range);
      if (isScalar(keyNode) && keyNode.type === 'PLAIN' && keyNode.value === '<<' && !keyNode.tag) {
        const sources = this.mergeSources(pair.value as YamlNode, depth, keyRange, viaAlias);
        if (!sources) return undefined;
        merged.push(...sources);
        continue;
      }
      const entry = this.entry(keyNode, pair.value as YamlNode, keyRange, depth, viaAlias);
      if (entry === undefined) return undefined;
      if (entry === null) continue;
      const first = firstAt.get(entry.key);
      if (first) {
        this.problems.push({
          code: 'duplicate-key',
          message: `duplicate key '${String(entry.key)}' (first defined at offset ${first[0]}); remove one of them`,
          range: keyRange,
        });
        continue;
      }
      firstAt.set(entry.key, keyRange);
      own.push(entry);
    }
    const entries = mergedOrder(merged, own);
    return { kind: 'map', value: new Map(entries.map((e) => [e.key, e.node.value])), range, entries };
  }

  /** One `key: value` pair; null when the key cannot be used (reported), undefined when reading was aborted. */
  private entry(keyNode: YamlNode | null, valueNode: YamlNode, keyRange: Range, depth: number, viaAlias: boolean): MapEntry | null | undefined {
    let key: PyScalar = null;
    if (isScalar(keyNode) || isAlias(keyNode)) {
      const k = this.convert(keyNode, depth + 1, keyRange, viaAlias);
      if (!k) return undefined;
      if (k.kind !== 'scalar') {
        this.problems.push({ code: 'complex-key', message: 'a mapping key must be a plain value', range: keyRange });
        return null;
      }
      key = k.value as PyScalar;
    } else if (keyNode != null) {
      this.problems.push({ code: 'complex-key', message: 'a mapping key must be a plain value, not a list or mapping', range: keyRange });
      return null;
    }
    const child = this.convert(valueNode, depth + 1, [keyRange[1], keyRange[1]], viaAlias);
    if (!child) return undefined;
    child.keyRange = keyRange;
    return { key: key instanceof PyFloat ? key.value : key, keyRange, node: child };
  }

  /**
   * The pairs a merge key (`<<`) brings in, in PyYAML's order: a list of mappings is taken last
   * to first, so that, read in order with later pairs winning, the first mapping of the list wins.
   */
  private mergeSources(valueNode: YamlNode, depth: number, keyRange: Range, viaAlias: boolean): MapEntry[] | undefined {
    const src = this.convert(valueNode, depth + 1, keyRange, viaAlias);
    if (!src) return undefined;
    const maps = src.kind === 'seq' ? [...(src.items ?? [])].reverse() : [src];
    const out: MapEntry[] = [];
    for (const m of maps) {
      if (m.kind === 'map') out.push(...(m.entries ?? []));
      else this.problems.push({ code: 'bad-merge', message: 'a merge key (<<) must refer to a mapping or a list of mappings', range: m.range });
    }
    return out;
  }

  private alias(node: Alias, depth: number, range: Range): DocNode | undefined {
    const target = node.resolve(this.doc) as YamlNode | undefined;
    if (!target) {
      this.problems.push({ code: 'unknown-alias', message: `unknown alias *${node.source}`, range });
      return { kind: 'scalar', value: null, range };
    }
    if (this.resolving.has(target)) {
      this.abort('alias-cycle', `alias *${node.source} refers to itself`, range);
      return undefined;
    }
    this.resolving.add(target);
    const out = this.convert(target, depth, range, true);
    this.resolving.delete(target);
    // The alias's own position is where a reader looks for it.
    return out ? { ...out, range } : undefined;
  }

  private scalar(node: Scalar): PyScalar {
    const raw = typeof node.value === 'string' ? node.value : String(node.value);
    const tag = node.tag;
    if (tag && tag !== '!') {
      const short = tag.replace('tag:yaml.org,2002:', '!!');
      if (short === '!!str') return raw;
      if (short === '!!int' && INT_RE.test(raw)) return resolveInt(raw);
      if (short === '!!float') {
        const v = FLOAT_RE.test(raw) || INT_RE.test(raw) ? resolveFloat(raw) : Number(raw);
        return new PyFloat(v);
      }
      if (short === '!!bool' && (BOOL_TRUE.has(raw) || BOOL_FALSE.has(raw))) return BOOL_TRUE.has(raw);
      if (short === '!!null') return null;
      return raw;
    }
    return node.type === 'PLAIN' ? resolvePlainScalar(raw) : raw;
  }

  /** safe_load refuses a tag it has no constructor for (`!foo`, `!!python/...`), with this message. */
  private checkTag(node: YamlNode, range: Range): void {
    const tag = isAlias(node) ? undefined : node.tag;
    if (tag === undefined || tag === '!' || SAFE_TAGS.has(tag.replace('tag:yaml.org,2002:', '!!'))) return;
    this.problems.push({ code: 'unknown-tag', message: `could not determine a constructor for the tag '${tag}'`, range });
  }

  private abort(code: string, message: string, range: Range): void {
    this.aborted = true;
    this.problems.push({ code, message, range });
  }
}

type MapEntry = NonNullable<DocNode['entries']>[number];

/**
 * A mapping's entries as PyYAML builds its dict: merged pairs first, then the mapping's own, each
 * key kept at its first position with its last value (so the mapping's own value wins).
 */
function mergedOrder(merged: MapEntry[], own: MapEntry[]): MapEntry[] {
  const byKey = new Map<PyScalar, MapEntry>();
  for (const e of [...merged, ...own]) byKey.set(e.key, e);
  return [...byKey.values()];
}

function rangeOf(node: YamlNode | null | undefined, fallback: Range): Range {
  const r = node?.range;
  return r ? [r[0], r[1]] : fallback;
}

/** Parses one YAML document. Never throws; problems carry offsets into `text`. */
export function parseYaml(text: string): ParsedYaml {
  if (text.length > YAML_LIMITS.maxBytes) {
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    return {
      text,
      root: undefined,
      problems: [{ code: 'too-large', message: `file is ${mb(text.length)} MB; a cookbook config must be under ${mb(YAML_LIMITS.maxBytes)} MB`, range: [0, 0] }],
    };
  }
  if (looksBinary(text)) {
    return { text, root: undefined, problems: [{ code: 'binary', message: 'not a UTF-8 text file (binary content); expected a YAML cookbook config', range: [0, 0] }] };
  }
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { schema: 'failsafe', version: '1.1', uniqueKeys: false, prettyErrors: false, strict: false });
  } catch (e) {
    return { text, root: undefined, problems: [{ code: 'yaml-syntax', message: `YAML parser failed: ${(e as Error).message}`, range: [0, 0] }] };
  }
  // The parser recurses per nesting level; hostile nesting surfaces as a stack overflow.
  const overflow = doc.errors.find((e) => /call stack/i.test(e.message));
  if (overflow) {
    return {
      text,
      root: undefined,
      problems: [{ code: 'too-deep', message: 'nesting too deep to read; a cookbook config is a few levels deep', range: [overflow.pos[0], Math.max(overflow.pos[1], overflow.pos[0])] }],
    };
  }
  const problems: ParseProblem[] = doc.errors.map((e) => ({
    code: 'yaml-syntax',
    message: e.message.split('\n')[0] ?? e.message,
    range: [e.pos[0], Math.max(e.pos[1], e.pos[0])] as Range,
  }));
  if (problems.length > 0) return { text, root: undefined, problems };
  const conv = new Converter(doc);
  let root: DocNode | undefined;
  try {
    root = conv.convert(doc.contents, 0, [0, text.length], false);
  } catch (e) {
    // A stack overflow on pathological nesting must still end in a finding.
    conv.problems.push({ code: 'too-deep', message: `document too complex to read: ${(e as Error).message}`, range: [0, 0] });
    root = undefined;
  }
  // safe_load fails as a whole on a tag it cannot construct: nothing of the document is read.
  if (conv.problems.some((p) => p.code === 'unknown-tag')) root = undefined;
  return { text, root, problems: conv.problems };
}

/** The node at a path of keys and indexes, if every step exists. */
export function nodeAt(root: DocNode | undefined, path: readonly PathSegment[]): DocNode | undefined {
  let cur = root;
  for (const seg of path) {
    if (!cur) return undefined;
    if (cur.kind === 'map') cur = cur.entries?.find((e) => e.key === seg)?.node;
    else if (cur.kind === 'seq' && typeof seg === 'number') cur = cur.items?.[seg];
    else return undefined;
  }
  return cur;
}

/** The deepest existing node along a path (the nearest parent when the path is missing). */
export function nearestNode(root: DocNode | undefined, path: readonly PathSegment[]): { node: DocNode | undefined; depth: number } {
  let cur = root;
  let depth = 0;
  for (const seg of path) {
    const next = nodeAt(cur, [seg]);
    if (!next) break;
    cur = next;
    depth++;
  }
  return { node: cur, depth };
}
