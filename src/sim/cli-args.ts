// Parses a framework's server argv against its flag table the way its real CLI does (argparse or click),
// including the real error texts' shape: `usage:` + `prog: error: ...` (argparse) or click's `Error: ...`.
import type { FlagSpec } from '../core/frameworks/types';

export type FlagValue = boolean | number | string | string[];

export interface CliShape {
  style: 'argparse' | 'click';
  /** Program name as the usage line prints it (`vllm serve`, `launch_server.py`, `trtllm-serve serve`). */
  prog: string;
  /** Option strings are `--` + key with `_` -> `-` (dash) or the key verbatim (click names). */
  flagStyle: 'dash' | 'verbatim';
  /** A positional model argument and the flag key it fills. */
  positional?: { metavar: string; key: string; required: boolean; help: string };
  /** argparse accepts unique prefixes of long options (allow_abbrev). */
  allowAbbrev: boolean;
  /** `--max_model_len` is read as `--max-model-len` (vLLM's parser does this). */
  underscoresAsDashes: boolean;
  /** Flag keys that must be given. */
  required: string[];
  /** Usage text after `usage: ` (argparse) — built from the table when absent. */
  usage?: string;
}

export class CliParseError extends Error {
  constructor(
    readonly text: string,
    readonly exitCode = 2,
  ) {
    super(text);
  }
}

export interface OptionEntry {
  spec: FlagSpec;
  /** The option string as the user wrote it resolves to this spec; `negate` for the `--no-x` form. */
  negate: boolean;
}

export function optionStrings(spec: FlagSpec, flagStyle: 'dash' | 'verbatim'): string[] {
  const form = (k: string): string => (flagStyle === 'dash' ? `--${k.replace(/_/g, '-')}` : `--${k}`);
  return [...new Set([spec.key, ...(spec.aliases ?? [])].map(form))];
}

export function buildOptionTable(specs: readonly FlagSpec[], flagStyle: 'dash' | 'verbatim'): Map<string, OptionEntry> {
  const table = new Map<string, OptionEntry>();
  for (const spec of specs) {
    for (const s of optionStrings(spec, flagStyle)) if (!table.has(s)) table.set(s, { spec, negate: false });
    if (spec.disableForm && !table.has(spec.disableForm)) table.set(spec.disableForm, { spec, negate: true });
  }
  return table;
}

export interface ParsedArgs {
  values: Map<string, FlagValue>;
  /** The option strings the user actually wrote, by key (for messages). */
  spelled: Map<string, string>;
  help: boolean;
}

/** argparse's view of a token that starts with `-`: an option, unless it looks like a negative number. */
function looksLikeOption(tok: string): boolean {
  return tok.startsWith('-') && tok !== '-' && !/^-\d+(\.\d*)?([eE][-+]?\d+)?$/.test(tok);
}

