// The four framework specs by key, and lookups into their built-in flag tables that accept any spelling.
import { SGLANG } from './sglang';
import { TENSORRT_LLM } from './tensorrt-llm';
import { TOKENSPEED } from './tokenspeed';
import type { FlagSpec, FrameworkKey, FrameworkSpec } from './types';
import { VLLM } from './vllm';

export { FRAMEWORKS, isFrameworkKey } from './types';
export type { FlagSpec, FrameworkKey, FrameworkSpec, ValueKind } from './types';

export const FRAMEWORK_SPECS: Record<FrameworkKey, FrameworkSpec> = {
  sglang: SGLANG,
  vllm: VLLM,
  tensorrt_llm: TENSORRT_LLM,
  tokenspeed: TOKENSPEED,
};

export function frameworkSpec(key: FrameworkKey): FrameworkSpec {
  return FRAMEWORK_SPECS[key];
}

/** `--tp-size`, `tp-size` and `tp_size` all name the same flag. */
export function normalizeFlagKey(key: string): string {
  return key.replace(/^-+/, '').replace(/-/g, '_');
}

const lookups = new Map<FrameworkKey, Map<string, FlagSpec>>();

function lookupFor(fw: FrameworkKey): Map<string, FlagSpec> {
  let table = lookups.get(fw);
  if (table === undefined) {
    table = new Map();
    for (const flag of FRAMEWORK_SPECS[fw].builtinFlags) {
      for (const name of [flag.key, ...(flag.aliases ?? [])]) {
        const norm = normalizeFlagKey(name);
        // The primary key wins over an alias of another flag; tests keep the tables free of such clashes.
        if (!table.has(norm)) table.set(norm, flag);
      }
    }
    lookups.set(fw, table);
  }
  return table;
}

/**
 * The built-in flag a config key means, by its key or any alias, spelled with `_` or `-`
 * (`tensor_parallel_size` and `tp-size` both give SGLang's `tp_size`). Undefined when unknown.
 */
export function builtinFlag(fw: FrameworkKey, key: string): FlagSpec | undefined {
  return lookupFor(fw).get(normalizeFlagKey(key));
}

/**
 * The option text a config key renders to, exactly as the playbook's tool writes it: `--` plus the key with
 * `_` turned into `-` for dash-style frameworks, or the key unchanged for TensorRT-LLM's click names.
 * Aliases are not rewritten to the primary key, so the command keeps the spelling the config chose.
 */
export function flagOption(fw: FrameworkKey, key: string): string {
  return FRAMEWORK_SPECS[fw].flagStyle === 'dash' ? `--${key.replace(/_/g, '-')}` : `--${key}`;
}
