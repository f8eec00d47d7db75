// Which server settings turn speculative decoding on: SGLang/TokenSpeed speculative_algorithm, vLLM/TokenSpeed speculative_config, TensorRT-LLM speculative_config in its LLM API options.

/** Flag keys (any spelling, a P/D role's `prefill.`/`decode.` prefix allowed) that enable speculative decoding when set. */
export const SPECULATIVE_KEYS = ['speculative_algorithm', 'speculative_config'] as const;

const OFF = new Set(['', 'none', 'null', 'false', 'off', 'disabled']);

function isOn(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === 'string') return !OFF.has(v.trim().toLowerCase());
  if (typeof v === 'object') return Object.keys(v).length > 0 || v instanceof Map;
  return true;
}

/** The first key of `flags` that turns speculative decoding on (`speculative_algorithm`, `decode.speculative_config`), if any. */
export function speculativeKey(flags: Iterable<readonly [unknown, unknown]>): string | undefined {
  for (const [k, v] of flags) {
    if (typeof k !== 'string') continue;
    const bare = k.replace(/-/g, '_').replace(/^(prefill|decode)\./, '');
    if ((SPECULATIVE_KEYS as readonly string[]).includes(bare) && isOn(v)) return k;
  }
  return undefined;
}

/** A TensorRT-LLM extra_llm_api_options YAML (or a role's llm_api_options) that sets speculative_config. */
export function optionsTextSpeculative(text: string): boolean {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => /^speculative_config\s*:/.test(l));
  if (i < 0) return false;
  const value = (lines[i] as string).replace(/^speculative_config\s*:/, '').replace(/#.*$/, '').trim();
  if (value !== '') return isOn(value === '{}' || value === '~' ? null : value);
  return /^[ \t]+\S/.test(lines[i + 1] ?? '');
}

/** A command line that sets a speculative flag (`--speculative-algorithm EAGLE3`, `--speculative_config '{...}'`). */
export function commandSpeculative(command: string): string | undefined {
  const m = /--(speculative[-_](?:algorithm|config))(?:=|\s+)(\S+)/.exec(command);
  return m && isOn(m[2]?.replace(/^['"]|['"]$/g, '')) ? (m[1] as string).replace(/-/g, '_') : undefined;
}
