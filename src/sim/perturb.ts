// `--sim-perturb SEED`: a hidden, seeded efficiency perturbation of the simulated engine, so that a benchmark's
// ground truth differs from the plain cost model the way a real GPU differs from any model of it.
//
// The framework and every flag the command line gave (with its value) get a pair of factors, each uniform in
// [0.75, 1.25] from a hash of (seed, framework, flag, canonical value): `prefill` multiplies the modelled compute
// speed (CostModel.flops), `decode` the memory bandwidth (CostModel.bandwidth); above 1 is a faster engine.
// The candidate's factors are the products over its pairs, clamped to [0.5, 2].
//
// Given flags: the parsed values map holds only what the command line said (ArgParser.parse fills no defaults);
// besides, a flag given at its table default (`default`, or a bool at its default state, e.g. `false` for a
// store_true flag) runs the same engine as leaving it out, so it counts as absent. Flags that only say where the
// server listens or what it is called (host, port, served model name, API key) never change speed and are skipped.
import type { FlagSpec, FrameworkKey } from '../core/frameworks/types';
import { simFlags } from './fw';
import { canonicalValue } from './flag-value';
import { mix32, unit } from './tokens';

export { canonicalValue };

export interface PerturbPart {
  /** The flag's key (`max_num_seqs`), or '' for the framework itself. */
  flag: string;
  /** The canonical value string ('' for the framework). */
  value: string;
  prefill: number;
  decode: number;
}

export interface PerturbFactors {
  /** Multiplies the modelled prefill compute speed (CostModel.flops); above 1: faster. */
  prefill: number;
  /** Multiplies the modelled memory-bound decode speed (CostModel.bandwidth); above 1: faster. */
  decode: number;
  /** The framework's pair first, then one per given flag, sorted by flag key. */
  parts: PerturbPart[];
}

/** Each part's factors lie in [1 - SPREAD, 1 + SPREAD]; the product in [MIN_TOTAL, MAX_TOTAL]. */
const SPREAD = 0.25;
const MIN_TOTAL = 0.5;
const MAX_TOTAL = 2;

// Tags keep these draws independent of the simulator's other seeded choices and of one another.
const PERTURB_TAG = 0x70657274;
const PREFILL_TAG = 0x70726566;
const DECODE_TAG = 0x6465636f;

/** Flags that name the server or say where it listens: they never change speed. */
const SKIPPED = new Set(['host', 'port', 'served_model_name', 'api_key']);

/** A string folded into a 32-bit hash chain (its length first, so 'ab'+'c' and 'a'+'bc' differ). */
function hashText(h: number, text: string): number {
  let x = mix32(h, text.length);
  for (let i = 0; i < text.length; i++) x = mix32(x, text.charCodeAt(i));
  return x;
}

/** One factor in [1 - SPREAD, 1 + SPREAD] from a hash. */
function factor(h: number): number {
  return 1 - SPREAD + 2 * SPREAD * unit(h);
}

/** The pair of factors for one (flag, value) of one framework under one seed. */
function drawPart(seed: number, fw: FrameworkKey, flag: string, value: string): PerturbPart {
  const h = hashText(hashText(hashText(mix32(seed >>> 0, PERTURB_TAG), fw), flag), value);
  return { flag, value, prefill: factor(mix32(h, PREFILL_TAG)), decode: factor(mix32(h, DECODE_TAG)) };
}


/** The flag table by key and alias. */
function specIndex(fw: FrameworkKey): Map<string, FlagSpec> {
  const index = new Map<string, FlagSpec>();
  for (const spec of simFlags(fw)) {
    for (const k of [spec.key, ...(spec.aliases ?? [])]) if (!index.has(k)) index.set(k, spec);
  }
  return index;
}

/** A value the server would have taken without the flag: the table's default, or a bool's default state. */
function isDefault(value: string, spec: FlagSpec | undefined): boolean {
  if (!spec) return false;
  if (spec.kind === 'bool') return value === (spec.defaultOn === true ? 'true' : 'false');
  return spec.default !== undefined && canonicalValue(spec.default, spec) === value;
}

/** The (flag, canonical value) pairs that can change speed: given, not at their default, not names or addresses. */
export function givenFlags(fw: FrameworkKey, values: ReadonlyMap<string, unknown>): Array<{ flag: string; value: string }> {
  const index = specIndex(fw);
  const out = new Map<string, string>();
  for (const [key, raw] of values) {
    const spec = index.get(key);
    const flag = spec?.key ?? key;
    const value = canonicalValue(raw, spec);
    if (SKIPPED.has(flag) || value === undefined || isDefault(value, spec)) continue;
    out.set(flag, value);
  }
  return [...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([flag, value]) => ({ flag, value }));
}

function clamp(x: number): number {
  return Math.min(MAX_TOTAL, Math.max(MIN_TOTAL, x));
}

/** The hidden efficiency factors of one candidate (framework + parsed flag values) under a perturbation seed. */
export function perturbFactors(fw: FrameworkKey, values: ReadonlyMap<string, unknown>, seed: number): PerturbFactors {
  const parts = [drawPart(seed, fw, '', ''), ...givenFlags(fw, values).map(({ flag, value }) => drawPart(seed, fw, flag, value))];
  let prefill = 1;
  let decode = 1;
  for (const p of parts) {
    prefill *= p.prefill;
    decode *= p.decode;
  }
  return { prefill: clamp(prefill), decode: clamp(decode), parts };
}
