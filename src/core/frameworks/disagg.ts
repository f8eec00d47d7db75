// How each framework runs a disaggregated prefill/decode unit: its transfer backends, the flags and environment a
// prefill or decode worker needs, and the router in front of them. Facts from each engine's own source (docs/ENGINES.md
// "Disaggregated prefill/decode" cites them); the unit's layout (ports, GPU slots) is rendered in candidates/unit.ts.
import { toJson, type PyMap, type PyValue } from '../py/value';
import type { FrameworkKey } from './types';

export type UnitRole = 'prefill' | 'decode';

/** One worker as the unit lays it out: where it listens and which side-channel ports it owns on its host. */
export interface WorkerSlot {
  role: UnitRole;
  /** Index within its role. */
  index: number;
  port: number;
  /** The transfer backend's own port for this worker (SGLang's prefill bootstrap port, vLLM's NIXL side channel or Mooncake bootstrap base). */
  sidePort?: number;
}

/** What a worker adds to its flags and environment for its role. */
export interface WorkerAdditions {
  flags: Array<[string, PyValue]>;
  env: Array<[string, string]>;
}

export interface RouterInputs {
  command: string[];
  host: string;
  port: number;
  policy: string | undefined;
  prefill: WorkerSlot[];
  decode: WorkerSlot[];
  workerHost: string;
}

export interface DisaggProfile {
  /** Transfer backends the engine accepts, the default first. */
  backends: string[];
  /** Backends whose prefill and decode workers must run the same tensor-parallel size (transfers fail otherwise). */
  equalTpBackends: string[];
  /** The router the unit starts when the plan names none, and the policies it accepts (absent: not checked). */
  routerCommand: string;
  routerPolicies: string[];
  /** Worker flags the unit sets itself: a role may not set them (each would break the unit's layout or its transfers). */
  reserved: Record<string, string>;
  /** First port of the workers' side channels on a host. */
  sidePortBase: number;
  /** Side-channel ports one worker of this parallel shape owns (they must not overlap another worker's on the host). */
  sidePorts(backend: string, tp: number, dp: number): number;
  worker(slot: WorkerSlot, backend: string, transferConfig: PyMap): WorkerAdditions;
  routerArgv(r: RouterInputs): string[];
}

// SGLang: sglang · python/sglang/srt/arg_groups/fields/disagg.py @07a7b67c, sgl-router/py_src/sglang_router/router_args.py @083d6013.
// vLLM: vllm · docs/features/nixl_connector_usage.md @026c83f9, vllm/config/kv_transfer.py @9dc49464; vllm-project/router ·
// py_src/vllm_router/router_args.py @462d39dc.

function routerCommon(r: RouterInputs, pdFlag: string, withBootstrap: boolean): string[] {
  const argv = [...r.command, pdFlag];
  for (const p of r.prefill) {
    argv.push('--prefill', `http://${r.workerHost}:${p.port}`);
    if (withBootstrap && p.sidePort !== undefined) argv.push(String(p.sidePort));
  }
  for (const d of r.decode) argv.push('--decode', `http://${r.workerHost}:${d.port}`);
  argv.push('--host', r.host, '--port', String(r.port));
  if (r.policy !== undefined) argv.push('--policy', r.policy);
  return argv;
}

const SGLANG: DisaggProfile = {
  backends: ['mooncake', 'nixl', 'mooncake_tcp', 'mori', 'ascend'],
  equalTpBackends: [],
  routerCommand: 'python -m sglang_router.launch_router',
  routerPolicies: ['random', 'round_robin', 'cache_aware', 'power_of_two', 'manual'],
  reserved: {
    port: 'each worker gets its own port from disaggregation.port_base',
    host: 'workers bind the address the unit gives them',
    disaggregation_mode: 'the role sets it',
    disaggregation_transfer_backend: 'set disaggregation.transfer_backend',
    disaggregation_bootstrap_port: 'each prefill worker gets its own bootstrap port (two on one host must differ)',
    base_gpu_id: 'each worker sees only its own GPUs (CUDA_VISIBLE_DEVICES)',
  },
  sidePortBase: 8998,
  sidePorts: () => 1,
  worker(slot, backend) {
    const flags: Array<[string, PyValue]> = [
      ['disaggregation_mode', slot.role],
      ['disaggregation_transfer_backend', backend],
      ['port', slot.port],
    ];
    if (slot.role === 'prefill' && slot.sidePort !== undefined) flags.push(['disaggregation_bootstrap_port', slot.sidePort]);
    return { flags, env: [] };
  },
  routerArgv: (r) => routerCommon(r, '--pd-disaggregation', true),
};

/** vLLM's connector names for the backends a unit can name. */
const VLLM_CONNECTORS: Record<string, string> = { nixl: 'NixlConnector', mooncake: 'MooncakeConnector' };

const VLLM: DisaggProfile = {
  backends: ['nixl', 'mooncake'],
  equalTpBackends: ['mooncake'],
  routerCommand: 'vllm-router',
  routerPolicies: ['random', 'round_robin', 'cache_aware', 'power_of_two', 'consistent_hash', 'rendezvous_hash'],
  reserved: {
    port: 'each worker gets its own port from disaggregation.port_base',
    host: 'workers bind the address the unit gives them',
    kv_transfer_config: 'set disaggregation.transfer_backend and disaggregation.transfer_config',
  },
  sidePortBase: 5600,
  // NIXL: base + dp_rank per worker; Mooncake: base + data_parallel_index x tp_size (mooncake_connector.py @5c512330).
  sidePorts: (backend, tp, dp) => (backend === 'mooncake' ? tp * dp : dp),
  worker(slot, backend, transferConfig) {
    // NIXL takes its role from the router (kv_both everywhere); Mooncake sends or receives by kv_role.
    const role = backend === 'nixl' ? 'kv_both' : slot.role === 'prefill' ? 'kv_producer' : 'kv_consumer';
    const config: Record<string, unknown> = { kv_connector: VLLM_CONNECTORS[backend] ?? backend, kv_role: role, kv_load_failure_policy: 'fail' };
    for (const [k, v] of transferConfig) config[String(k)] = toJson(v);
    const envName = backend === 'mooncake' ? 'VLLM_MOONCAKE_BOOTSTRAP_PORT' : 'VLLM_NIXL_SIDE_CHANNEL_PORT';
    const env: Array<[string, string]> = slot.sidePort !== undefined ? [[envName, String(slot.sidePort)]] : [];
    return { flags: [['port', slot.port], ['kv_transfer_config', JSON.stringify(config)]], env };
  },
  routerArgv: (r) => routerCommon(r, '--vllm-pd-disaggregation', false),
};

const PROFILES: Partial<Record<FrameworkKey, DisaggProfile>> = { sglang: SGLANG, vllm: VLLM };

/** Why a framework has no P/D units yet (said where a config asks for one). */
export const DISAGG_UNSUPPORTED: Partial<Record<FrameworkKey, string>> = {
  tensorrt_llm:
    'TensorRT-LLM runs P/D as `trtllm-serve disaggregated -c FILE` over context/generation servers that each read an extra_llm_api_options file (cache_transceiver_config); this version of autobench does not write those files yet',
  tokenspeed: "TokenSpeed's captured --help has no P/D mode",
};

export function disaggProfile(fw: FrameworkKey): DisaggProfile | undefined {
  return PROFILES[fw];
}
