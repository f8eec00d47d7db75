// The next step for a candidate that was not selected, from what limited it: the SLA target its first failing
// rate missed (TTFT: prefills; TPOT: the batch; saturation: capacity), an invalid trial, a launch failure and its
// log tail, or its status (oom, timeout, skipped, ...). Knob names are the framework's own spelling.
import type { NextStep, NotSelectedCategory } from './report-model';
import type { SlaCheck } from './sla';
import { slaTarget } from '../sla/limits';

export interface Advice {
  next: NextStep;
  advice: string;
}

/** What limited a candidate in a scenario: its first failing trial, judged. */
export interface Limit {
  category: NotSelectedCategory;
  framework: string;
  /** The failing trial's failure_reason (empty for an SLA miss). */
  reason: string;
  checks: readonly SlaCheck[];
  /** The server completed fewer requests per second than arrived. */
  saturated: boolean;
  /** The trial ran but failed the validity gates; `environmental` when only the measuring machine was at fault. */
  invalid?: { environmental: boolean };
  /** The server never came up: the end of its log, and where the whole log is (empty when unknown). */
  launch?: { tail: string; log: string };
}

const FLAG_PROBLEM = /unrecognized argument|unknown (?:flag|argument|option)|invalid choice|no such option|error: argument|invalid value for|unexpected keyword|not a valid/i;
const MEMORY = /out of memory|\boom\b|cuda error: out of memory|cannot allocate|insufficient memory|kv cache.*(?:too small|not enough)/i;
const TRANSIENT = /timed? ?out|timeout|health ?check|connection (?:refused|reset)|econnrefused|econnreset|\b50[234]\b|broken pipe|temporar/i;
const MISSING_BINARY = /command not found|no module named|not installed|no such file/i;

/**
 * The knobs that bound prefill work per step (TTFT) and the running batch (TPOT), spelled as each CLI takes them
 * (written out rather than derived, so the summary panel's bundle does not carry the flag tables; a test checks them).
 */
export const PREFILL_KNOBS: Readonly<Record<string, readonly string[]>> = {
  sglang: ['--chunked-prefill-size', '--max-prefill-tokens'],
  vllm: ['--max-num-batched-tokens', '--max-num-partial-prefills'],
  tensorrt_llm: ['--enable_chunked_prefill', '--max_num_tokens'],
  tokenspeed: ['--chunked-prefill-size', '--max-prefill-tokens'],
};
export const BATCH_KNOBS: Readonly<Record<string, readonly string[]>> = {
  sglang: ['--max-running-requests'],
  vllm: ['--max-num-seqs'],
  tensorrt_llm: ['--max_batch_size'],
  tokenspeed: ['--max-num-seqs'],
};

function knobs(table: Readonly<Record<string, readonly string[]>>, framework: string, generic: string): string {
  return table[framework]?.join(', ') ?? generic;
}

const STATUS_ADVICE: Partial<Record<NotSelectedCategory, Advice>> = {
  'user-excluded': { next: 'nothing', advice: 'Left out by the caller; this is not a verdict on the framework.' },
  skipped: { next: 'nothing', advice: 'Skipped by policy (budget, early stop or a rule); nothing to do unless the policy changes.' },
  unsupported: { next: 'nothing', advice: 'Not supported by this framework (for example a TensorRT-LLM engine backend); not retried.' },
  smoke: { next: 'nothing', advice: 'A smoke or flow-check row (eager mode, CUDA graphs off or reduced prompts); never a best candidate.' },
  invalid: { next: 'fix-parameter', advice: 'The row has no valid status; fix the row writer and rerun the candidate.' },
  timeout: { next: 'retry', advice: 'Timed out: read the server log, then retry with a longer startup or benchmark timeout.' },
};

function oomAdvice(framework: string): Advice {
  return { next: 'fix-parameter', advice: `Out of memory: lower the batch or sequence knobs (${knobs(BATCH_KNOBS, framework, 'max running requests, max_num_seqs, max_batch_size')}) or use more GPUs; keep memory fractions fixed unless capacity is the question.` };
}

