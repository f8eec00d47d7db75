// Completion for cookbook configs: schema keys, server flags from the snapshot in force, and their values.
import { knownFlagsFor, type KnownFlags, type SnapshotFlags } from '../config/known-flags';
import type { ConfigKind } from '../config/model';
import { schemaKeysAt, schemaValueAt, type SchemaKey } from '../config/schema-check';
import { resolvePlainScalar } from '../config/yaml-doc';
import { flagOption } from '../frameworks';
import { disaggProfile } from '../frameworks/disagg';
import { isFrameworkKey, type FlagSpec, type FrameworkKey } from '../frameworks/types';
import { cursorContext } from './cursor';
import { sourceDetail, sourceLabel } from './snapshot-label';

export type CompletionKind = 'property' | 'flag' | 'value' | 'boolean';

export interface CompletionEntry {
  label: string;
  kind: CompletionKind;
  /** One line shown beside the label. */
  detail?: string;
  /** Markdown shown in the details pane. */
  documentation?: string;
  insertText: string;
  /** `insertText` is an LSP snippet: a value to pick (`${1|true,false|}`) follows the key. */
  snippet?: boolean;
  /** Offsets the insert text replaces. */
  replace: [number, number];
  sortText?: string;
  deprecated?: boolean;
}

const FLAG_BLOCKS = new Set(['base_server_flags', 'search_space']);

interface FlagBlock {
  fw: FrameworkKey;
  /** How values are written: one value (`base_server_flags`, a P/D role's `flags`) or a list to try (`search_space`). */
  block: string;
  /** A P/D unit's search space: keys are `prefill.<flag>` / `decode.<flag>` (and `<role>.workers`). */
  rolePrefixed?: boolean;
  /** Flags a P/D unit sets on each worker itself: not offered. */
  reserved?: ReadonlySet<string>;
}

/** The flag mapping the cursor is in: a framework's base flags or search space, a P/D role's flags, or the unit search space. */
function flagBlock(parents: string[]): FlagBlock | undefined {
  const [top, fw, block, role, leaf] = parents;
  if (top !== 'frameworks' || !isFrameworkKey(fw)) return undefined;
  if (parents.length === 3 && block && FLAG_BLOCKS.has(block)) return { fw, block };
  if (block !== 'disaggregation') return undefined;
  const reserved = new Set(Object.keys(disaggProfile(fw)?.reserved ?? {}));
  if (parents.length === 5 && (role === 'prefill' || role === 'decode') && leaf === 'flags') return { fw, block: 'base_server_flags', reserved };
  if (parents.length === 4 && role === 'search_space') return { fw, block: 'search_space', rolePrefixed: true, reserved };
  return undefined;
}

/** A flag key as the block spells it: `decode.tp_size` in a unit search space; the flag's own key elsewhere. */
function unprefixed(b: FlagBlock, key: string): string {
  return b.rolePrefixed ? key.replace(/^(prefill|decode)\./, '') : key;
}

export function flagDoc(fw: FrameworkKey, flag: FlagSpec, known: KnownFlags): string {
  const lines = [`**\`${flagOption(fw, flag.key)}\`**${flag.aliases?.length ? ` (also ${flag.aliases.map((a) => `\`${a}\``).join(', ')})` : ''}`];
  if (flag.deprecated) lines.push('_Deprecated in this version._');
  if (flag.help) lines.push(flag.help);
  const facts: string[] = [`value: ${flag.kind}`];
  if (flag.choices?.length) facts.push(`choices: ${flag.choices.join(', ')}`);
  if (flag.default !== undefined) facts.push(`default: ${flag.default}`);
  if (flag.defaultOn) facts.push(`on by default${flag.disableForm ? `; \`false\` renders \`${flag.disableForm}\`` : ''}`);
  lines.push(facts.join(' · '));
  lines.push(`_${sourceDetail(known)}_`);
  return lines.join('\n\n');
}

/** A string as a YAML value that reads back as that string: quoted where YAML would read a null, a boolean or syntax. */
export function yamlString(v: string): string {
  const plain = resolvePlainScalar(v);
  const special = plain === null || typeof plain === 'boolean' || v !== v.trim() || /^(?:[-?:](?:\s|$)|[,[\]{}#&*!|>'"%@`])|: | #|[,[\]{}]/.test(v);
  return special ? `'${v.replace(/'/g, "''")}'` : v;
}

/** Text that stands for itself inside an LSP snippet (`$`, `}` and backslash escaped). */
export const snippetText = (s: string): string => s.replace(/[$}\\]/g, '\\$&');

/** A snippet's one placeholder offering `values` to pick from (the first one preselected). */
function choicePlaceholder(values: readonly string[]): string {
  return `\${1|${values.map((v) => v.replace(/[,|\\]/g, '\\$&')).join(',')}|}`;
}

/** A value as YAML text: a string reads back as that string; a schema's other values (numbers, null) as written. */
const yamlValue = (v: unknown): string => (typeof v === 'string' ? yamlString(v) : String(v));

function valueEntries(values: readonly unknown[], replace: [number, number], detail: string): CompletionEntry[] {
  return values.map((v, i) => ({ label: String(v), kind: 'value' as const, detail, insertText: yamlValue(v), replace, sortText: String(i).padStart(4, '0') }));
}

/**
 * What a flag's key inserts: a boolean or a flag with fixed choices gets its value to pick (a key without one would be
 * null, which leaves the flag out), in a list in search_space; other flags the key alone. A boolean offers first the
 * value that changes something: `false` for a flag that is on by default.
 */
