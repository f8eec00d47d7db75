// Speculative decoding measured per trial: the server's own draft counters read before and after the trial (deltas over
// the window), giving the mean acceptance length (1 + accepted / draft rounds) and the draft acceptance rate (accepted /
// drafted tokens), kept for the row as `spec_decode`. Counter names per engine as docs/ENGINES.md "Speculative
// decoding" cites them (TensorRT-LLM's iteration stats are drained by each /metrics call: polled through the trial);
// a P/D unit's are its decode workers'. A server without them adds nothing.
import type { FrameworkKey } from '../core/frameworks/types';
import type { LiveServer } from './server';

const TIMEOUT_MS = 5000;

/** What a row records as `spec_decode`. */
export interface SpecDecodeBlock {
  basis: 'server_counters';
  /** The counters read, by name. */
  source: string;
  drafts: number;
  /** Drafted tokens; null where the engine does not count them (SGLang). */
  draft_tokens: number | null;
  accepted_tokens: number;
  /** 1 + accepted / drafts: tokens each verification step gave a request. */
  mean_accept_length: number | null;
  /** accepted / drafted tokens. */
  draft_acceptance_rate: number | null;
}

interface Counters {
  drafts: number;
  /** Drafted tokens (vLLM); SGLang counts none. */
  draftTokens: number | null;
  accepted: number;
}

/** vLLM V1's spec-decode counters (vllm/v1/spec_decode/metrics.py @ee4ceaae; `_total` samples summed over engines). */
const VLLM = { drafts: 'vllm:spec_decode_num_drafts_total', draftTokens: 'vllm:spec_decode_num_draft_tokens_total', accepted: 'vllm:spec_decode_num_accepted_tokens_total' };

/**
 * SGLang's: verify calls (`sglang:spec_verify_calls_total`, PR #25689) and the finished requests' output tokens, both
 * counted when a request finishes. Each verify step gives accepted + 1 tokens and the first token comes from prefill,
 * so accepted = (output tokens - requests) - verify calls; it has no drafted-token counter (no acceptance rate).
 */
const SGLANG = { verify: 'sglang:spec_verify_calls_total', tokens: 'sglang:generation_tokens_total', requests: 'sglang:num_requests_total' };

const SOURCE: Partial<Record<FrameworkKey, string>> = {
  vllm: `${VLLM.drafts}, ${VLLM.draftTokens}, ${VLLM.accepted}`,
  sglang: `${SGLANG.verify}, ${SGLANG.tokens}, ${SGLANG.requests}`,
  tensorrt_llm: 'iteration stats specDecodingStats (numRequestsWithDraftTokens, numDraftTokens, numAcceptedTokens) polled from /metrics',
};

/** trtllm-serve's /metrics hands out the iteration stats gathered since the last call: polled this often through a trial. */
const TRT_POLL_MS = 1000;

/** The spec counters of the iteration stats in one trtllm-serve /metrics answer (summed); undefined without any. */
export function trtSpecIn(entries: unknown): Counters | undefined {
  if (!Array.isArray(entries)) return undefined;
  let got: Counters | undefined;
  for (const e of entries) {
    const st = (e as { specDecodingStats?: Record<string, unknown> } | null)?.specDecodingStats;
    if (!st) continue;
    const n = (k: string): number => (typeof st[k] === 'number' ? (st[k]) : 0);
    got ??= { drafts: 0, draftTokens: 0, accepted: 0 };
    got.drafts += n('numRequestsWithDraftTokens');
    got.draftTokens = (got.draftTokens ?? 0) + n('numDraftTokens');
    got.accepted += n('numAcceptedTokens');
  }
  return got;
}

