// The `builtin-text` dataset: the natural-language prompts the product ships (datasets/builtin-text.jsonl), sent as text at the requested lengths.
import { existsSync } from 'node:fs';
import { readDatasetText } from './file-text';
import { dirname, join, resolve } from 'node:path';
import { finishOverhead, finishText, type BuildContext } from './context';
import { sampleLength } from './lengths';
import type { TokenizerLike } from './tokenizer';
import type { WorkloadRow } from './types';

export const BUILTIN_TEXT_FILE = 'builtin-text.jsonl';
export const BUILTIN_TEXT_DOMAINS = ['chat', 'code', 'math', 'summarisation'] as const;
export type BuiltinTextDomain = (typeof BUILTIN_TEXT_DOMAINS)[number];

export interface BuiltinPrompt {
  id: string;
  domain: BuiltinTextDomain;
  prompt: string;
}

/** datasets/builtin-text.jsonl beside the code: dist/cli.js -> ../datasets; src/core/workload/*.ts -> ../../../datasets. */
export function findBuiltinText(start = __dirname): string | undefined {
  let dir = resolve(start);
  for (let i = 0; i < 6; i++) {
    const cand = join(dir, 'datasets', BUILTIN_TEXT_FILE);
    if (existsSync(cand)) return cand;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

const cache = new Map<string, BuiltinPrompt[]>();

function parseLine(path: string, n: number, line: string): BuiltinPrompt {
  let v: unknown;
  try {
    v = JSON.parse(line) as unknown;
  } catch (e) {
    throw new Error(`${path}:${n}: invalid JSON (${(e as Error).message}); each line is {"id", "domain", "prompt"}`);
  }
  const r = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  if (typeof r.id !== 'string' || typeof r.prompt !== 'string' || r.prompt.trim() === '') throw new Error(`${path}:${n}: needs a string "id" and a non-empty string "prompt"`);
  if (!(BUILTIN_TEXT_DOMAINS as readonly unknown[]).includes(r.domain)) throw new Error(`${path}:${n}: "domain" must be one of ${BUILTIN_TEXT_DOMAINS.join(', ')}`);
  return { id: r.id, domain: r.domain as BuiltinTextDomain, prompt: r.prompt };
}

/** The shipped prompts (read once per path); an error names the file, the line and what a line holds. */
export function readBuiltinText(path = findBuiltinText()): BuiltinPrompt[] {
  if (!path) throw new Error(`builtin-text: ${BUILTIN_TEXT_FILE} was not found in a datasets/ folder above ${__dirname}; reinstall the package (it ships datasets/${BUILTIN_TEXT_FILE})`);
  const hit = cache.get(path);
  if (hit) return hit;
  const text = readDatasetText(path);
  const out: BuiltinPrompt[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() !== '') out.push(parseLine(path, i + 1, line));
  });
  if (out.length === 0) throw new Error(`${path}: no prompts`);
  cache.set(path, out);
  return out;
}

/** Token counts of the prompts (no special tokens), once per tokenizer and file. */
const counts = new WeakMap<TokenizerLike, Map<string, number[]>>();
function countsOf(tokenizer: TokenizerLike, path: string, prompts: readonly BuiltinPrompt[]): number[] {
  let byPath = counts.get(tokenizer);
  if (!byPath) counts.set(tokenizer, (byPath = new Map<string, number[]>()));
  let c = byPath.get(path);
  if (!c) byPath.set(path, (c = prompts.map((p) => tokenizer.encode(p.prompt, false).length)));
  return c;
}

/** The longest run of whole words from one end of `text` whose encoding has at most `n` tokens (estimate, then step). */
export function cutToTokens(tokenizer: TokenizerLike, text: string, total: number, n: number, keep: 'head' | 'tail'): { text: string; tokens: number } {
  const words = text.split(' ');
  const take = (k: number) => (keep === 'head' ? words.slice(0, k) : words.slice(words.length - k)).join(' ');
  const len = (k: number) => (k <= 0 ? 0 : tokenizer.encode(take(k), false).length);
  let k = Math.max(1, Math.min(words.length, Math.floor((words.length * n) / Math.max(1, total))));
  let t = len(k);
  while (t > n && k > 1) t = len(--k);
  while (k < words.length) {
    const next = len(k + 1);
    if (next > n) break;
    k++;
    t = next;
  }
  return { text: take(k), tokens: t };
}

interface Piece {
  text: string;
  tokens: number;
}