function pyRepr(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export class ArgParser {
  readonly table: Map<string, OptionEntry>;
  private readonly longNames: string[];

  constructor(
    readonly specs: readonly FlagSpec[],
    readonly shape: CliShape,
  ) {
    this.table = buildOptionTable(specs, shape.flagStyle);
    this.longNames = [...this.table.keys()];
  }

  private fail(message: string, usage: string): never {
    if (this.shape.style === 'click') {
      throw new CliParseError(`${usage}\nTry '${this.shape.prog} --help' for help.\n\nError: ${message}\n`);
    }
    throw new CliParseError(`${usage}\n${this.shape.prog}: error: ${message}\n`);
  }

  /** Finds the option a written name means: exact, then (argparse with allow_abbrev) a unique prefix. */
  private lookup(name: string, usage: string): OptionEntry | undefined {
    let n = name;
    if (this.shape.underscoresAsDashes && n.startsWith('--')) n = `--${n.slice(2).replace(/_/g, '-')}`;
    const exact = this.table.get(n);
    if (exact) return exact;
    if (this.shape.style !== 'argparse' || !this.shape.allowAbbrev || !n.startsWith('--')) return undefined;
    const hits = this.longNames.filter((o) => o.startsWith(n));
    const specs = new Set(hits.map((h) => this.table.get(h)?.spec));
    if (hits.length === 1 || specs.size === 1) return this.table.get(hits[0] as string);
    if (hits.length > 1) this.fail(`ambiguous option: ${name} could match ${hits.join(', ')}`, usage);
    return undefined;
  }

  private argName(spec: FlagSpec): string {
    return optionStrings(spec, this.shape.flagStyle).join('/');
  }

  private convert(spec: FlagSpec, raw: string, written: string, usage: string): FlagValue {
    const click = this.shape.style === 'click';
    const bad = (what: string): never =>
      click
        ? this.fail(`Invalid value for '${written}': ${pyRepr(raw)} is not a valid ${what}.`, usage)
        : this.fail(`argument ${this.argName(spec)}: invalid ${what === 'integer' ? 'int' : what} value: ${pyRepr(raw)}`, usage);
    switch (spec.kind) {
      case 'int': {
        if (!/^\s*[-+]?\d+\s*$/.test(raw)) bad('integer');
        return Number.parseInt(raw, 10);
      }
      case 'float': {
        const v = Number(raw.trim());
        if (raw.trim() === '' || Number.isNaN(v) || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?(inf|infinity|nan)$/i.test(raw.trim())) bad('float');
        return v;
      }
      case 'choice': {
        const choices = spec.choices ?? [];
        if (!choices.includes(raw)) {
          if (click) this.fail(`Invalid value for '${written}': ${pyRepr(raw)} is not one of ${choices.map(pyRepr).join(', ')}.`, usage);
          this.fail(`argument ${this.argName(spec)}: invalid choice: ${pyRepr(raw)} (choose from ${choices.map(pyRepr).join(', ')})`, usage);
        }
        return raw;
      }
      default:
        return raw;
    }
  }

  parse(argv: readonly string[], usage: string): ParsedArgs {
    const values = new Map<string, FlagValue>();
    const spelled = new Map<string, string>();
    const unknown: string[] = [];
    const positionals: string[] = [];
    let help = false;
    let onlyPositionals = false;
    for (let i = 0; i < argv.length; i++) {
      const tok = argv[i] as string;
      if (onlyPositionals || !looksLikeOption(tok)) {
        positionals.push(tok);
        continue;
      }
      if (tok === '--') {
        onlyPositionals = true;
        continue;
      }
      if (tok === '-h' || tok === '--help') {
        help = true;
        continue;
      }
      const eq = tok.startsWith('--') ? tok.indexOf('=') : -1;
      const name = eq > 0 ? tok.slice(0, eq) : tok;
      const inline = eq > 0 ? tok.slice(eq + 1) : undefined;
      const entry = this.lookup(name, usage);
      if (!entry) {
        if (this.shape.style === 'click') this.fail(`No such option: ${name}`, usage);
        unknown.push(tok);
        // argparse leaves the words after an unknown option as extras too.
        while (i + 1 < argv.length && !looksLikeOption(argv[i + 1] as string)) unknown.push(argv[++i] as string);
        continue;
      }
      const { spec } = entry;
      spelled.set(spec.key, name);
      if (spec.kind === 'bool') {
        if (inline !== undefined) {
          if (this.shape.style === 'click') this.fail(`Option '${name}' does not take a value.`, usage);
          this.fail(`argument ${entry.negate ? (spec.disableForm ?? name) : this.argName(spec)}: ignored explicit argument ${pyRepr(inline)}`, usage);
        }
        values.set(spec.key, !entry.negate);
        continue;
      }
      if (spec.kind === 'list') {
        const items: string[] = inline !== undefined ? [inline] : [];
        while (i + 1 < argv.length && !looksLikeOption(argv[i + 1] as string)) items.push(argv[++i] as string);
        if (items.length === 0) this.fail(`argument ${this.argName(spec)}: expected at least one argument`, usage);
        values.set(spec.key, items);
        continue;
      }
      let raw = inline;
      if (raw === undefined) {
        const next = argv[i + 1];
        if (next === undefined || (looksLikeOption(next) && this.shape.style === 'argparse')) {
          if (this.shape.style === 'click') this.fail(`Option '${name}' requires an argument.`, usage);
          this.fail(`argument ${this.argName(spec)}: expected one argument`, usage);
        }
        raw = next;
        i++;
      }
      values.set(spec.key, this.convert(spec, raw, name, usage));
    }
    if (help) return { values, spelled, help };
    const pos = this.shape.positional;
    if (pos && positionals.length > 0) {
      values.set(pos.key, positionals.shift() as string);
    }
    if (positionals.length > 0) {
      if (this.shape.style === 'click') {
        this.fail(`Got unexpected extra argument${positionals.length > 1 ? 's' : ''} (${positionals.join(' ')})`, usage);
      }
      unknown.unshift(...positionals);
    }
    if (this.shape.style === 'click' && pos?.required && !values.has(pos.key)) this.fail(`Missing argument '${pos.metavar}'.`, usage);
    const missing = this.shape.required.filter((k) => !values.has(k));
    if (missing.length > 0 && this.shape.style === 'argparse') {
      const names = missing.map((k) => {
        const spec = this.specs.find((s) => s.key === k);
        return spec ? this.argName(spec) : `--${k}`;
      });
      this.fail(`the following arguments are required: ${names.join(', ')}`, usage);
    }
    if (unknown.length > 0) this.fail(`unrecognized arguments: ${unknown.join(' ')}`, usage);
    return { values, spelled, help };
  }
}
