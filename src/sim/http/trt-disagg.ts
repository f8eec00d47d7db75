// A simulated trtllm-serve worker's side of TensorRT-LLM's P/D protocol: `disaggregated_params.request_type` on
// /v1/completions and /v1/chat/completions. context_only runs the prompt and its first token only and answers with what
// the generation side needs; generation_only arrives with the prompt's KV transferred (pd.ts). A worker without
// cache_transceiver_config, or a context-only request on a worker with the overlap scheduler on, fails as the engine's
// executor does (tensorrt_llm/executor/base_worker.py @7b437aaa).
import type { SimSettings } from '../fw/types';
import { HttpError, isObject } from './io';

export type TrtRequestType = 'context_only' | 'generation_only' | 'context_and_generation';

export const TRT_NO_TRANSCEIVER =
  "kv_cache_transceiver is disabled, please set 'cache_transceiver_config: backend:<backend_type>` in config file for disaggregated serving";
export const TRT_CONTEXT_OVERLAP = 'Context only requests are not supported in pytorch backend when overlap is enabled.';

const TYPES: readonly TrtRequestType[] = ['context_only', 'generation_only', 'context_and_generation'];

/** The request's P/D type, or undefined without disaggregated_params; throws the engine's errors. */
export function trtRequestType(settings: SimSettings, body: Record<string, unknown>): TrtRequestType | undefined {
  const p = body.disaggregated_params;
  if (p === undefined || p === null) return undefined;
  if (!isObject(p)) throw new HttpError(400, 'disaggregated_params must be an object.', 'disaggregated_params');
  const t = p.request_type;
  if (typeof t !== 'string' || !(TYPES as readonly string[]).includes(t)) {
    throw new HttpError(400, `disaggregated_params.request_type must be one of ${TYPES.join(', ')}.`, 'disaggregated_params');
  }
  const type = t as TrtRequestType;
  // The assertion comes first; the overlap check only on a worker with a transceiver (base_worker.py @7b437aaa).
  if (!settings.pd && type !== 'context_and_generation') throw new HttpError(400, TRT_NO_TRANSCEIVER, 'disaggregated_params');
  if (type === 'context_only' && settings.overlap) throw new HttpError(400, TRT_CONTEXT_OVERLAP, 'disaggregated_params');
  return type;
}

let nextCtxId = 1;

/**
 * What a context-only answer's choice carries for the generation side: the first token, the context request's id and
 * the transfer's connection state (opaque: base64 in the engine; here a label naming the worker).
 */
export function contextParams(firstToken: number, worker: string): Record<string, unknown> {
  return {
    request_type: 'context_only',
    first_gen_tokens: [firstToken],
    ctx_request_id: nextCtxId++,
    encoded_opaque_state: Buffer.from(`autobench-sim ${worker}`).toString('base64'),
    draft_tokens: null,
  };
}
