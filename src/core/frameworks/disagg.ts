// How each framework runs a disaggregated prefill/decode unit: its transfer backends, the flags and environment a
// prefill or decode worker needs, and the router in front of them. Facts from each engine's own source (docs/ENGINES.md
// "Disaggregated prefill/decode" cites them); the unit's layout (ports, GPU slots) is rendered in candidates/unit.ts.
import { toJson, type PyValue } from '../py/value';
import { TRTLLM } from './disagg-trtllm';
import type { DisaggProfile, RouterInputs } from './disagg-types';
import type { FrameworkKey } from './types';

export type { DisaggProfile, RouterInputs, UnitFile, UnitFileInputs, UnitRole, WorkerAdditions, WorkerSlot } from './disagg-types';


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

const PROFILES: Partial<Record<FrameworkKey, DisaggProfile>> = { sglang: SGLANG, vllm: VLLM, tensorrt_llm: TRTLLM };

/** Why a framework has no P/D units yet (said where a config asks for one). */
export const DISAGG_UNSUPPORTED: Partial<Record<FrameworkKey, string>> = {
  tokenspeed: "TokenSpeed's captured --help has no P/D mode",
};

export function disaggProfile(fw: FrameworkKey): DisaggProfile | undefined {
  return PROFILES[fw];
}
