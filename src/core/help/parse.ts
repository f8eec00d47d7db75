// Turns a captured argparse or click `--help` text into a FlagCatalog; never throws.
import type { FrameworkKey } from '../frameworks/types';
import { readDescription } from './description';
import { parseInvocation } from './invocation';
import type { Invocation } from './invocation';
import { classifySnapshotFile } from './classify';
import type { FlagCatalog, HelpFormat, HelpOption, SnapshotRole } from './types';
import { usageOptions } from './usage';
import { metavarKind } from './value-kind';

export interface ParseHint {
  framework?: FrameworkKey;
  role?: SnapshotRole;
  fileName?: string;
}

// Beyond this a text is not a help page; the rest is ignored rather than parsed slowly.
const MAX_CHARS = 8 * 1024 * 1024;
const MAX_LINE = 2000;
// No real option help comes near this; more is dropped so regexes over it stay cheap.
const MAX_DESCRIPTION = 20_000;

interface Pending {
  inv: Invocation;
  lines: string[];
  chars: number;
  group: string | undefined;
}

function emptyCatalog(framework: FrameworkKey | undefined, role: SnapshotRole): FlagCatalog {
  return { framework, role, format: 'argparse', options: [], optionStrings: [], groupedSummaryOnly: false };
}

/** Binary data (NULs, many control characters) is not a help text. */
function looksBinary(text: string): boolean {
  const sample = text.slice(0, 65536);
  if (sample.includes('\u0000')) return true;
  let bad = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) bad++;
  }
  return bad > sample.length / 20;
}

