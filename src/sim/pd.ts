// The simulator's P/D disaggregation: which requests reach a decode worker with their KV transferred from a prefill
// worker (as each engine marks them), and what the transfer costs on the modelled links.
import type { ResolvedSim } from './config';
import type { SimSettings } from './fw/types';

/**
 * Per GPU: bytes/s and a fixed cost per request. RDMA backends at a 200 Gb/s NIC per GPU (modelled, not measured);
 * Mooncake over TCP at the rate Dynamo measured before its UCX fix (1.8 s to move Llama-3.1-8B's KV of a 5000-token
 * prompt, ~0.36 GB/s: ai-dynamo/dynamo PR #1314).
 */
interface Link {
  bandwidth: number;
  latency: number;
}
const RDMA: Link = { bandwidth: 25e9, latency: 2e-3 };
const LINKS: Record<string, Link> = { mooncake_tcp: { bandwidth: 0.36e9, latency: 5e-3 } };

/**
 * Whether a request brings transferred KV: on an SGLang decode worker, one the router sent with its prefill's bootstrap
 * room (sglang · python/sglang/srt/managers/io_struct.py: bootstrap_host/port/room); on a vLLM worker with a KV
 * connector, one whose kv_transfer_params say the prefill was remote (`do_remote_prefill`, the NIXL proxy's protocol); on
 * a TensorRT-LLM worker with a cache transceiver, one the front end marked `disaggregated_params.request_type:
 * generation_only` (NVIDIA/TensorRT-LLM · tensorrt_llm/serve/openai_disagg_server.py @3e53e4ad).
 */
export function carriesTransferredKv(pd: SimSettings['pd'], body: Record<string, unknown>): boolean {
  if (!pd) return false;
  if (pd.role === 'decode' && body.bootstrap_room !== undefined && body.bootstrap_room !== null) return true;
  if (pd.role === 'prefill') return false;
  const params = body.kv_transfer_params;
  if (typeof params === 'object' && params !== null && (params as Record<string, unknown>).do_remote_prefill === true) return true;
  const trt = body.disaggregated_params;
  return typeof trt === 'object' && trt !== null && (trt as Record<string, unknown>).request_type === 'generation_only';
}

/** Modelled seconds to move a prompt's KV to this decode worker: every GPU receives its own share at once. */
export function kvTransferSeconds(c: ResolvedSim, promptTokens: number): number {
  const link = LINKS[c.settings.pd?.backend ?? ''] ?? RDMA;
  return link.latency + (promptTokens * c.engine.cost.kvBytesPerToken) / link.bandwidth;
}
