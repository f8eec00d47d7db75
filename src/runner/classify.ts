// Tells why a server did not come up or died: out of memory, a rejected flag, a timeout, or another failure.
import { oomLine } from '../core/frameworks/failures';
import type { FrameworkKey } from '../core/frameworks/types';

export type FailureStatus = 'oom' | 'failed' | 'timeout';

const BAD_FLAG = [/unrecognized arguments?:/i, /no such option:/i, /error: argument /i, /invalid choice:/i];

export interface Classified {
  status: FailureStatus;
  reason: string;
}

/** The log line that explains the failure best: an OOM line, else a usage error, else the last non-empty line. */
export function classifyFailure(fw: FrameworkKey, logTail: string, fallback: string, timedOut = false): Classified {
  const lines = logTail.split('\n').map((l) => l.trim()).filter(Boolean);
  const oom = oomLine(fw, lines);
  if (oom) return { status: 'oom', reason: `out of memory: ${oom}` };
  const flagLine = lines.find((l) => BAD_FLAG.some((re) => re.test(l)));
  if (flagLine) return { status: 'failed', reason: `the server rejected its command line: ${flagLine}` };
  if (timedOut) return { status: 'timeout', reason: `${fallback}${lines.length ? `; last log line: ${lines[lines.length - 1]}` : ''}` };
  return { status: 'failed', reason: `${fallback}${lines.length ? `; last log line: ${lines[lines.length - 1]}` : ''}` };
}
