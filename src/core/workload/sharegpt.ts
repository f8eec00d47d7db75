// The `sharegpt` dataset from a local JSON file: first human turn as prompt, the reply's length as output length.
import { readFileSync } from 'node:fs';
import { finishText, type BuildContext } from './context';
import type { WorkloadRow } from './types';

export interface ShareGptPair {
  prompt: string;
  completion: string;
}

/** Conversations with at least two turns (key `conversations` or `conversation`; text in `value` or `content`). */
export function readShareGptPairs(path: string): ShareGptPair[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (e) {
    throw new Error(`${path}: cannot read ShareGPT JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(data)) throw new Error(`${path}: expected a JSON array of conversations`);
  const out: ShareGptPair[] = [];
  for (const item of data as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    const rec = item as Record<string, unknown>;
    const turns = rec.conversations ?? rec.conversation;
    if (!Array.isArray(turns) || turns.length < 2) continue;
    const text = (t: unknown): string | undefined => {
      if (!t || typeof t !== 'object') return undefined;
      const v = (t as Record<string, unknown>).value ?? (t as Record<string, unknown>).content;
      return typeof v === 'string' ? v : undefined;
    };
    const prompt = text(turns[0]);
    const completion = text(turns[1]);
    if (prompt !== undefined && completion !== undefined) out.push({ prompt, completion });
  }
  return out;
}

/**
 * SGLang's filters: drop rows whose prompt or reply is under 2 tokens, and (with
 * --sharegpt-context-len) rows whose prompt + output exceed it. No upper cap otherwise.
 * --sharegpt-output-len (>= 4) replaces the reply's length. num-prompts <= 0 keeps every row (the runner's pool).
 */
export function buildShareGpt(ctx: BuildContext): WorkloadRow[] {
  const { opts, tokenizer, rng } = ctx;
  if (!opts.datasetPath) throw new Error('--dataset-name sharegpt needs --dataset-path (a local ShareGPT JSON file)');
  if (opts.sharegptOutputLen !== undefined && opts.sharegptOutputLen < 4) throw new Error('--sharegpt-output-len must be >= 4');
  const pairs = rng.shuffle(readShareGptPairs(opts.datasetPath));
  const rows: WorkloadRow[] = [];
  let tooShort = 0;
  let tooLong = 0;
  for (const pair of pairs) {
    if (opts.numPrompts > 0 && rows.length >= opts.numPrompts) break;
    const prompt = finishText(ctx, pair.prompt);
    const promptLen = tokenizer.encode(prompt, true).length;
    const outputLen = opts.sharegptOutputLen ?? tokenizer.encode(pair.completion, true).length;
    if (promptLen < 2 || outputLen < 2) {
      tooShort++;
      continue;
    }
    if (opts.sharegptContextLen !== undefined && promptLen + outputLen > opts.sharegptContextLen) {
      tooLong++;
      continue;
    }
    rows.push({ prompt, promptLen, outputLen, scenario: 'sharegpt' });
  }
  ctx.notes.push(
    `sharegpt: ${rows.length} rows from ${pairs.length} conversations (dropped ${tooShort} under 2 tokens, ${tooLong} over --sharegpt-context-len)`,
  );
  if (rows.length < opts.numPrompts) ctx.notes.push(`sharegpt: only ${rows.length} of the ${opts.numPrompts} requested prompts survived the filters`);
  return rows;
}
