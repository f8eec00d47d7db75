// A candidate's simulated engine for prediction: its argv parsed as the framework's CLI, resolved on the plan's GPU, scaled by calibration factors.
import type { Candidate } from '../core/candidates/candidate';
import { oomLine } from '../core/frameworks/failures';
import type { FrameworkKey } from '../core/frameworks/types';
import { resolveSim, type ResolvedSim } from '../sim/config';
import { CliParseError } from '../sim/cli-args';
import { DEFAULT_SIM_OPTIONS, type SimOptions } from '../sim/options';
import { parseFrameworkArgs } from '../sim/serve';
import { simTargetFor } from '../sim/shim';
import type { Factors } from './types';

export type EngineFor = { ok: true; config: ResolvedSim } | { ok: false; oom: boolean; reason: string };

/** The simulator options a prediction runs with: the plan's GPU (auto when it names none), no noise, no faults. */
export function predictOptions(gpu: string | undefined, extra: Partial<SimOptions> = {}): SimOptions {
  return { ...DEFAULT_SIM_OPTIONS, gpu: gpu ?? 'auto', ...extra };
}

/** The engine the candidate's command would start, or why it would not start. */
export function engineFor(fw: FrameworkKey, cand: Candidate, options: SimOptions, factors?: Factors): EngineFor {
  // A P/D unit is several servers and a router: the engine model prices one server (units: issue 28).
  if (cand.unit) return { ok: false, oom: false, reason: 'a P/D unit: the engine model prices one server, not a unit' };
  return engineForArgv(fw, cand.argv, options, factors);
}

/** The engine a command line (program first) would start, or why it would not start. */
export function engineForArgv(fw: FrameworkKey, argv: readonly string[], options: SimOptions, factors?: Factors): EngineFor {
  const target = simTargetFor(argv);
  const args = target ? target.args : argv.slice(1);
  let values: Map<string, unknown>;
  try {
    values = parseFrameworkArgs(fw, args, target?.invocation);
  } catch (e) {
    if (e instanceof CliParseError) return { ok: false, oom: false, reason: e.text.trim().split('\n').pop() ?? 'the command does not parse' };
    throw e;
  }
  const r = resolveSim(fw, values as Map<string, never>, options);
  if (!r.ok) {
    const line = r.lines.find((l) => !l.startsWith('[autobench-sim]')) ?? r.lines[0] ?? 'the server would not start';
    // Out of memory exactly when the runner would call the same log an OOM (core/frameworks/failures.ts).
    return { ok: false, oom: oomLine(fw, r.lines.map((l) => l.trim())) !== undefined, reason: line };
  }
  return { ok: true, config: factors ? scaled(r.config, factors) : r.config };
}

/** The same engine with its prefill compute and decode bandwidth scaled. */
export function scaled(c: ResolvedSim, f: Factors): ResolvedSim {
  if (f.prefill === 1 && f.decode === 1) return c;
  const k = c.engine.cost;
  const cost = { ...k, flops: k.flops * f.prefill, attnFlops: k.attnFlops * f.prefill, moeFlops: k.moeFlops * f.prefill, bandwidth: k.bandwidth * f.decode };
  return { ...c, engine: { ...c.engine, cost } };
}
