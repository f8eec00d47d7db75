// Model shapes as the simulator resolves a name: the table, a quantized checkpoint of a table model, a local folder's
// config.json (GQA dense, MoE, MLA), or a guess from the name that every prediction says out loud.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelProfile, profileSourceText } from '../../src/sim/profiles';
import { profileFromConfig } from '../../src/sim/model-config';
import { moeGemmEfficiency, resolveSim } from '../../src/sim/config';
import { DEFAULT_SIM_OPTIONS } from '../../src/sim/options';
import { parseFrameworkArgs } from '../../src/sim/serve';

const near = (a: number, b: number, tol: number, what: string): void => assert.ok(Math.abs(a / b - 1) <= tol, `${what}: ${a} vs ${b}`);

// The published config.json values (Hugging Face model repositories) of three layouts.
const LLAMA_31_8B = { architectures: ['LlamaForCausalLM'], hidden_size: 4096, intermediate_size: 14336, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128, vocab_size: 128256, max_position_embeddings: 131072, tie_word_embeddings: false, torch_dtype: 'bfloat16' };
const QWEN3_30B_A3B = { hidden_size: 2048, intermediate_size: 6144, moe_intermediate_size: 768, num_hidden_layers: 48, num_attention_heads: 32, num_key_value_heads: 4, head_dim: 128, num_experts: 128, num_experts_per_tok: 8, vocab_size: 151936, max_position_embeddings: 40960, tie_word_embeddings: false, torch_dtype: 'bfloat16' };
const DEEPSEEK_V3 = { hidden_size: 7168, intermediate_size: 18432, moe_intermediate_size: 2048, num_hidden_layers: 61, num_attention_heads: 128, num_key_value_heads: 128, kv_lora_rank: 512, q_lora_rank: 1536, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128, n_routed_experts: 256, n_shared_experts: 1, num_experts_per_tok: 8, first_k_dense_replace: 3, vocab_size: 129280, max_position_embeddings: 163840, tie_word_embeddings: false, torch_dtype: 'bfloat16', quantization_config: { quant_method: 'fp8', fmt: 'e4m3' } };

describe('model shapes from a name', () => {
  test('a quantized checkpoint of a table model gets its base shapes at the suffix size, and says so', () => {
    const fp8 = modelProfile('nvidia/Llama-3.3-70B-Instruct-FP8');
    const bf16 = modelProfile('meta-llama/Llama-3.3-70B-Instruct');
    assert.equal(fp8.estimated, undefined);
    assert.equal(fp8.derivedFrom, bf16.id);
    assert.equal(fp8.bytesPerParam, 1);
    assert.equal(fp8.kvBytesPerToken, bf16.kvBytesPerToken, 'KV bytes per token of the 70B, not a guess (a guess was 40% off)');
    assert.equal(modelProfile('RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic').bytesPerParam, 1);
    assert.equal(modelProfile('nvidia/Llama-3.1-8B-Instruct-NVFP4').bytesPerParam, 0.55);
    const q = modelProfile('Qwen/Qwen3-235B-A22B-FP8');
    assert.equal(q.kvBytesPerToken, modelProfile('Qwen/Qwen3-235B-A22B').kvBytesPerToken, 'a 2.6x KV miss before');
    assert.match(profileSourceText(fp8), /^of meta-llama\/Llama-3\.1-70B-Instruct, 1 bytes per parameter/);
  });

  test('Llama 3.0 names are known, with their 8K context; an unknown name is ESTIMATED, in words', () => {
    assert.equal(modelProfile('meta-llama/Meta-Llama-3-70B-Instruct').contextLength, 8192);
    assert.equal(modelProfile('meta-llama/Meta-Llama-3-8B').layers, 32);
    const guess = modelProfile('some-org/Thing-70B-FP8');
    assert.equal(guess.estimated, true);
    assert.equal(guess.source, 'name');
    assert.match(profileSourceText(guess), /^ESTIMATED from the name/);
  });
});

