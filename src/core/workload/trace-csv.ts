// The `trace-csv` dataset: replay of a request trace kept as CSV with a timestamp and token counts per request, as the
// Azure LLM inference traces (TIMESTAMP, ContextTokens, GeneratedTokens) and BurstGPT (Timestamp, Request tokens,
// Response tokens) publish them: each row due at its timestamp (relative to the first, × the slowdown factor), with a
// prompt of its input length and its output length. Columns are found by those names, case and spacing aside.
import { readDatasetText } from './file-text';
import { finishOverhead, finishText, type BuildContext } from './context';
import { Rng } from './rng';
import { PromptSynth } from './synth';
import type { WorkloadRow } from './types';

export interface TraceCsvEntry {
  /** ms since the trace's first row. */
  atMs: number;
  input: number;
  output: number;
}

const TIME_COLUMNS = ['timestamp', 'time', 'arrival_time'];
const INPUT_COLUMNS = ['contexttokens', 'requesttokens', 'input_length', 'inputtokens', 'prompt_tokens'];
const OUTPUT_COLUMNS = ['generatedtokens', 'responsetokens', 'output_length', 'outputtokens', 'completion_tokens'];

const norm = (h: string): string => h.trim().replace(/^"|"$/g, '').toLowerCase().replace(/\s+/g, '');

/** A timestamp cell in ms: seconds as a number (BurstGPT), or a date-time (Azure: `2023-11-16 18:15:46.6805900`). */
function timeMs(cell: string): number | undefined {
  const t = cell.trim().replace(/^"|"$/g, '');
  if (/^[0-9.]+$/.test(t)) return Number(t) * 1000;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?/.exec(t);
  if (!m) return undefined;
  const base = Date.parse(`${m[1] as string}T${m[2] as string}Z`);
  return Number.isFinite(base) ? base + (m[3] ? Number(m[3]) * 1000 : 0) : undefined;
}

/** The trace's rows in time order; an error names the file, the line and what it expected. */
export function readTraceCsv(path: string): TraceCsvEntry[] {
  const text = readDatasetText(path);
  const lines = text.split(/\r?\n/);
  const head = (lines[0] ?? '').split(',').map(norm);
  const col = (names: readonly string[]): number => head.findIndex((h) => names.includes(h));
  const [ti, ii, oi] = [col(TIME_COLUMNS), col(INPUT_COLUMNS), col(OUTPUT_COLUMNS)];
  if (ti < 0 || ii < 0 || oi < 0) throw new Error(`${path}:1: expected a header with a timestamp column (TIMESTAMP / Timestamp) and token columns (ContextTokens and GeneratedTokens, or Request tokens and Response tokens); found: ${lines[0] ?? ''}`);
  const raw: Array<{ t: number; input: number; output: number }> = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.trim()) continue;
    const cells = line.split(',');
    const t = timeMs(cells[ti] ?? '');
    const input = Number(cells[ii]);
    const output = Number(cells[oi]);
    if (t === undefined || !Number.isFinite(input) || !Number.isFinite(output)) throw new Error(`${path}:${i + 1}: expected a timestamp and two token counts in columns ${ti + 1}, ${ii + 1}, ${oi + 1}`);
    // A request with no output (BurstGPT's failures) asks for nothing to measure: left out.
    if (output < 1) continue;
    raw.push({ t, input: Math.max(1, Math.round(input)), output: Math.round(output) });
  }
  if (raw.length === 0) throw new Error(`${path}: no trace rows with output tokens`);
  raw.sort((a, b) => a.t - b.t);
  const t0 = (raw[0] as { t: number }).t;
  return raw.map((r) => ({ atMs: r.t - t0, input: r.input, output: r.output }));
}

/** Rows of the trace (the first --num-prompts when > 0), each due at its time × --mooncake-slowdown-factor. */
export function buildTraceCsv(ctx: BuildContext): WorkloadRow[] {
  const { opts, tokenizer } = ctx;
  if (!opts.datasetPath) throw new Error('--dataset-name trace-csv needs --dataset-path (a CSV trace: timestamp and token columns)');
  if (!(opts.mooncakeSlowdownFactor > 0)) throw new Error('--mooncake-slowdown-factor must be > 0');
  const all = readTraceCsv(opts.datasetPath);
  const take = opts.numPrompts > 0 ? all.slice(0, opts.numPrompts) : all;
  const specials = tokenizer.numSpecialTokensToAdd();
  const overhead = finishOverhead(ctx);
  const synth = new PromptSynth(tokenizer, new Rng(opts.seed + 11));
  const rows = take.map((e): WorkloadRow => {
    const content = Math.max(1, e.input - specials);
    return { prompt: finishText(ctx, synth.text(content)), promptLen: content + specials + overhead, outputLen: e.output, scenario: 'trace', arrivalMs: e.atMs * opts.mooncakeSlowdownFactor };
  });
  const span = ((take[take.length - 1]?.atMs ?? 0) / 1000).toFixed(1);
  ctx.notes.push(`trace-csv: ${take.length} of ${all.length} trace rows over ${span} s replayed at their timestamps x ${opts.mooncakeSlowdownFactor} (--request-rate ignored); prompts of their input lengths`);
  return rows;
}
