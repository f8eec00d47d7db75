// Checks of a TensorRT-LLM P/D block as the engine reads it: each role's llm_api_options (the worker's
// extra_llm_api_options file), the transfer config (cache_transceiver_config), the front end's options, and what the
// kv_cache_aware router needs of the workers. Sources cited in docs/ENGINES.md "Disaggregated prefill/decode".
import { TRTLLM_FRONT_END_OPTIONS, TRTLLM_TRANSFER_KEYS } from '../frameworks/disagg-trtllm';
import type { DisaggProfile, UnitRole } from '../frameworks/disagg-types';
import type { FrameworkKey } from '../frameworks/types';
import { isPyMap, pyNumber, pyRepr, type PyMap, type PyValue } from '../py/value';
import type { YamlPath } from './yaml-doc';

/** Reports a finding at a path of the plan (disagg-rules.ts gives each check its error and warning reporters). */
export type Reporter = (code: string, message: string, path: YamlPath, onKey?: boolean) => void;

/** A role's llm_api_options: TensorRT-LLM's only, a mapping, without the keys the unit writes itself. */
export function checkLlmApiOptions(fw: FrameworkKey, role: UnitRole, v: PyValue | undefined, at: YamlPath, bad: Reporter): PyMap {
  if (v === undefined || v === null) return new Map();
  if (fw !== 'tensorrt_llm') {
    bad('pd-llm-api-options', `${fw}: llm_api_options is TensorRT-LLM's extra_llm_api_options file; ${fw} takes its settings as the role's flags`, at, true);
    return new Map();
  }
  if (!isPyMap(v)) {
    bad('pd-llm-api-options', 'llm_api_options must map LLM API option names to values (what an extra_llm_api_options YAML holds)', at);
    return new Map();
  }
  for (const [k, val] of v) {
    if (typeof k !== 'string') bad('pd-llm-api-options', `${pyRepr(k)} is not an option name`, [...at, String(k)], true);
    else if (k === 'cache_transceiver_config') {
      bad('pd-llm-api-options', 'the unit writes cache_transceiver_config from disaggregation.transfer_backend and transfer_config: remove it here', [...at, k], true);
    } else if (k === 'disable_overlap_scheduler' && role === 'prefill' && val !== true) {
      bad('pd-overlap', 'a context (prefill) worker needs disable_overlap_scheduler: true, else "Context only requests are not supported in pytorch backend when overlap is enabled." (base_worker.py @7b437aaa); the unit sets it: remove it here', [...at, k]);
    }
  }
  return v;
}

/** cache_transceiver_config's other keys (the backend comes from transfer_backend). */
export function checkTrtTransferConfig(tc: PyMap, at: YamlPath, bad: Reporter, warn: Reporter): void {
  for (const k of tc.keys()) {
    const key = String(k);
    if (key === 'backend') bad('pd-transfer-config', 'cache_transceiver_config.backend follows from transfer_backend: remove it here', [...at, key], true);
    else if (!TRTLLM_TRANSFER_KEYS.includes(key)) {
      warn('pd-transfer-config', `${pyRepr(k)} is not a CacheTransceiverConfig field in llm_args.py @0228a712 (${TRTLLM_TRANSFER_KEYS.join(', ')}); check that this TensorRT-LLM version has it`, [...at, key], true);
    }
  }
}

/** router.flags of a router with its own option table: known options only, and not the config file the unit writes. */
export function checkRouterFlags(profile: DisaggProfile, flags: PyMap, at: YamlPath, bad: Reporter): void {
  const spell = profile.routerFlag;
  if (!spell) return;
  for (const k of flags.keys()) {
    const key = String(k).replace(/-/g, '_');
    if (key === 'config_file' || key === 'c') bad('pd-reserved-flag', 'the unit writes the front end config and passes it as --config_file: remove it here', [...at, String(k)], true);
    else if (key === 'metadata_server_config_file' || key === 'm') bad('pd-router-flag', 'a unit lists its workers in the front end config: the etcd metadata server (--metadata_server_config_file) is not used', [...at, String(k)], true);
    else if (spell(key) === undefined) bad('pd-router-flag', `trtllm-serve disaggregated has no option ${pyRepr(k)}: it takes ${Object.keys(TRTLLM_FRONT_END_OPTIONS).join(', ')}`, [...at, String(k)], true);
  }
}

/**
 * The kv_cache_aware router places requests by the KV events each worker publishes, which it does only with
 * kv_cache_config.enable_block_reuse on and event_buffer_max_size above 0 (the default is 0: no events). The engine's
 * own test config for it sets both (tests/integration/defs/disaggregated/test_configs/disagg_config_conditional.yaml @7373ab81).
 */
export function checkKvEvents(opts: Record<UnitRole, PyMap>, at: YamlPath, warn: Reporter): void {
  for (const role of ['prefill', 'decode'] as const) {
    const kv = opts[role].get('kv_cache_config');
    const m: PyMap = isPyMap(kv) ? kv : new Map<string, PyValue>();
    const events = pyNumber(m.get('event_buffer_max_size'));
    if (m.get('enable_block_reuse') !== false && events !== undefined && events > 0) continue;
    warn(
      'pd-kv-events',
      `the kv_cache_aware router routes by the workers' KV events: set ${role}.llm_api_options.kv_cache_config {enable_block_reuse: true, event_buffer_max_size: 1024} (as the engine's disagg_config_conditional.yaml @7373ab81), else it has no cache to be aware of`,
      [...at, role],
      true,
    );
  }
}