describe('model shapes from config.json', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  test('dense GQA: parameters, KV bytes per token and context as published (Llama 3.1 8B)', () => {
    const m = profileFromConfig('x', LLAMA_31_8B);
    assert.ok(m);
    near(m.totalParamsB, 8.03, 0.01, 'total');
    assert.equal(m.kvBytesPerToken, 2 * 32 * 8 * 128 * 2);
    assert.equal(m.kvSplit, 8);
    assert.equal(m.contextLength, 131072);
    assert.equal(m.bytesPerParam, 2);
  });

  test('MoE: total and active parameters (Qwen3-30B-A3B: 30.5B / 3.3B)', () => {
    const m = profileFromConfig('x', QWEN3_30B_A3B);
    assert.ok(m);
    near(m.totalParamsB, 30.5, 0.02, 'total');
    near(m.activeParamsB, 3.3, 0.05, 'active');
    assert.equal(m.kvBytesPerToken, 2 * 48 * 4 * 128 * 2);
    assert.deepEqual(m.moe, { experts: 128, topK: 8, intermediate: 768, layers: 48 });
  });

  test("MoE layers: DeepSeek's leading dense layers and Llama 4's MoE on every other layer are not routed", () => {
    assert.deepEqual(profileFromConfig('x', DEEPSEEK_V3)?.moe, { experts: 256, topK: 8, intermediate: 2048, layers: 58 });
    const maverick = { hidden_size: 5120, intermediate_size: 8192, intermediate_size_mlp: 16384, num_hidden_layers: 48, num_attention_heads: 40, num_key_value_heads: 8, head_dim: 128, num_local_experts: 128, num_experts_per_tok: 1, interleave_moe_layer_step: 2, vocab_size: 202048 };
    const m = profileFromConfig('x', maverick);
    assert.deepEqual(m?.moe, { experts: 128, topK: 1, intermediate: 8192, layers: 24 });
    // The table's Maverick agrees with what its config.json gives.
    assert.deepEqual(modelProfile('meta-llama/Llama-4-Maverick-17B-128E-Instruct').moe, m?.moe);
    assert.equal(profileFromConfig('x', LLAMA_31_8B)?.moe, undefined, 'dense: no experts');
  });


  test('MLA with shared experts and dense first layers, FP8 weights (DeepSeek-V3: 671B / 37B, one 576-wide latent)', () => {
    const m = profileFromConfig('x', DEEPSEEK_V3);
    assert.ok(m);
    near(m.totalParamsB, 671, 0.02, 'total');
    near(m.activeParamsB, 37, 0.05, 'active');
    assert.equal(m.kvBytesPerToken, 61 * (512 + 64) * 2);
    // Decode attends on the absorbed latent: each head scores 576 wide and mixes 512 wide values.
    assert.equal(m.attnDecodeWidth, (128 * (512 + 64 + 512)) / 2);
    assert.equal(modelProfile('deepseek-ai/DeepSeek-R1').attnDecodeWidth, m.attnDecodeWidth, 'the table agrees');
    assert.equal(m.kvSplit, 1);
    assert.equal(m.bytesPerParam, 1);
  });

  test("TensorRT-LLM's KV dtype auto follows the checkpoint: an NVIDIA ModelOpt name gets an FP8 KV cache, others do not", () => {
    assert.equal(modelProfile('nvidia/Llama-3.3-70B-Instruct-FP8').kvDtypeFactor, 0.5);
    assert.equal(modelProfile('nvidia/Llama-3.3-70B-Instruct-FP4').kvDtypeFactor, 0.5);
    assert.equal(modelProfile('RedHatAI/Llama-3.3-70B-Instruct-FP8').kvDtypeFactor, undefined);
    const kvTokens = (fw: 'tensorrt_llm' | 'vllm', argv: string[]): number => {
      const r = resolveSim(fw, parseFrameworkArgs(fw, argv) as Map<string, never>, { ...DEFAULT_SIM_OPTIONS, gpu: 'H100' });
      assert.ok(r.ok);
      return r.config.engine.cost.kvBytesPerToken;
    };
    const m = 'nvidia/Llama-3.1-8B-Instruct-FP8';
    assert.equal(kvTokens('tensorrt_llm', [m]), 65536, 'trtllm-serve: FP8 KV from the checkpoint');
    assert.equal(kvTokens('vllm', [m]), 131072, 'vLLM keeps auto = the model dtype');
  });

  test('a local folder with a config.json is read when the table does not know its name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-model-'));
    dirs.push(dir);
    const model = join(dir, 'my-finetune');
    mkdirSync(model);
    writeFileSync(join(model, 'config.json'), JSON.stringify(QWEN3_30B_A3B));
    const m = modelProfile(model);
    assert.equal(m.source, 'config');
    assert.equal(m.estimated, undefined);
    assert.equal(profileSourceText(m), `from ${model}/config.json`);
    // A ModelOpt checkpoint (TensorRT-LLM reads its quantization from hf_quant_config.json).
    writeFileSync(join(model, 'hf_quant_config.json'), JSON.stringify({ quantization: { quant_algo: 'FP8', kv_cache_quant_algo: 'FP8' } }));
    assert.equal(modelProfile(model).bytesPerParam, 1);
    assert.equal(modelProfile(model).kvDtypeFactor, 0.5, 'its kv_cache_quant_algo FP8: half the KV bytes');
    writeFileSync(join(model, 'hf_quant_config.json'), JSON.stringify({ quantization: { quant_algo: 'NVFP4' } }));
    assert.equal(modelProfile(model).kvDtypeFactor, undefined, 'no kv_cache_quant_algo: the model dtype');
    writeFileSync(join(model, 'config.json'), '{ not json');
    assert.equal(modelProfile(model).estimated, true, 'an unreadable config.json: estimated, and said');
  });
});

