// The one candidate type: a framework's flag set, rendered once into the argv and command string that the CLI prints, the code lens shows and the runner launches.
import type { FrameworkKey } from '../frameworks/types';
import { pyStr, toJson } from '../py/value';
import type { Combination, FlagMap } from './generate';

/** Why a candidate will not run: a flag its CLI does not know (re-judged once the target's own --help is captured). */
export interface CandidateSkip {
  reason: string;
  kind: 'unknown-flag';
}

export interface Candidate {
  framework: FrameworkKey;
  index: number;
  /** `baseline` for candidate 0, else `c<index>`. */
  id: string;
  /** `baseline`, or the search values it sets (`max_num_seqs=128, chunked_prefill_size=4096`). */
  name: string;
  flags: FlagMap;
  /** What this candidate sets from the search space. */
  overrides: FlagMap;
  argv: string[];
  /** The exact command line: what the CLI prints, the code lens shows and the runner launches. */
  command: string;
  /** Flag keys that reach the command line (null values render nothing). */
  usedKeys: string[];
  /** Set by a run plan when the candidate will not run. */
  skip?: CandidateSkip;
}

function nameOf(c: Combination): string {
  if (c.index === 0) return 'baseline';
  const parts = [...c.overrides].map(([k, v]) => `${k}=${pyStr(v)}`);
  return parts.length ? parts.join(', ') : c.id;
}

export function makeCandidate(framework: FrameworkKey, c: Combination, argv: string[], command: string): Candidate {
  return {
    framework,
    index: c.index,
    id: c.id,
    name: nameOf(c),
    flags: c.flags,
    overrides: c.overrides,
    argv,
    command,
    usedKeys: [...c.flags].filter(([, v]) => v !== null).map(([k]) => k),
  };
}

/** The flags as plain JSON (a row's `server_flags`). */
export function candidateFlagsJson(c: Candidate): Record<string, unknown> {
  return toJson(c.flags) as Record<string, unknown>;
}
