// Completion for cookbook configs: schema keys, server flags from the snapshot in force, and their values.
import { knownFlagsFor, type KnownFlags, type SnapshotFlags } from '../config/known-flags';
import type { ConfigKind } from '../config/model';
import { schemaKeysAt, schemaValueAt } from '../config/schema-check';
import { flagOption } from '../frameworks';
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
  /** Offsets the insert text replaces. */
  replace: [number, number];
  sortText?: string;
  deprecated?: boolean;
}

const FLAG_BLOCKS = new Set(['base_server_flags', 'search_space']);

function flagBlock(parents: string[]): { fw: FrameworkKey; block: string } | undefined {
  const [top, fw, block] = parents;
  if (parents.length === 3 && top === 'frameworks' && isFrameworkKey(fw) && block && FLAG_BLOCKS.has(block)) return { fw, block };
  return undefined;
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

function valueEntries(values: string[], replace: [number, number], detail: string): CompletionEntry[] {
  return values.map((v, i) => ({ label: v, kind: 'value' as const, detail, insertText: v, replace, sortText: String(i).padStart(4, '0') }));
}

function booleans(replace: [number, number]): CompletionEntry[] {
  return ['true', 'false'].map((b) => ({ label: b, kind: 'boolean' as const, insertText: b, replace }));
}

export function completeAt(text: string, offset: number, kind: ConfigKind, snapshots: SnapshotFlags | undefined): CompletionEntry[] {
  const ctx = cursorContext(text, offset);
  const flags = flagBlock(ctx.parents);

  if (flags && ctx.where === 'key') {
    const known = knownFlagsFor(flags.fw, snapshots);
    const taken = new Set(ctx.siblings);
    const label = sourceLabel(known);
    return known.flags
      .filter((f) => !taken.has(f.key))
      .map((f) => ({
        label: f.key,
        kind: 'flag' as const,
        detail: `${f.kind}${f.choices?.length ? ` {${f.choices.slice(0, 4).join(',')}${f.choices.length > 4 ? ',…' : ''}}` : ''} · ${label}`,
        documentation: flagDoc(flags.fw, f, known),
        insertText: `${f.key}: `,
        replace: ctx.replace,
        sortText: `${f.deprecated ? '1' : '0'}${f.key}`,
        ...(f.deprecated ? { deprecated: true } : {}),
      }));
  }

  const owner = ctx.key !== undefined ? flagBlock(ctx.parents) : undefined;
  if (owner && ctx.key !== undefined && (ctx.where === 'value' || ctx.where === 'item')) {
    const known = knownFlagsFor(owner.fw, snapshots);
    const f = known.flags.find((x) => x.key === ctx.key || x.aliases?.includes(ctx.key ?? ''));
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
        const block = k.types.length > 0 && k.types.every((t) => t === 'object' || t === 'array');
        const e: CompletionEntry = {
          label: k.name,
          kind: 'property',
          insertText: block ? `${k.name}:\n${' '.repeat(ctx.indent + 2)}` : `${k.name}: `,
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
    if (values?.length) return valueEntries(values.map((x) => String(x)), ctx.replace, ctx.key);
    if ((item ?? v)?.types.includes('boolean')) return booleans(ctx.replace);
  }
  return [];
}
