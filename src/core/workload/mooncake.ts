// The `mooncake` dataset: replay of a Mooncake trace (timestamp, input_length, output_length, hash_ids) at its own pace.
import { readDatasetText } from './file-text';
import { finishOverhead, finishText, type BuildContext } from './context';
import { Rng } from './rng';
import { PromptSynth } from './synth';
import type { ChatMessage, WorkloadRow } from './types';

/** Tokens per hash id in Mooncake traces. */
export const MOONCAKE_BLOCK = 512;

export interface MooncakeEntry {
  /** ms; a later turn of a session may have none (it comes `delay` after the previous answer). */
  timestamp: number | undefined;
  input_length: number;
  output_length: number;
  hash_ids: number[];
  /** Session fields (AIPerf's Mooncake JSONL): the conversation, and the think time before this turn (ms). */
  session_id?: string;
  delay?: number;
}

export function readMooncakeTrace(path: string): MooncakeEntry[] {
  const text = readDatasetText(path);
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
    const session = typeof v.session_id === 'string' || typeof v.session_id === 'number' ? String(v.session_id) : undefined;
    const delay = typeof v.delay === 'number' && v.delay >= 0 ? v.delay : undefined;
    const timed = typeof ts === 'number' || (session !== undefined && delay !== undefined);
    if (!timed || typeof inLen !== 'number' || typeof outLen !== 'number' || !Array.isArray(hashes)) {
      throw new Error(`${path}:${i + 1}: expected {"timestamp": ms, "input_length", "output_length", "hash_ids": [...]} (a later turn of a session: "session_id" and "delay" ms instead of "timestamp")`);
    }
    const entry: MooncakeEntry = { timestamp: typeof ts === 'number' ? ts : undefined, input_length: Math.max(1, Math.round(inLen)), output_length: Math.max(1, Math.round(outLen)), hash_ids: hashes.filter((h): h is number => typeof h === 'number') };
    if (session !== undefined) entry.session_id = session;
    if (delay !== undefined) entry.delay = delay;
    out.push(entry);
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
  const sessions = sessionsOf(opts.datasetPath, readMooncakeTrace(opts.datasetPath));
  const multi = sessions.some((x) => x.length > 1);
  if (multi && !opts.chatBackend) throw new Error(`${opts.datasetPath}: its sessions have later turns, which need a chat backend (sglang-oai-chat, vllm-chat, openai-chat)`);
  if (multi && opts.mooncakeNumRounds > 1) throw new Error(`${opts.datasetPath}: a trace with sessions sets its own turns; drop --mooncake-num-rounds`);
  const take = opts.numPrompts > 0 ? sessions.slice(0, opts.numPrompts) : sessions;
  const specials = tokenizer.numSpecialTokensToAdd();
  const overhead = finishOverhead(ctx);
  const textOf = traceText(ctx);
  const t0 = take[0]?.[0]?.timestamp ?? 0;
  const rows: WorkloadRow[] = [];
  for (const session of take) {
    const e = session[0] as MooncakeEntry;
    const content = Math.max(1, e.input_length - specials);
    const text = textOf(e, content);
    const arrivalMs = ((e.timestamp ?? t0) - t0) * opts.mooncakeSlowdownFactor;
    const base: WorkloadRow = { prompt: finishText(ctx, text), promptLen: content + specials + overhead, outputLen: e.output_length, scenario: 'mooncake', arrivalMs, metadata: { hash_ids: e.hash_ids.length } };
    if (session.length > 1) Object.assign(base, laterTurns(session.slice(1), textOf, opts.mooncakeSlowdownFactor));
    rows.push(base);
    rows.push(...roundsOf(text, content + specials, e.output_length, arrivalMs, opts.mooncakeNumRounds));
  }
  const turns = take.reduce((n, x) => n + x.length, 0);
  const exact = new PromptSynth(tokenizer, new Rng(opts.seed)).strategy() === 'word-pool';
  if (multi) ctx.notes.push(`mooncake: ${take.length} sessions, ${turns} turns; each later turn sent its trace delay x ${opts.mooncakeSlowdownFactor} after the previous answer, with the conversation as history`);
  ctx.notes.push(
    `mooncake: ${take.length} trace rows replayed at their timestamps x ${opts.mooncakeSlowdownFactor} (--request-rate ignored); prompts have the trace's input_length${exact ? '' : ' (approximately: this tokenizer has no word pool)'}`,
  );
  if (opts.mooncakeNumRounds > 1) ctx.notes.push(`mooncake: ${opts.mooncakeNumRounds} rounds per entry, all due together; lengths of later rounds are estimates`);
  return rows;
}