describe('parallelism in the engine model', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const resolve = (fw: 'tensorrt_llm' | 'vllm' | 'sglang', argv: string[]) => {
    const r = resolveSim(fw, parseFrameworkArgs(fw, argv) as Map<string, never>, { ...DEFAULT_SIM_OPTIONS, gpu: 'H100' });
    assert.ok(r.ok, r.ok ? '' : r.lines.join('\n'));
    return r.config;
  };

  test('pipeline stages are micro-batch replicas: each with its share of the KV cache, each step the whole model', () => {
    const one = resolve('vllm', ['meta-llama/Llama-3.1-70B-Instruct', '--tensor-parallel-size', '4']);
    const pp = resolve('vllm', ['meta-llama/Llama-3.1-70B-Instruct', '--tensor-parallel-size', '2', '--pipeline-parallel-size', '2']);
    assert.equal(one.engine.replicas, 1);
    assert.equal(pp.engine.replicas, 2);
    assert.equal(pp.gpus, 4);
    assert.equal(pp.engine.policy.kvBlocks, Math.floor(pp.kvTokens / pp.settings.blockSize / 2));
    // Each micro-batch reads every stage's weights once per step: the TP-2 shard of the whole model.
    assert.equal(pp.engine.cost.weightBytes, one.engine.cost.weightBytes * 2);
  });

  test("TensorRT-LLM's enable_attention_dp: one replica per rank, whose tokens cost the whole model's FLOPs over the ranks' experts", () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-adp-'));
    dirs.push(dir);
    const opts = join(dir, 'adp.yaml');
    writeFileSync(opts, 'enable_attention_dp: true\n');
    const m = 'Qwen/Qwen3-30B-A3B';
    const tp = resolve('tensorrt_llm', [m, '--tp_size', '4']);
    const adp = resolve('tensorrt_llm', [m, '--tp_size', '4', '--extra_llm_api_options', opts]);
    assert.deepEqual([tp.engine.replicas, adp.engine.replicas, adp.gpus], [1, 4, 4]);
    assert.equal(adp.engine.cost.flopsPerToken, tp.engine.cost.flopsPerToken * 4);
    assert.equal(adp.engine.cost.moeBatchScale, 4);
    // Each rank keeps its own requests' KV whole (Qwen3-30B has 4 KV heads: TP 4 splits it, attention DP does not).
    assert.equal(adp.engine.cost.kvBytesPerToken, tp.engine.cost.kvBytesPerToken * 4);
  });

  test('routed experts are priced apart: thinner per-GPU expert GEMMs reach less of the dense rate', () => {
    const e = (moeTp: number): number => moeGemmEfficiency(4096, 1536, moeTp);
    assert.ok(e(1) > e(2) && e(2) > e(8), `${e(1)} ${e(2)} ${e(8)}`);
    assert.ok(e(8) > 0.05 && e(1) < 1);
    assert.equal(moeGemmEfficiency(8192, 28672, 1), 1, 'a dense-sized GEMM runs at the dense rate');
    const m = 'Qwen/Qwen3-235B-A22B';
    const tp = resolve('sglang', ['--model-path', m, '--tp-size', '8']);
    const ep = resolve('sglang', ['--model-path', m, '--tp-size', '8', '--ep-size', '8']);
    assert.deepEqual([tp.settings.moeTp, ep.settings.moeTp], [8, 1]);
    assert.ok(ep.engine.cost.moeFlops > tp.engine.cost.moeFlops, 'EP keeps each expert whole');
    assert.equal(ep.engine.cost.flops, tp.engine.cost.flops, 'the dense part is unchanged');
    near(tp.engine.cost.routedFlopsPerToken + tp.engine.cost.flopsPerToken, (2 * 22e9) / 8, 0.001, 'the split keeps the active FLOPs');
    const small = 'Qwen/Qwen3-30B-A3B';
    const vllm = resolve('vllm', [small, '--tensor-parallel-size', '4', '--data-parallel-size', '2']);
    const vllmEp = resolve('vllm', [small, '--tensor-parallel-size', '4', '--data-parallel-size', '2', '--enable-expert-parallel']);
    assert.deepEqual([vllm.settings.moeTp, vllmEp.settings.moeTp], [8, 1], 'vLLM: TP over TP x DP, or EP');
  });
});