function flagInsert(f: FlagSpec, block: string): { insertText: string; snippet?: boolean } {
  const values = f.choices?.length ? f.choices.map(yamlValue) : f.kind === 'bool' ? (f.defaultOn ? ['false', 'true'] : ['true', 'false']) : undefined;
  if (!values) return { insertText: `${f.key}: ` };
  const pick = choicePlaceholder(values);
  return { insertText: `${snippetText(f.key)}: ${block === 'search_space' ? `[${pick}]` : pick}`, snippet: true };
}

/** What a schema key inserts: a block opens on the next line; a boolean or closed set of scalars gets its value to pick. */
function propertyInsert(k: SchemaKey, indent: number): { insertText: string; snippet?: boolean } {
  if (k.types.length > 0 && k.types.every((t) => t === 'object' || t === 'array')) return { insertText: `${k.name}:\n${' '.repeat(indent + 2)}` };
  const values = k.values?.length ? k.values.map(yamlValue) : k.types.includes('boolean') && k.types.every((t) => t === 'boolean' || t === 'null') ? ['true', 'false'] : undefined;
  if (!values) return { insertText: `${k.name}: ` };
  return { insertText: `${snippetText(k.name)}: ${choicePlaceholder(values)}`, snippet: true };
}

function booleans(replace: [number, number]): CompletionEntry[] {
  return ['true', 'false'].map((b) => ({ label: b, kind: 'boolean' as const, insertText: b, replace }));
}

const WORKERS_DOC = 'How many workers of this role each unit starts: the values to try (xPyD).';

/** Flag keys to offer in a flag mapping (each role's in a unit search space, with its worker count), the taken and reserved ones left out. */
function flagKeyEntries(b: FlagBlock, taken: ReadonlySet<string>, replace: [number, number], snapshots: SnapshotFlags | undefined): CompletionEntry[] {
  const known = knownFlagsFor(b.fw, snapshots);
  const label = sourceLabel(known);
  const flags = known.flags.filter((f) => !b.reserved?.has(f.key));
  const entry = (f: FlagSpec, prefix: string): CompletionEntry => {
    const ins = flagInsert(f, b.block);
    return {
      label: `${prefix}${f.key}`,
      kind: 'flag' as const,
      detail: `${f.kind}${f.choices?.length ? ` {${f.choices.slice(0, 4).join(',')}${f.choices.length > 4 ? ',…' : ''}}` : ''} · ${label}`,
      documentation: flagDoc(b.fw, f, known),
      ...ins,
      insertText: `${ins.snippet ? snippetText(prefix) : prefix}${ins.insertText}`,
      replace,
      sortText: `${f.deprecated ? '1' : '0'}${prefix}${f.key}`,
      ...(f.deprecated ? { deprecated: true } : {}),
    };
  };
  if (!b.rolePrefixed) return flags.filter((f) => !taken.has(f.key)).map((f) => entry(f, ''));
  return ['prefill.', 'decode.'].flatMap((prefix) => [
    { label: `${prefix}workers`, kind: 'property' as const, detail: 'integer list', documentation: WORKERS_DOC, insertText: `${prefix}workers: [`, replace, sortText: `0${prefix}` },
    ...flags.map((f) => entry(f, prefix)),
  ]).filter((e) => !taken.has(e.label));
}

export function completeAt(text: string, offset: number, kind: ConfigKind, snapshots: SnapshotFlags | undefined): CompletionEntry[] {
  const ctx = cursorContext(text, offset);
  const flags = flagBlock(ctx.parents);

  if (flags && ctx.where === 'key') return flagKeyEntries(flags, new Set(ctx.siblings), ctx.replace, snapshots);

  const owner = ctx.key !== undefined ? flagBlock(ctx.parents) : undefined;
  if (owner && ctx.key !== undefined && (ctx.where === 'value' || ctx.where === 'item')) {
    const known = knownFlagsFor(owner.fw, snapshots);
    const key = unprefixed(owner, ctx.key);
    const f = known.flags.find((x) => x.key === key || x.aliases?.includes(key));
    if (!f) return [];
    if (f.choices?.length) return valueEntries(f.choices, ctx.replace, `${ctx.key} · ${sourceLabel(known)}`);
    if (f.kind === 'bool') return booleans(ctx.replace);
    return [];
  }

  if (ctx.where === 'key') {
    const taken = new Set(ctx.siblings);
    return schemaKeysAt(kind, ctx.parents)
      .filter((k) => !taken.has(k.name))
      .map((k) => {
        const e: CompletionEntry = {
          label: k.name,
          kind: 'property',
          ...propertyInsert(k, ctx.indent),
          replace: ctx.replace,
          sortText: `${k.deprecated ? '1' : '0'}${k.name}`,
        };
        if (k.types.length) e.detail = k.types.join(' | ');
        if (k.description) e.documentation = k.description;
        if (k.deprecated) e.deprecated = true;
        return e;
      });
  }

  if (ctx.key !== undefined) {
    const v = schemaValueAt(kind, [...ctx.parents, ctx.key]);
    const item = ctx.where === 'item' ? schemaValueAt(kind, [...ctx.parents, ctx.key, 0]) : undefined;
    const values = (item ?? v)?.values;
    if (values?.length) return valueEntries(values, ctx.replace, ctx.key);
    if ((item ?? v)?.types.includes('boolean')) return booleans(ctx.replace);
  }
  return [];
}