/** `usage: vllm serve [model_tag] [options]` -> `vllm serve`; click's `Usage: trtllm-serve serve [OPTIONS] MODEL` likewise. */
function progFrom(line: string): string | undefined {
  const m = /^usage:\s+(.*)$/i.exec(line.trim());
  if (!m?.[1]) return undefined;
  const words: string[] = [];
  for (const w of m[1].split(/\s+/)) {
    if (/^[[\-{(<]/.test(w) || (words.length > 0 && /^[A-Z_]+$/.test(w))) break;
    words.push(w);
  }
  return words.length ? words.join(' ') : undefined;
}

function frameworkFromProg(prog: string | undefined): FrameworkKey | undefined {
  if (!prog) return undefined;
  if (/^vllm\b/.test(prog)) return 'vllm';
  if (/^trtllm-/.test(prog)) return 'tensorrt_llm';
  if (/^(tokenspeed|ts)\b/.test(prog)) return 'tokenspeed';
  if (/^(sglang\b|launch_server\.py)/.test(prog)) return 'sglang';
  return undefined;
}

function buildOption(p: Pending, format: 'argparse' | 'click'): HelpOption {
  const facts = readDescription(p.lines.join('\n'), p.inv.names);
  const longName = p.inv.names.find((n) => n.startsWith('--')) ?? p.inv.names[0] ?? '';
  const opt: HelpOption = {
    names: p.inv.names,
    negations: p.inv.negations,
    takesValue: p.inv.metavar !== undefined,
    valueKind: 'bool',
    description: facts.description,
  };
  if (p.inv.metavar !== undefined) {
    opt.metavar = p.inv.metavar;
    const info = metavarKind(p.inv.metavar, format, longName, facts.default);
    opt.valueKind = info.kind;
    if (info.choices) opt.choices = info.choices;
    // vLLM's config-object options say so in their help rather than in the metavar.
    if (opt.valueKind === 'string' && /\bvalid JSON string\b/.test(facts.description)) opt.valueKind = 'json';
  }
  if (facts.default !== undefined) opt.default = facts.default;
  if (facts.tags) opt.tags = facts.tags;
  if (p.group !== undefined) opt.group = p.group;
  if (facts.deprecated) opt.deprecated = true;
  return opt;
}

/** An option listed twice (vLLM repeats some under two groups) becomes one entry with all its names. */
function addOption(out: HelpOption[], byName: Map<string, HelpOption>, opt: HelpOption): void {
  const known = opt.names.map((n) => byName.get(n)).find((o) => o !== undefined);
  if (!known) {
    out.push(opt);
    for (const n of [...opt.names, ...opt.negations]) byName.set(n, opt);
    return;
  }
  for (const n of opt.names) if (!known.names.includes(n)) known.names.push(n);
  for (const n of opt.negations) if (!known.negations.includes(n)) known.negations.push(n);
  for (const n of [...opt.names, ...opt.negations]) byName.set(n, known);
}

function parseLines(lines: string[], format: 'argparse' | 'click'): HelpOption[] {
  const options: HelpOption[] = [];
  const byName = new Map<string, HelpOption>();
  let group: string | undefined;
  let pending: Pending | undefined;
  let sawBlank = false;
  const flush = (): void => {
    if (pending) addOption(options, byName, buildOption(pending, format));
    pending = undefined;
  };
  for (const raw of lines) {
    const line = raw.length > MAX_LINE ? '' : raw.trimEnd();
    if (line === '') {
      sawBlank = true;
      continue;
    }
    const indent = line.length - line.trimStart().length;
    if (indent === 0) {
      flush();
      if (/^[^\s].*:$/.test(line) && !/^usage:/i.test(line)) group = line.slice(0, -1).trim();
      sawBlank = false;
      continue;
    }
    if (indent === 2 && line[2] === '-') {
      // The help text starts after the first run of two or more spaces, or on the next line.
      const gap = /\S {2,}(?=\S)/.exec(line.slice(2));
      const left = gap ? line.slice(2, 2 + gap.index + 1) : line.slice(2);
      const inv = parseInvocation(left);
      if (inv) {
        flush();
        const first = gap ? line.slice(2 + gap.index + gap[0].length) : '';
        pending = { inv, lines: first ? [first] : [], chars: first.length, group };
        sawBlank = false;
        continue;
      }
    }
    // Help of the current option: deeper than the option column; after a blank line only if
    // clearly in the help column, so a group description is not swallowed.
    if (pending && indent > 2 && (!sawBlank || indent >= 8)) {
      if (pending.chars < MAX_DESCRIPTION) pending.lines.push(line.trim());
      pending.chars += line.length;
    } else flush();
    sawBlank = false;
  }
  flush();
  return options;
}

/** Options the usage block names but the listing does not (a truncated capture, a suppressed help line). */
function addUsageOnly(options: HelpOption[], fromUsage: HelpOption[]): void {
  const known = new Set(options.flatMap((o) => [...o.names, ...o.negations]));
  for (const o of fromUsage) {
    if ([...o.names, ...o.negations].some((n) => known.has(n))) continue;
    options.push(o);
  }
}

/** vLLM >= 0.11 plain `--help` (and `--help=<keyword>` searches) list groups or matches, not every option. */
function isGroupedSummary(text: string, options: HelpOption[]): boolean {
  if (/^(Parameters matching|Arguments matching|No group or (parameters?|arguments?) matching)\b/m.test(text)) return true;
  if (!/--help=(all|<)/.test(text) && !/^Config Groups:/m.test(text)) return false;
  return options.every((o) => o.names.every((n) => n === '--help' || !n.startsWith('--')));
}

function detectFormat(lines: string[]): 'argparse' | 'click' {
  const first = lines.find((l) => l.trim() !== '') ?? '';
  if (/^Usage: .*\[OPTIONS\]/.test(first)) return 'click';
  return lines.some((l) => l === 'Options:') && !lines.some((l) => /^(options|optional arguments):$/.test(l))
    ? 'click'
    : 'argparse';
}

export function parseHelp(text: string, hint: ParseHint = {}): FlagCatalog {
  const fromName = hint.fileName ? classifySnapshotFile(hint.fileName) : undefined;
  let framework = hint.framework ?? fromName?.framework;
  const role: SnapshotRole = hint.role ?? fromName?.role ?? 'server';
  try {
    if (typeof text !== 'string' || text.length === 0 || looksBinary(text)) return emptyCatalog(framework, role);
    const lines = text.slice(0, MAX_CHARS).split(/\r?\n/);
    const format = detectFormat(lines);
    const usage = lines.find((l) => /^usage:/i.test(l.trim()));
    const prog = usage ? progFrom(usage) : undefined;
    framework ??= frameworkFromProg(prog);
    // `--help` itself is no server flag and the SOURCE.md counts leave it out.
    const options = parseLines(lines, format).filter((o) => {
      o.names = o.names.filter((n) => n !== '--help');
      return o.names.some((n) => n.startsWith('--'));
    });
    const grouped = format === 'argparse' && isGroupedSummary(text, options);
    if (!grouped) addUsageOnly(options, usageOptions(lines));
    const strings = new Set<string>();
    for (const o of options) for (const n of [...o.names, ...o.negations]) if (n.startsWith('--')) strings.add(n);
    const outFormat: HelpFormat = grouped ? 'vllm-grouped-summary' : format;
    const catalog: FlagCatalog = {
      framework,
      role,
      format: outFormat,
      options,
      optionStrings: [...strings].sort(),
      groupedSummaryOnly: grouped,
    };
    if (prog !== undefined) catalog.prog = prog;
    return catalog;
  } catch {
    return emptyCatalog(framework, role);
  }
}
