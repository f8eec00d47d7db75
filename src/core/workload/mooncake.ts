// The `mooncake` dataset: replay of a Mooncake trace (timestamp, input_length, output_length, hash_ids) at its own pace.
import { readFileSync } from 'node:fs';
import { finishOverhead, finishText, type BuildContext } from './context';
import { Rng } from './rng';
import { PromptSynth } from './synth';
import type { ChatMessage, WorkloadRow } from './types';

/** Tokens per hash id in Mooncake traces. */
export const MOONCAKE_BLOCK = 512;

export interface MooncakeEntry {
  timestamp: number;
  input_length: number;
  output_length: number;
  hash_ids: number[];
}

export function readMooncakeTrace(path: string): MooncakeEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const out: MooncakeEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (!line) continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`${path}:${i + 1}: invalid JSON: ${(e as Error).message}`);
    }
    const ts = v.timestamp;
    const inLen = v.input_length;
    const outLen = v.output_length;
    const hashes = v.hash_ids ?? [];
    if (typeof ts !== 'number' || typeof inLen !== 'number' || typeof outLen !== 'number' || !Array.isArray(hashes)) {
      throw new Error(`${path}:${i + 1}: expected {"timestamp": ms, "input_length", "output_length", "hash_ids": [...]}`);
    }
    out.push({ timestamp: ts, input_length: Math.max(1, Math.round(inLen)), output_length: Math.max(1, Math.round(outLen)), hash_ids: hashes.filter((h): h is number => typeof h === 'number') });
  }
  if (out.length === 0) throw new Error(`${path}: no trace rows`);
  return out;
}

/**
 * Rows keep the trace's input_length exactly (deliberate difference: SGLang ignores it and builds
 * 128 "hi" per hash id). Each hash id stands for one 512-token block of text derived from the id
 * alone, so requests sharing hash ids share prompt prefixes, as the trace intends. Arrival times are
 * (timestamp - first) x --mooncake-slowdown-factor; --request-rate is ignored. With
 * --mooncake-num-rounds R (chat backends) each entry yields R requests due together, round k carrying
 * the k-1 earlier rounds with placeholder replies as history.
 */
export function buildMooncake(ctx: BuildContext): WorkloadRow[] {
  const { opts, tokenizer } = ctx;
  if (!opts.datasetPath) throw new Error('--dataset-name mooncake needs --dataset-path (a Mooncake trace JSONL file)');
  if (opts.mooncakeNumRounds > 1 && !opts.chatBackend) throw new Error('--mooncake-num-rounds > 1 needs a chat backend');
  if (!(opts.mooncakeSlowdownFactor > 0)) throw new Error('--mooncake-slowdown-factor must be > 0');
  const entries = readMooncakeTrace(opts.datasetPath).sort((a, b) => a.timestamp - b.timestamp);
  const take = opts.numPrompts > 0 ? entries.slice(0, opts.numPrompts) : entries;
  const specials = tokenizer.numSpecialTokensToAdd();
  const overhead = finishOverhead(ctx);
  const blocks = new Map<number, string[]>();
  const blockWords = (hash: number): string[] => {
    let w = blocks.get(hash);
    if (!w) {
      const synth = new PromptSynth(tokenizer, new Rng(opts.seed ^ Math.imul(hash, 2654435761)));
      w = synth.text(MOONCAKE_BLOCK).split(' ');
      blocks.set(hash, w);
    }
    return w;
  };
  const fillSynth = new PromptSynth(tokenizer, new Rng(opts.seed + 7));
  const exact = fillSynth.strategy() === 'word-pool';
  const t0 = take[0]?.timestamp ?? 0;
  const rows: WorkloadRow[] = [];
  for (const e of take) {
    const content = Math.max(1, e.input_length - specials);
    let text: string;
    if (exact) {
      const words: string[] = [];
      for (const h of e.hash_ids) {
        if (words.length >= content) break;
        for (const w of blockWords(h)) {
          if (words.length >= content) break;
          words.push(w);
        }
      }
      if (words.length < content) words.push(...fillSynth.text(content - words.length).split(' '));
      text = words.join(' ');
    } else {
      text = fillSynth.text(content);
    }
    const arrivalMs = (e.timestamp - t0) * opts.mooncakeSlowdownFactor;
    const base: WorkloadRow = { prompt: finishText(ctx, text), promptLen: content + specials + overhead, outputLen: e.output_length, scenario: 'mooncake', arrivalMs, metadata: { hash_ids: e.hash_ids.length } };
    rows.push(base);
    const history: ChatMessage[] = [{ role: 'user', content: `Round 1: ${text}` }];
    let histLen = content + specials;
    for (let r = 2; r <= opts.mooncakeNumRounds; r++) {
      const reply = new Array<string>(e.output_length).fill('story').join(' ');
      history.push({ role: 'assistant', content: reply }, { role: 'user', content: `Round ${r}: ${text}` });
      histLen += e.output_length + content + 4;
      rows.push({ prompt: history.map((m) => ({ ...m })), promptLen: histLen, outputLen: e.output_length, scenario: `mooncake-round-${r}`, arrivalMs });
    }
  }
  ctx.notes.push(
    `mooncake: ${take.length} trace rows replayed at their timestamps x ${opts.mooncakeSlowdownFactor} (--request-rate ignored); prompts have the trace's input_length${exact ? '' : ' (approximately: this tokenizer has no word pool)'}`,
  );
  if (opts.mooncakeNumRounds > 1) ctx.notes.push(`mooncake: ${opts.mooncakeNumRounds} rounds per entry, all due together; lengths of later rounds are estimates`);
  return rows;
}
