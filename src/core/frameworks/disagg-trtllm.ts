// TensorRT-LLM's P/D unit: plain `trtllm-serve serve` workers, each reading an LLM API options YAML of its role
// (cache_transceiver_config; overlap off on context workers), behind `trtllm-serve disaggregated --config_file`, whose
// YAML names the front end's host and port and every worker URL. Facts cited in docs/ENGINES.md "Disaggregated
// prefill/decode" (NVIDIA/TensorRT-LLM serve.py @00209af1, disagg_utils.py @3e53e4ad, base_worker.py @7b437aaa).
import { stringify } from 'yaml';
import { toJson, type PyMap } from '../py/value';
import type { DisaggProfile, RouterInputs, UnitFile, UnitFileInputs, UnitRole } from './disagg-types';

/** The options of `trtllm-serve disaggregated` a unit may set (serve.py @00209af1); `--metrics-log-interval` is dashed. */
export const TRTLLM_FRONT_END_OPTIONS: Record<string, string> = {
  server_start_timeout: '--server_start_timeout',
  request_timeout: '--request_timeout',
  log_level: '--log_level',
  metrics_log_interval: '--metrics-log-interval',
};

/**
 * The front end's per-leg request timeout when the plan sets none: its own default (180 s, each of the context and
 * generation calls, streaming included) cuts long generations under load, which a benchmark must not mistake for failures.
 */
export const TRTLLM_DEFAULT_REQUEST_TIMEOUT = 3600;

/** CacheTransceiverConfig fields besides `backend` (llm_args.py @0228a712). */
export const TRTLLM_TRANSFER_KEYS = [
  'max_tokens_in_buffer',
  'kv_transfer_timeout_ms',
  'kv_transfer_sender_future_timeout_ms',
  'kv_transfer_poll_interval_ms',
  'transceiver_runtime',
  'kv_cache_bounce_size_mb',
];

/** The role's file names inside the unit's folder; TensorRT-LLM calls the roles context and generation. */
const FILE_OF: Record<UnitRole | 'router', string> = { prefill: 'prefill.yaml', decode: 'decode.yaml', router: 'disagg.yaml' };
export const unitFilePath = (dir: string, who: UnitRole | 'router'): string => `${dir}/${FILE_OF[who]}`;

/** YAML as the unit writes it: block style, keys in the order given, no line folding. */
export function unitYaml(doc: unknown): string {
  return stringify(doc, { lineWidth: 0, indent: 2 });
}

/** A role's LLM API options: the plan's own keys, then what the unit adds over them. */
function roleOptions(role: UnitRole, own: PyMap, backend: string, transferConfig: PyMap): Record<string, unknown> {
  const doc = { ...(toJson(own) as Record<string, unknown>) };
  // Context-only requests fail with the overlap scheduler on (base_worker.py @7b437aaa).
  if (role === 'prefill') doc.disable_overlap_scheduler = true;
  doc.cache_transceiver_config = { backend, ...(toJson(transferConfig) as Record<string, unknown>) };
  return doc;
}

/** The front end's YAML: where it listens, and each role's worker URLs (`host:port`, no scheme) and router type. */
export function frontEndDoc(r: RouterInputs, hostOf: (role: UnitRole, port: number) => string = () => r.workerHost): Record<string, unknown> {
  const section = (role: UnitRole): Record<string, unknown> => {
    const ws = role === 'prefill' ? r.prefill : r.decode;
    return {
      num_instances: ws.length,
      urls: ws.map((w) => `${hostOf(role, w.port)}:${w.port}`),
      ...(r.policy !== undefined ? { router: { type: r.policy } } : {}),
    };
  };
  return { hostname: r.host, port: r.port, context_servers: section('prefill'), generation_servers: section('decode') };
}

function files(i: UnitFileInputs): UnitFile[] {
  return [
    { path: unitFilePath(i.dir, 'prefill'), role: 'prefill', content: unitYaml(roleOptions('prefill', i.llmApiOptions.prefill, i.backend, i.transferConfig)) },
    { path: unitFilePath(i.dir, 'decode'), role: 'decode', content: unitYaml(roleOptions('decode', i.llmApiOptions.decode, i.backend, i.transferConfig)) },
    { path: unitFilePath(i.dir, 'router'), role: 'router', content: unitYaml(frontEndDoc(i.router)) },
  ];
}

export const TRTLLM: DisaggProfile = {
  backends: ['DEFAULT', 'UCX', 'NIXL', 'MOONCAKE', 'MPI'],
  equalTpBackends: [],
  routerCommand: 'trtllm-serve disaggregated',
  routerPolicies: ['round_robin', 'load_balancing', 'kv_cache_aware'],
  reserved: {
    port: 'each worker gets its own port from disaggregation.port_base',
    host: 'workers bind the address the unit gives them',
    extra_llm_api_options: "the unit writes each role's options file: put its keys in the role's llm_api_options",
    config: "the unit writes each role's options file: put its keys in the role's llm_api_options",
  },
  sidePortBase: 0,
  // UCX and NIXL pick their side-channel ports themselves (ucxCacheCommunicator.cpp @cb4c622c): nothing to lay out.
  sidePorts: () => 0,
  worker(slot, _backend, _transferConfig, dir) {
    return { flags: [['port', slot.port], ['extra_llm_api_options', unitFilePath(dir ?? '.', slot.role)]], env: [] };
  },
  routerArgv: (r) => [...r.command, '--config_file', unitFilePath(r.dir ?? '.', 'router')],
  routerFlag: (key) => TRTLLM_FRONT_END_OPTIONS[key],
  defaultRouterFlags: [['request_timeout', TRTLLM_DEFAULT_REQUEST_TIMEOUT]],
  files,
};
