// `autobench compare`: a drop-in for the playbook's compare_benchmark_results.py (same arguments,
// same Markdown and CSV bytes for well-formed input, same line-numbered errors, exit 1 on a bad line).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { compareCsvRecords, renderCompareMarkdown } from '../core/results/compare';
import { rankRows } from '../core/results/rank';
import { readRows } from '../core/results/rows';
import { UsageError } from './errors';
import type { CliIO } from './validate';

export const COMPARE_HELP = `usage: autobench compare --input ROWS.jsonl --output SUMMARY.md [--csv SUMMARY.csv]

Rank normalized result rows (one JSON object per line) and write the playbook's
summary: best command per framework and scenario, the cross-framework
comparison, and the failed or SLA-failing candidates.

options:
  --input ROWS.jsonl    normalized JSONL, one row per candidate and scenario
  --output SUMMARY.md   Markdown summary to write (folders are created)
  --csv SUMMARY.csv     also write every row, best first, as CSV
  -h, --help            show this help

The files are byte-identical to compare_benchmark_results.py's for well-formed
input, NaN/Infinity literals included (read, ranked and printed as Python does).
A difference on purpose: a row without 'framework' gets its own table.

exit status: 0 written, 1 a row could not be read, 2 bad arguments`;

const OPTIONS = ['--input', '--output', '--csv', '--help'] as const;

/**
 * argparse accepts `--opt value`, `--opt=value` and any unambiguous prefix (`--in`), so the
 * drop-in does too.
 */
export function parseCompareArgs(argv: string[]): { input?: string; output?: string; csv?: string; help: boolean } {
  const out: { input?: string; output?: string; csv?: string; help: boolean } = { help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h') {
      out.help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unrecognized arguments: ${arg}\n\n${COMPARE_HELP}`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    const matches = OPTIONS.filter((o) => o === name || o.startsWith(name));
    const exact = OPTIONS.find((o) => o === name);
    const opt = exact ?? (matches.length === 1 ? matches[0] : undefined);
    if (!opt) {
      throw new UsageError(matches.length > 1 ? `ambiguous option: ${name} could match ${matches.join(', ')}` : `unrecognized arguments: ${arg}\n\n${COMPARE_HELP}`);
    }
    if (opt === '--help') {
      out.help = true;
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || (value.startsWith('-') && value.length > 1 && !/^-\d/.test(value))) throw new UsageError(`argument ${opt}: expected one argument`);
      i++;
    }
    out[opt.slice(2) as 'input' | 'output' | 'csv'] = value;
  }
  return out;
}

/** How Python prints a pathlib.Path: repeated slashes and `.` parts dropped, no trailing slash. */
export function pythonPathStr(p: string): string {
  if (p === '') return '.';
  const lead = p.startsWith('//') && !p.startsWith('///') ? '//' : p.startsWith('/') ? '/' : '';
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  return `${lead}${parts.join('/')}` || '.';
}

/** Why a file could not be read or written, in words (Python prints a traceback; we print one line). */
function fsReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const words: Record<string, string> = { ENOENT: 'no such file', EISDIR: 'is a directory', EACCES: 'permission denied', ENOTDIR: 'not a directory', EEXIST: 'a file is in the way' };
  return (code && words[code]) ?? code ?? (e as Error).message;
}

/**
 * The script opens `Path(arg)`: '' is '.', `a//b/` is `a/b`; its text is strict UTF-8 with any BOM
 * kept (json.loads then refuses the BOM with the line it is on).
 */
function readInput(input: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(pythonPathStr(input));
  } catch (e) {
    throw new UsageError(`cannot read ${pythonPathStr(input)}: ${fsReason(e)}`, 1);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UsageError(`cannot read ${pythonPathStr(input)}: not valid UTF-8`, 1);
  }
}

// In unicode mode only an unpaired surrogate half is a code point of category Cs.
const UNENCODABLE = /\p{Cs}/u;

/**
 * Path.parent.mkdir(parents=True, exist_ok=True), then the chunks as Python writes them: write_text
 * is one chunk, csv.writer one per record. A JSON string may hold an unpaired surrogate (`"\ud800"`),
 * which UTF-8 cannot encode: Python keeps the chunks before it (the file is already truncated) and
 * exits 1 with UnicodeEncodeError. Any failure is exit 1, as in Python.
 */
function writeChunks(path: string, chunks: readonly string[]): void {
  const target = pythonPathStr(path);
  const bad = chunks.findIndex((c) => UNENCODABLE.test(c));
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, (bad < 0 ? chunks : chunks.slice(0, bad)).join(''), 'utf8');
  } catch (e) {
    throw new UsageError(`cannot write ${target}: ${fsReason(e)}`, 1);
  }
  if (bad >= 0) {
    const code = (UNENCODABLE.exec(chunks[bad] as string)?.[0] ?? '').charCodeAt(0).toString(16);
    throw new UsageError(`cannot write ${target}: 'utf-8' codec can't encode character '\\u${code}': surrogates not allowed`, 1);
  }
}

export function runCompare(argv: string[], io: CliIO): number {
  const args = parseCompareArgs(argv);
  if (args.help) {
    io.out.write(`${COMPARE_HELP}\n`);
    return 0;
  }
  // argparse counts `--output ''` as given (it is Path('.'), which then fails to open).
  const missing = [args.input === undefined && '--input', args.output === undefined && '--output'].filter(Boolean);
  if (missing.length) throw new UsageError(`the following arguments are required: ${missing.join(', ')}\n\n${COMPARE_HELP}`);
  const input = args.input as string;
  // NaN and Infinity as Python's json reads them: the playbook's script accepts rows other Python tools wrote.
  const read = readRows(readInput(input), pythonPathStr(input), { nonFinite: true });
  if (!read.ok) {
    // The script exits through SystemExit(message): the bare message on stderr, status 1.
    io.err.write(`${read.message}\n`);
    return 1;
  }
  const data = read.rows.map((r) => r.data);
  const ranked = rankRows(data);
  writeChunks(args.output as string, [renderCompareMarkdown(data, ranked)]);
  // `if args.csv:` is true for any Path, even Path('') (which is '.', and fails to open).
  if (args.csv !== undefined) writeChunks(args.csv, compareCsvRecords(data, ranked));
  return 0;
}