/** The task (the last piece): a prompt that fits `budget`, else one cut to its last `budget` tokens. */
function pickTask(ctx: BuildContext, prompts: readonly BuiltinPrompt[], tokens: readonly number[], budget: number): { index: number; piece: Piece; cut: boolean } {
  const fits: number[] = [];
  tokens.forEach((t, i) => {
    if (t <= budget) fits.push(i);
  });
  if (fits.length > 0) {
    const index = ctx.rng.pick(fits);
    return { index, piece: { text: (prompts[index] as BuiltinPrompt).prompt, tokens: tokens[index] as number }, cut: false };
  }
  const index = ctx.rng.int(0, prompts.length - 1);
  return { index, piece: cutToTokens(ctx.tokenizer, (prompts[index] as BuiltinPrompt).prompt, tokens[index] as number, budget, 'tail'), cut: true };
}

/** Other prompts of the set before the task, whole and then one cut, until the budget is spent. */
function contextBefore(ctx: BuildContext, prompts: readonly BuiltinPrompt[], tokens: readonly number[], task: number, room: number, joinCost: number): Piece[] {
  const out: Piece[] = [];
  const order = ctx.rng.shuffle(prompts.map((_, i) => i).filter((i) => i !== task));
  let left = room;
  for (let k = 0; left - joinCost >= 4; k++) {
    const i = order[k % order.length] as number;
    const want = left - joinCost;
    const t = tokens[i] as number;
    const piece = t <= want ? { text: (prompts[i] as BuiltinPrompt).prompt, tokens: t } : cutToTokens(ctx.tokenizer, (prompts[i] as BuiltinPrompt).prompt, t, want, 'head');
    if (piece.tokens === 0) break;
    out.push(piece);
    left -= piece.tokens + joinCost;
  }
  return out;
}

/**
 * Each request is one prompt of the set (the task, chosen by the seed among those that fit the sampled input length),
 * preceded, when the length asks for more, by other prompts of the set as earlier text; a task longer than the length
 * is cut to its last tokens. Lengths are sampled as `random`'s (--random-input-len, --random-output-len, range ratio);
 * the recorded prompt length is the sum of the parts, checked on a re-encoded sample.
 */
export function buildBuiltinText(ctx: BuildContext): WorkloadRow[] {
  const { opts, tokenizer, rng } = ctx;
  const path = findBuiltinText();
  const prompts = readBuiltinText(path);
  const tokens = countsOf(tokenizer, path as string, prompts);
  const specials = tokenizer.numSpecialTokensToAdd();
  const overhead = finishOverhead(ctx);
  const joinCost = Math.max(0, tokenizer.encode(`${prompts[0]?.prompt ?? ''}\n\n${prompts[1]?.prompt ?? ''}`, false).length - (tokens[0] ?? 0) - (tokens[1] ?? 0));
  const scenario = `builtin-text-${opts.randomInputLen}-${opts.randomOutputLen}`;
  const rows: WorkloadRow[] = [];
  let cut = 0;
  for (let i = 0; i < opts.numPrompts; i++) {
    const inLen = Math.max(sampleLength(opts.randomInputLen, opts.randomRangeRatio, opts.rangeRatioConvention, rng), specials + 1);
    const outLen = sampleLength(opts.randomOutputLen, opts.randomRangeRatio, opts.rangeRatioConvention, rng);
    const budget = Math.max(1, inLen - specials - overhead);
    const task = pickTask(ctx, prompts, tokens, budget);
    if (task.cut) cut++;
    const before = contextBefore(ctx, prompts, tokens, task.index, budget - task.piece.tokens, joinCost);
    const parts = [...before, task.piece];
    const promptLen = specials + overhead + parts.reduce((s, p) => s + p.tokens, 0) + joinCost * (parts.length - 1);
    const p = prompts[task.index] as BuiltinPrompt;
    rows.push({ prompt: finishText(ctx, parts.map((x) => x.text).join('\n\n')), promptLen, outputLen: outLen, scenario, metadata: { builtin_id: p.id, domain: p.domain, context_prompts: before.length } });
  }
  const byDomain = BUILTIN_TEXT_DOMAINS.map((d) => `${d} ${prompts.filter((p) => p.domain === d).length}`).join(', ');
  ctx.notes.push(`builtin-text: ${prompts.length} natural-language prompts shipped with autobench (${byDomain}), sent as text; a task shorter than the input length follows other prompts of the set as earlier text`);
  if (cut > 0) ctx.notes.push(`builtin-text: ${cut} of ${rows.length} tasks were longer than their input length and were cut to their last tokens`);
  return rows;
}
