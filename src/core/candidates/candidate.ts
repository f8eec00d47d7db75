// The one candidate type: a framework's flag set, rendered once into the argv and command string that the CLI prints, the code lens shows and the runner launches.
import type { FrameworkKey } from '../frameworks/types';
import { pyStr, toJson } from '../py/value';
import type { Combination, FlagMap } from './generate';
import { unitId, unitScript, type Unit } from './unit';

/** Why a candidate will not run: a flag its CLI does not know (re-judged once the target's own --help is captured). */
export interface CandidateSkip {
  reason: string;
  /** `unknown-flag`: re-judged once the target's --help is captured; `unit`: the P/D block has an error, so no unit of it runs. */
  kind: 'unknown-flag' | 'unit';
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
  /**
   * A disaggregated prefill/decode unit: its processes in start order. Then `flags` holds the unit's combination
   * (`prefill.workers`, `decode.tp_size`...), `argv` is the router's, and `command` is every process's line, one per line.
   */
  unit?: Unit;
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

/** A P/D unit as a candidate: id `pd<n>`, numbered after the framework's aggregated candidates. */
export function makeUnitCandidate(framework: FrameworkKey, index: number, c: Combination, unit: Unit, name: string): Candidate {
  const router = unit.processes[unit.processes.length - 1];
  const used = new Set<string>();
  for (const p of unit.processes) for (const [k, v] of p.flags) if (v !== null) used.add(k);
  return {
    framework,
    index,
    id: unitId(c),
    name,
    flags: c.flags,
    overrides: c.overrides,
    argv: router?.argv ?? [],
    command: unitScript(unit),
    usedKeys: [...used],
    unit,
  };
}

/** The flags as plain JSON (a row's `server_flags`). */
export function candidateFlagsJson(c: Candidate): Record<string, unknown> {
  return toJson(c.flags) as Record<string, unknown>;
}
