// `--sim-efficiency SPEC`: known speed factors for the simulated servers a SPEC matches (a framework, or a framework
// with one flag value), so tests and benchmarks run against a ground truth they chose, unlike --sim-perturb's hidden
// draws. The simulator (`--sim-*`, AUTOBENCH_SIM_OPTS) and `autobench predict --sim-efficiency` parse and match here.
//
// SPEC is a comma list of FRAMEWORK[.FLAG=VALUE]:FACTOR (`vllm.max_num_seqs=256:1.07,sglang:0.95`). A term without
// `.FLAG=VALUE` matches every server of its framework; with it, the servers whose command line gives FLAG (any
// spelling or alias: `max-num-seqs`, `max_num_seqs`) with VALUE (compared canonically, as perturb.ts does: 256 and
// "256" alike) — given explicitly, at the table default or not. The factors of every matching term multiply; the
// engine's compute speed and memory bandwidth are both multiplied by the product (above 1: faster).
import { FRAMEWORKS, builtinFlag, isFrameworkKey, type FrameworkKey } from '../core/frameworks';
import { canonicalValue } from './flag-value';

export interface EfficiencyTerm {
  framework: FrameworkKey;
  /** The flag's table key (`max_num_seqs`); absent: the term matches every server of the framework. */
  flag?: string;
  /** The value in canonical form (perturb.ts `canonicalValue`); set exactly when `flag` is. */
  value?: string;
  factor: number;
  /** The term as written, trimmed. */
  text: string;
}

/** A SPEC that cannot be read; the message names the bad term and the expected form (without the option's name). */
export class EfficiencyError extends Error {}

export const MIN_EFFICIENCY = 0.2;
export const MAX_EFFICIENCY = 5;

export const EFFICIENCY_FORM = `FRAMEWORK[.FLAG=VALUE]:FACTOR, comma-separated (FRAMEWORK: ${FRAMEWORKS.join(', ')}; FACTOR ${MIN_EFFICIENCY}..${MAX_EFFICIENCY}), e.g. vllm.max_num_seqs=256:1.07,sglang:0.95`;

function fail(term: string, why: string): never {
  throw new EfficiencyError(`bad term '${term}': ${why}; expected ${EFFICIENCY_FORM}`);
}

/** `vllm`, `tensorrt-llm`, `TensorRT_LLM` as a framework key. */
function frameworkOf(name: string): FrameworkKey | undefined {
  const n = name.trim().toLowerCase().replace(/-/g, '_');
  return isFrameworkKey(n) ? n : undefined;
}

function parseFactor(term: string, text: string): number {
  const t = text.trim();
  const f = Number(t);
  if (t === '' || !Number.isFinite(f)) fail(term, `factor '${t}' is not a number`);
  if (f < MIN_EFFICIENCY || f > MAX_EFFICIENCY) fail(term, `factor ${t} is outside ${MIN_EFFICIENCY}..${MAX_EFFICIENCY}`);
  return f;
}

/** One `FRAMEWORK[.FLAG=VALUE]:FACTOR`; the factor follows the last colon, the framework ends at the first dot. */
function parseTerm(term: string): EfficiencyTerm {
  const colon = term.lastIndexOf(':');
  if (colon < 0) fail(term, 'no :FACTOR');
  const factor = parseFactor(term, term.slice(colon + 1));
  const target = term.slice(0, colon);
  const dot = target.indexOf('.');
  const fwText = (dot < 0 ? target : target.slice(0, dot)).trim();
  const framework = frameworkOf(fwText);
  if (!framework) fail(term, `unknown framework '${fwText}'`);
  if (dot < 0) return { framework, factor, text: term };
  const setting = target.slice(dot + 1);
  const eq = setting.indexOf('=');
  if (eq < 0) fail(term, 'a flag needs =VALUE');
  const flagText = setting.slice(0, eq).trim();
  const spec = flagText === '' ? undefined : builtinFlag(framework, flagText);
  if (!spec) fail(term, `${framework} has no flag '${flagText}'`);
  const value = canonicalValue(setting.slice(eq + 1), spec);
  if (value === undefined || value === '') fail(term, `no value for ${spec.key}`);
  return { framework, flag: spec.key, value, factor, text: term };
}

/** The terms of a SPEC, in order; throws EfficiencyError for an empty SPEC or a bad term. */
export function parseEfficiency(spec: string): EfficiencyTerm[] {
  if (spec.trim() === '') throw new EfficiencyError(`empty SPEC; expected ${EFFICIENCY_FORM}`);
  return spec.split(',').map((t) => parseTerm(t.trim()));
}

/** Does the command line (parsed flag values, keys in any spelling or alias) give the term's flag with its value? */
function gives(term: EfficiencyTerm, values: ReadonlyMap<string, unknown>): boolean {
  for (const [key, raw] of values) {
    const spec = builtinFlag(term.framework, key);
    if ((spec?.key ?? key) === term.flag && canonicalValue(raw, spec) === term.value) return true;
  }
  return false;
}

/** Whether one term applies to a server of framework `fw` started with these flag values. */
export function termMatches(term: EfficiencyTerm, fw: FrameworkKey, values: ReadonlyMap<string, unknown>): boolean {
  if (term.framework !== fw) return false;
  return term.flag === undefined || gives(term, values);
}

/** The product of the factors of every term that matches the server (1 when none does). */
export function efficiencyFactor(fw: FrameworkKey, values: ReadonlyMap<string, unknown>, terms: readonly EfficiencyTerm[]): number {
  let f = 1;
  for (const t of terms) if (termMatches(t, fw, values)) f *= t.factor;
  return f;
}
