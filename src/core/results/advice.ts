// Sorts a not-selected candidate into a category with a next step (retry, lower concurrency, fix a
// parameter, investigate, nothing), from its status, failure text and missed SLA targets.
import type { NextStep, NotSelectedCategory } from './report-model';
import type { SlaCheck } from './sla';
import { slaTarget } from '../sla/limits';

export interface Advice {
  next: NextStep;
  advice: string;
}

const FLAG_PROBLEM = /unrecognized argument|unknown (?:flag|argument|option)|invalid choice|no such option|error: argument|invalid value for|unexpected keyword|not a valid/i;
const MEMORY = /out of memory|\boom\b|cuda error: out of memory|cannot allocate|insufficient memory|kv cache.*(?:too small|not enough)/i;
const TRANSIENT = /timed? ?out|timeout|health ?check|connection (?:refused|reset)|econnrefused|econnreset|\b50[234]\b|broken pipe|temporar/i;
const MISSING_BINARY = /command not found|no module named|not installed|no such file/i;

export function adviseFor(category: NotSelectedCategory, reason: string, checks: readonly SlaCheck[] = []): Advice {
  switch (category) {
    case 'user-excluded':
      return { next: 'nothing', advice: 'Left out by the caller; this is not a verdict on the framework.' };
    case 'skipped':
      return { next: 'nothing', advice: 'Skipped by policy (budget, early stop or a rule); nothing to do unless the policy changes.' };
    case 'unsupported':
      return { next: 'nothing', advice: 'Not supported by this framework (for example a TensorRT-LLM engine backend); not retried.' };
    case 'smoke':
      return { next: 'nothing', advice: 'A smoke or flow-check row (eager mode, CUDA graphs off or reduced prompts); never a best candidate.' };
    case 'invalid':
      return { next: 'fix-parameter', advice: 'The row has no valid status; fix the row writer and rerun the candidate.' };
    case 'oom':
      return { next: 'fix-parameter', advice: 'Out of memory: lower the batch or sequence knobs (max running requests, max_num_seqs, max_batch_size) or use more GPUs; keep memory fractions fixed unless capacity is the question.' };
    case 'timeout':
      return { next: 'retry', advice: 'Timed out: read the server log, then retry with a longer startup or benchmark timeout.' };
    case 'sla-failing':
      return slaAdvice(checks);
    case 'failed':
      if (FLAG_PROBLEM.test(reason)) return { next: 'fix-parameter', advice: 'The CLI rejected a flag or value: check it against the captured --help of this exact version.' };
      if (MEMORY.test(reason)) return adviseFor('oom', reason);
      if (TRANSIENT.test(reason)) return { next: 'retry', advice: 'Looks transient (timeout, health check or connection): retry once; if it repeats, read the server log.' };
      if (MISSING_BINARY.test(reason)) return { next: 'fix-parameter', advice: 'The command or module is missing in this environment: fix the image or server_command.' };
      return { next: 'investigate', advice: reason ? 'Read the server and benchmark logs for the cause; retry once if it was transient.' : 'No failure reason was recorded: read the logs, and record a reason in the row next time.' };
  }
}

function slaAdvice(checks: readonly SlaCheck[]): Advice {
  const missed = checks.filter((c) => !c.passed);
  if (missed.some((c) => c.value === undefined)) {
    return { next: 'investigate', advice: 'A metric the SLA needs was not recorded: rerun with a client that reports it.' };
  }
  if (missed.some((c) => slaTarget(c.key).kind === 'min-rate')) {
    return { next: 'retry', advice: 'Requests failed: read the benchmark log; retry, and lower concurrency if errors come from overload.' };
  }
  if (missed.length > 0) {
    return { next: 'lower-concurrency', advice: 'Latency over the limit: lower the request rate or concurrency, or try smaller batch settings.' };
  }
  return { next: 'investigate', advice: 'The row says the SLA failed but records no limits to check; verify the SLA block.' };
}

export const NEXT_STEP_TEXT: Record<NextStep, string> = {
  retry: 'retry',
  'lower-concurrency': 'lower concurrency',
  'fix-parameter': 'fix a parameter',
  investigate: 'investigate',
  nothing: 'nothing',
};
