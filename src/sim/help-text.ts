// Writes a framework's `--help` from our flag table in its CLI's layout: argparse (SGLang, vLLM, TokenSpeed)
// or click (TensorRT-LLM). Names, aliases, kinds, choices and defaults are the table's; sentences are ours.
// src/core/help parses these texts back into the same table (a test holds it to that).
import type { FlagSpec } from '../core/frameworks/types';
import { optionStrings, type CliShape } from './cli-args';

const WIDTH = 80;

/** Splits text into lines of at most `width` characters at spaces. */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out.length ? out : [''];
}

function metavarOf(spec: FlagSpec, style: 'argparse' | 'click'): string | undefined {
  if (spec.kind === 'bool') return undefined;
  if (style === 'click') {
    if (spec.kind === 'choice') return `[${(spec.choices ?? []).join('|')}]`;
    return { int: 'INTEGER', float: 'FLOAT', path: 'PATH' }[spec.kind as string] ?? 'TEXT';
  }
  if (spec.kind === 'choice') return `{${(spec.choices ?? []).join(',')}}`;
  const dest = spec.key.toUpperCase();
  return spec.kind === 'list' ? `${dest} [${dest} ...]` : dest;
}

function describe(spec: FlagSpec, withDefault: boolean): string {
  let text = spec.help ?? '';
  if (spec.deprecated) text = `[DEPRECATED] ${text}`;
  // The help parser reads JSON-valued options from this phrase, as vLLM prints it.
  if (spec.kind === 'json') text += ' Should be a valid JSON string.';
  if (withDefault && spec.default !== undefined) text += ` (default: ${spec.default})`;
  return text.trim();
}

function invocation(spec: FlagSpec, shape: CliShape): string {
  const names = optionStrings(spec, shape.flagStyle);
  const mv = metavarOf(spec, shape.style);
  if (shape.style === 'click') return `${names.join(', ')}${mv ? ` ${mv}` : ''}`;
  const parts = names.map((n) => (mv ? `${n} ${mv}` : n));
  if (spec.disableForm) parts.push(spec.disableForm);
  return parts.join(', ');
}

/** One option in argparse's two columns: help at column 24, or on the next line when the names are long. */
function argparseItem(left: string, help: string): string[] {
  const indent = '  ';
  const col = 24;
  const body = help ? wrapText(help, WIDTH - col) : [];
  const first = `${indent}${left}`;
  if (body.length === 0) return [first];
  if (first.length <= col - 2) return [first.padEnd(col) + body[0], ...body.slice(1).map((l) => ' '.repeat(col) + l)];
  return [first, ...body.map((l) => ' '.repeat(col) + l)];
}

/** click's layout: help at column 34 (30-wide first column), wrapped to 78. */
function clickItem(left: string, help: string): string[] {
  const col = 34;
  const body = help ? wrapText(help, 78 - col) : [];
  const first = `  ${left}`;
  if (body.length === 0) return [first];
  if (first.length <= col - 2) return [first.padEnd(col) + body[0], ...body.slice(1).map((l) => ' '.repeat(col) + l)];
  return [first, ...body.map((l) => ' '.repeat(col) + l)];
}

/** argparse's generated usage: every option in brackets, wrapped under the program name. */
export function argparseUsage(specs: readonly FlagSpec[], shape: CliShape): string {
  if (shape.usage) return `usage: ${shape.usage}`;
  const items: string[] = ['[-h]'];
  for (const spec of specs) {
    const name = optionStrings(spec, shape.flagStyle)[0] as string;
    const mv = metavarOf(spec, 'argparse');
    let item = mv ? `${name} ${mv}` : name;
    if (spec.disableForm) item = `${name} | ${spec.disableForm}`;
    items.push(shape.required.includes(spec.key) ? item : `[${item}]`);
  }
  if (shape.positional) items.push(shape.positional.required ? shape.positional.metavar : `[${shape.positional.metavar}]`);
  const head = `usage: ${shape.prog} `;
  const lines: string[] = [];
  let line = head;
  for (const it of items) {
    if (line.length > head.length && line.length + it.length + 1 > WIDTH) {
      lines.push(line.trimEnd());
      line = ' '.repeat(head.length);
    }
    line += `${it} `;
  }
  lines.push(line.trimEnd());
  return lines.join('\n');
}

export function clickUsage(shape: CliShape): string {
  const pos = shape.positional ? ` ${shape.positional.metavar}` : '';
  return `Usage: ${shape.prog} [OPTIONS]${pos}`;
}

export interface HelpOptions {
  description: string;
  /** Print `(default: X)` after help (vLLM's formatter does; SGLang's does not). */
  showDefaults: boolean;
  /** Group heading for the options (argparse prints `options:`). */
  heading?: string;
}

export function renderHelp(specs: readonly FlagSpec[], shape: CliShape, opts: HelpOptions): string {
  const out: string[] = [];
  if (shape.style === 'click') {
    out.push(clickUsage(shape), '', ...wrapText(opts.description, 76).map((l) => `  ${l}`), '', 'Options:');
    for (const spec of specs) out.push(...clickItem(invocation(spec, shape), describe(spec, opts.showDefaults)));
    out.push(...clickItem('--help', 'Show this message and exit.'));
    return `${out.join('\n')}\n`;
  }
  out.push(argparseUsage(specs, shape), '', ...wrapText(opts.description, WIDTH), '');
  if (shape.positional) {
    out.push('positional arguments:', ...argparseItem(shape.positional.metavar, shape.positional.help), '');
  }
  out.push(`${opts.heading ?? 'options'}:`, ...argparseItem('-h, --help', 'show this help message and exit'));
  for (const spec of specs) out.push(...argparseItem(invocation(spec, shape), describe(spec, opts.showDefaults)));
  return `${out.join('\n')}\n`;
}
