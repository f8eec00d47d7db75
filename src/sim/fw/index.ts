// The simulated frameworks by key, with the flag tables their CLIs accept (the core's built-in tables).
import { FRAMEWORK_SPECS } from '../../core/frameworks';
import type { FlagSpec, FrameworkKey } from '../../core/frameworks/types';
import { SGLANG_SIM } from './sglang';
import { TOKENSPEED_SIM } from './tokenspeed';
import { TRTLLM_SIM } from './trtllm';
import type { SimFramework } from './types';
import { VLLM_SIM } from './vllm';

export const SIM_FRAMEWORKS: Record<FrameworkKey, SimFramework> = {
  sglang: SGLANG_SIM,
  vllm: VLLM_SIM,
  tensorrt_llm: TRTLLM_SIM,
  tokenspeed: TOKENSPEED_SIM,
};

/** The flags a simulated CLI accepts and lists in --help: exactly the project's built-in table. */
export function simFlags(fw: FrameworkKey): readonly FlagSpec[] {
  return FRAMEWORK_SPECS[fw].builtinFlags;
}

/** `trtllm`, `trt`, `tensorrt-llm` and the like name TensorRT-LLM. */
export function frameworkFromName(name: string): FrameworkKey | undefined {
  const n = name.toLowerCase().replace(/-/g, '_');
  if (n === 'sglang') return 'sglang';
  if (n === 'vllm') return 'vllm';
  if (n === 'tokenspeed' || n === 'ts') return 'tokenspeed';
  if (['tensorrt_llm', 'trtllm', 'trt', 'trt_llm', 'tensorrt', 'trtllm_serve'].includes(n)) return 'tensorrt_llm';
  return undefined;
}

export type { SimFramework, SimSettings } from './types';