/**
 * The trace's sessions in order of their first timestamp: entries sharing a session_id, in file order (a later turn
 * needs a delay), and every entry without one a session of its own. A session whose first entry has no timestamp is
 * an error naming it.
 */
function sessionsOf(path: string, entries: MooncakeEntry[]): MooncakeEntry[][] {
  const byId = new Map<string, MooncakeEntry[]>();
  const out: MooncakeEntry[][] = [];
  for (const e of entries) {
    if (e.session_id === undefined) {
      out.push([e]);
      continue;
    }
    const s = byId.get(e.session_id);
    if (s) s.push(e);
    else {
      const fresh = [e];
      byId.set(e.session_id, fresh);
      out.push(fresh);
    }
  }
  for (const s of out) if ((s[0] as MooncakeEntry).timestamp === undefined) throw new Error(`${path}: session ${String(s[0]?.session_id)} has no timestamp on its first entry`);
  return out.sort((a, b) => ((a[0] as MooncakeEntry).timestamp ?? 0) - ((b[0] as MooncakeEntry).timestamp ?? 0));
}

/** Text of `content` tokens for an entry: its hash ids' 512-token blocks first (shared blocks, shared prefixes), then filler. */
function traceText(ctx: BuildContext): (e: MooncakeEntry, content: number) => string {
  const { opts, tokenizer } = ctx;
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
  return (e, content) => {
    if (!exact) return fillSynth.text(content);
    const words: string[] = [];
    for (const h of e.hash_ids) {
      if (words.length >= content) break;
      for (const w of blockWords(h)) {
        if (words.length >= content) break;
        words.push(w);
      }
    }
    if (words.length < content) words.push(...fillSynth.text(content - words.length).split(' '));
    return words.join(' ');
  };
}

/** A session's later turns: their new input (its incremental input_length), think time and output length. */
function laterTurns(rest: readonly MooncakeEntry[], textOf: (e: MooncakeEntry, content: number) => string, slowdown: number): Pick<WorkloadRow, 'turns' | 'turnLens' | 'thinkMs' | 'turnOutputLens'> {
  return {
    turns: rest.map((e) => textOf(e, e.input_length)),
    turnLens: rest.map((e) => e.input_length),
    thinkMs: rest.map((e) => (e.delay ?? 0) * slowdown),
    turnOutputLens: rest.map((e) => e.output_length),
  };
}

/** --mooncake-num-rounds: rounds 2..R of an entry, due with it, carrying the earlier rounds with placeholder replies. */
function roundsOf(text: string, contentLen: number, outputLen: number, arrivalMs: number, rounds: number): WorkloadRow[] {
  const out: WorkloadRow[] = [];
  const history: ChatMessage[] = [{ role: 'user', content: `Round 1: ${text}` }];
  let histLen = contentLen;
  for (let r = 2; r <= rounds; r++) {
    const reply = new Array<string>(outputLen).fill('story').join(' ');
    history.push({ role: 'assistant', content: reply }, { role: 'user', content: `Round ${r}: ${text}` });
    histLen += outputLen + contentLen + 4;
    out.push({ prompt: history.map((m) => ({ ...m })), promptLen: histLen, outputLen, scenario: `mooncake-round-${r}`, arrivalMs });
  }
  return out;
}