/** Polls trtllm-serve servers' iteration stats through `run` (what came before it drained first) and sums their spec counters. */
async function pollTrt<T>(servers: readonly LiveServer[], run: () => Promise<T>): Promise<{ outcome: T; counters: Counters | undefined }> {
  const pollOne = async (s: LiveServer): Promise<Counters | undefined> => {
    try {
      const r = await fetch(new URL('/metrics', s.baseUrl), { headers: { ...(s.headers ?? {}) }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      return r.ok ? trtSpecIn(await r.json()) : undefined;
    } catch {
      return undefined;
    }
  };
  let total: Counters | undefined;
  const add = (c: Counters | undefined): void => {
    if (!c) return;
    total ??= { drafts: 0, draftTokens: 0, accepted: 0 };
    total.drafts += c.drafts;
    total.draftTokens = (total.draftTokens ?? 0) + (c.draftTokens ?? 0);
    total.accepted += c.accepted;
  };
  const poll = async (): Promise<void> => (await Promise.all(servers.map(pollOne))).forEach(add);
  await Promise.all(servers.map(pollOne));
  let busy: Promise<void> | undefined;
  const timer = setInterval(() => {
    busy ??= poll().finally(() => (busy = undefined));
  }, TRT_POLL_MS);
  let outcome: T;
  try {
    outcome = await run();
  } finally {
    clearInterval(timer);
    await busy;
    await poll();
  }
  return { outcome, counters: total };
}

/** Sum of every sample of a metric (any labels) in a Prometheus text. */
function sample(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    const v = Number(rest.slice(rest.lastIndexOf(' ') + 1));
    if (Number.isFinite(v)) sum = (sum ?? 0) + v;
  }
  return sum;
}

/** An engine's counters in a Prometheus text, or undefined when it has none (no speculation configured). */
export function countersIn(fw: FrameworkKey, text: string): Counters | undefined {
  if (fw === 'vllm') {
    const [drafts, draftTokens, accepted] = [VLLM.drafts, VLLM.draftTokens, VLLM.accepted].map((n) => sample(text, n));
    return drafts === undefined || accepted === undefined ? undefined : { drafts, draftTokens: draftTokens ?? null, accepted };
  }
  if (fw === 'sglang') {
    const [verify, tokens, requests] = [SGLANG.verify, SGLANG.tokens, SGLANG.requests].map((n) => sample(text, n));
    return verify === undefined || tokens === undefined || requests === undefined ? undefined : { drafts: verify, draftTokens: null, accepted: tokens - requests - verify };
  }
  return undefined;
}

async function read(fw: FrameworkKey, s: LiveServer): Promise<Counters | undefined> {
  if (!SOURCE[fw]) return undefined;
  try {
    const r = await fetch(new URL('/metrics', s.baseUrl), { headers: { ...(s.headers ?? {}) }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    return r.ok ? countersIn(fw, await r.text()) : undefined;
  } catch {
    return undefined;
  }
}

/** The block from the counters around a window; undefined when nothing was drafted in it. */
export function specBlock(fw: FrameworkKey, before: Counters, after: Counters): SpecDecodeBlock | undefined {
  const drafts = after.drafts - before.drafts;
  const draftTokens = after.draftTokens !== null && before.draftTokens !== null ? after.draftTokens - before.draftTokens : null;
  const accepted = after.accepted - before.accepted;
  if (!(drafts > 0)) return undefined;
  const r4 = (x: number): number => Math.round(x * 10_000) / 10_000;
  return {
    basis: 'server_counters',
    source: `${SOURCE[fw] ?? fw} (deltas over the trial)`,
    drafts,
    draft_tokens: draftTokens,
    accepted_tokens: accepted,
    mean_accept_length: r4(1 + accepted / drafts),
    draft_acceptance_rate: draftTokens !== null && draftTokens > 0 ? r4(accepted / draftTokens) : null,
  };
}

const blocks = new WeakMap<LiveServer, SpecDecodeBlock>();

/** Runs a trial; the server's (a unit's: its decode workers') spec counters are read before and after. */
export async function withSpecCounters<T>(server: LiveServer, fw: FrameworkKey, prefillWorkers: number | undefined, run: () => Promise<T>): Promise<T> {
  blocks.delete(server);
  if (fw === 'tensorrt_llm') return withTrtSpec(server, prefillWorkers, run);
  const servers = prefillWorkers === undefined ? [server] : (server.companions ?? []).slice(prefillWorkers);
  const before = await Promise.all(servers.map((s) => read(fw, s)));
  if (!before.some(Boolean)) return run();
  const outcome = await run();
  const after = await Promise.all(servers.map((s) => read(fw, s)));
  const sum = (xs: Array<Counters | undefined>, pick: (c: Counters) => number): number => xs.reduce((a, c, i) => a + (c && before[i] && after[i] ? pick(c) : 0), 0);
  const total = (xs: Array<Counters | undefined>): Counters => ({ drafts: sum(xs, (c) => c.drafts), draftTokens: xs.some((c) => c?.draftTokens === null) ? null : sum(xs, (c) => c.draftTokens ?? 0), accepted: sum(xs, (c) => c.accepted) });
  const block = specBlock(fw, total(before), total(after));
  if (block) blocks.set(server, block);
  return outcome;
}

/** TensorRT-LLM: the iteration stats polled through the trial (an aggregated server, or a unit's decode workers). */
async function withTrtSpec<T>(server: LiveServer, prefillWorkers: number | undefined, run: () => Promise<T>): Promise<T> {
  const targets = prefillWorkers === undefined ? [server] : (server.companions ?? []).slice(prefillWorkers);
  if (!targets.length) return run();
  const zero: Counters = { drafts: 0, draftTokens: 0, accepted: 0 };
  const { outcome, counters } = await pollTrt(targets, run);
  const block = counters && specBlock('tensorrt_llm', zero, counters);
  if (block) blocks.set(server, block);
  return outcome;
}

/** The spec-decode block of the last trial on this server (undefined: nothing drafted, or no counters). */
export function specDecodeOf(server: LiveServer): SpecDecodeBlock | undefined {
  return blocks.get(server);
}