export function adviseFor(limit: Limit): Advice {
  const { category, reason } = limit;
  if (category === 'sla-failing') return slaAdvice(limit);
  if (category === 'oom') return withLaunch(oomAdvice(limit.framework), limit);
  const fixed = STATUS_ADVICE[category];
  if (fixed) return withLaunch(fixed, limit);
  if (limit.invalid) return invalidAdvice(limit.invalid.environmental);
  return withLaunch(failedAdvice(reason, limit.framework), limit);
}

function failedAdvice(reason: string, framework: string): Advice {
  if (FLAG_PROBLEM.test(reason)) return { next: 'fix-parameter', advice: 'The CLI rejected a flag or value: check it against the captured --help of this exact version.' };
  if (MEMORY.test(reason)) return oomAdvice(framework);
  if (TRANSIENT.test(reason)) return { next: 'retry', advice: 'Looks transient (timeout, health check or connection): retry once; if it repeats, read the server log.' };
  if (MISSING_BINARY.test(reason)) return { next: 'fix-parameter', advice: 'The command or module is missing in this environment: fix the image or server_command.' };
  return { next: 'investigate', advice: reason ? 'Read the server and benchmark logs for the cause; retry once if it was transient.' : 'No failure reason was recorded: read the logs, and record a reason in the row next time.' };
}

/** A launch failure's advice ends with what the server said last (and where its whole log is). */
function withLaunch(a: Advice, limit: Limit): Advice {
  if (!limit.launch) return a;
  const { tail, log } = limit.launch;
  const said = tail ? ` The server's log ends: ${tail}` : ' The server left no log lines.';
  return { next: a.next, advice: `${a.advice}${said}${log ? ` (full log: ${log})` : ''}` };
}

function invalidAdvice(environmental: boolean): Advice {
  if (environmental) return { next: 'retry', advice: 'The measuring machine, not the server, was the bottleneck (client- or host-bound), so the trial was not judged: measure again on a quieter machine or with fewer parallel jobs.' };
  return { next: 'investigate', advice: 'The trial was not a valid measurement (wrong output lengths, error responses or server errors), so it was not judged: read the server log for what went wrong, then measure again.' };
}

function slaAdvice(limit: Limit): Advice {
  const fw = limit.framework;
  const missed = limit.checks.filter((c) => !c.passed);
  if (missed.some((c) => c.value === undefined)) return { next: 'investigate', advice: 'A metric the SLA needs was not recorded: rerun with a client that reports it.' };
  if (missed.some((c) => slaTarget(c.key).kind === 'min-rate')) return { next: 'retry', advice: 'Requests failed: read the benchmark log; retry, and lower concurrency if errors come from overload.' };
  // Which phase a missed latency limit judges: the label names it (p50 TTFT, p99 TPOT, p50 E2E).
  const over = new Set(missed.map((c) => /TTFT|TPOT|E2E/.exec(slaTarget(c.key).label)?.[0].toLowerCase()));
  const prefill = knobs(PREFILL_KNOBS, fw, 'the prefill chunk size');
  const batch = knobs(BATCH_KNOBS, fw, 'the maximum running requests');
  // A server that did not keep pace queues requests, and every latency grows with the queue: the capacity is the cause.
  if (limit.saturated) {
    return { next: 'fix-parameter', advice: `Saturated: the server did not keep pace (fewer completions per second than arrivals), so this rate is past the command's capacity and latencies grow with the queue; a larger batch (${batch}) or more GPUs raise the capacity if latency allows.` };
  }
  const parts: string[] = [];
  if (over.has('ttft')) parts.push(`TTFT over the limit: prefills queue behind each other; admit fewer concurrent prefills or use chunked prefill with smaller chunks (${prefill}).`);
  if (over.has('tpot')) parts.push(`TPOT over the limit: the decode batch is too large; cap it with a smaller batch / max running requests (${batch}).`);
  if (over.has('e2e')) parts.push(`End-to-end latency over the limit: shorten both phases (${batch}; ${prefill}).`);
  if (parts.length === 0) return { next: 'investigate', advice: 'The row says the SLA failed but records no limits to check; verify the SLA block.' };
  return { next: 'lower-concurrency', advice: parts.join(' ') };
}

export const NEXT_STEP_TEXT: Record<NextStep, string> = {
  retry: 'retry',
  'lower-concurrency': 'lower concurrency',
  'fix-parameter': 'fix a parameter',
  investigate: 'investigate',
  nothing: 'nothing',
};
