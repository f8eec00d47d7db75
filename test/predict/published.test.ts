// The published-measurements corpus and the model's predictions of it: reading (bad points named by file and index),
// the command a point's deployment runs, the summary of errors, and a fit that recovers known speed factors.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODEL_ERROR, modelErrorLines } from '../../src/predict/model-error';
import { REPO } from '../support/fixtures';
import { checkpointOf, commandFor, corpusDigest, drawnLengths, fitFactors, groupOf, predictPublished, readCorpus, summarizeErrors, trtllmBenchSettings, type PublishedPoint } from '../../src/predict/published';

const base: PublishedPoint = { engine: 'vllm', engine_version: null, model: 'meta-llama/Llama-3.1-8B-Instruct', gpu: 'H100', gpu_count: 1, tp: 1, pp: 1, ep: null, weights_dtype: 'bf16', kv_dtype: null, isl: 1000, osl: 200, load: { kind: 'concurrency', concurrency: 16, requests: 160 }, metric: 'mean_tpot_ms', value: 10, unit: 'ms', where: 'test' };

describe('the published corpus', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const temp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'autobench-published-'));
    dirs.push(d);
    return d;
  };

  test('reads every source; a point it cannot use is named by file and index with the reason', () => {
    const d = temp();
    writeFileSync(join(d, 'a.json'), JSON.stringify({ source: { kind: 'page', url: 'https://example.org' }, points: [base, { ...base, gpu: 'Z9000' }, { ...base, metric: 'goodput' }] }));
    writeFileSync(join(d, 'b.json'), '{ broken');
    const { sources, problems } = readCorpus(d);
    assert.equal(sources.length, 1);
    assert.equal(sources[0]?.points.length, 1);
    assert.equal(problems.length, 3);
    assert.match(problems[0] ?? '', /a\.json: points\[1\]: GPU 'Z9000' has no simulator profile/);
    assert.match(problems[1] ?? '', /a\.json: points\[2\]: metric 'goodput' is not one of/);
    assert.match(problems[2] ?? '', /b\.json: not JSON/);
  });

  test("a point's command states its parallelism and precisions on the engine's own flags", () => {
    const d = temp();
    // Quantized weights run a quantized checkpoint, whose name the simulator reads the precision from.
    assert.deepEqual(commandFor({ ...base, tp: 4, gpu_count: 4, weights_dtype: 'fp8', kv_dtype: 'fp8' }, d), ['vllm', 'serve', `${base.model}-FP8`, '--tensor-parallel-size', '4', '--pipeline-parallel-size', '1', '--max-model-len', '1216', '--kv-cache-dtype', 'fp8']);
    assert.equal(commandFor({ ...base, engine: 'sglang', model: 'nvidia/Llama-3.1-8B-Instruct-FP8', weights_dtype: 'fp8' }, d)[4], 'nvidia/Llama-3.1-8B-Instruct-FP8');
    // A table label, as the checkpoint it names.
    assert.equal(checkpointOf({ ...base, model: 'LLaMA v3.1 70B', weights_dtype: 'fp4' }), 'meta-llama/Llama-3.1-70B-Instruct-FP4');
    const trt = commandFor({ ...base, engine: 'tensorrt_llm', kv_dtype: 'fp8', tp: 2, gpu_count: 2 }, d);
    assert.deepEqual(trt.slice(0, 9), ['trtllm-serve', 'serve', base.model, '--backend', 'pytorch', '--tp_size', '2', '--pp_size', '1']);
    assert.equal(trt[trt.indexOf('--extra_llm_api_options') + 1], join(d, 'kv-fp8.yaml'));
    assert.equal(groupOf({ ...base, model: 'nvidia/Llama-3.1-8B-Instruct-FP8', weights_dtype: null }), 'Hopper fp8');
    assert.equal(groupOf({ ...base, gpu: 'GB200', weights_dtype: 'fp4' }), 'Blackwell fp4');
  });

  test("an offline TensorRT-LLM point runs trtllm-bench's own batch and token limits", () => {
    const d = temp();
    const trt: PublishedPoint = { ...base, engine: 'tensorrt_llm', model: 'nvidia/Llama-3.1-8B-Instruct-FP8', weights_dtype: 'fp8', load: { kind: 'offline', requests: 1000 }, metric: 'output_throughput' };
    // By hand from tuning.py: 72.1 GiB free after 7.5 GiB of FP8 weights, x0.95, over 64 KiB of FP8 KV per token.
    // 20000/2000: 51 requests -> batch 64; tokens 51 x 11 -> 2048, raised to the prompt plus the batch (chunking off).
    assert.deepEqual(trtllmBenchSettings({ ...trt, isl: 20000, osl: 2000 }), { maxBatch: 64, maxTokens: 20064 });
    // 128/128: 4384 requests, capped at 4096; tokens 4096 x 2 = 8192.
    assert.deepEqual(trtllmBenchSettings({ ...trt, isl: 128, osl: 128 }), { maxBatch: 4096, maxTokens: 8192 });
    const argv = commandFor({ ...trt, isl: 20000, osl: 2000 }, d);
    assert.equal(argv[argv.indexOf('--max_num_tokens') + 1], '20064');
    assert.equal(argv[argv.indexOf('--kv_cache_free_gpu_memory_fraction') + 1], '0.95');
    assert.match(readFileSync(argv[argv.indexOf('--extra_llm_api_options') + 1] as string, 'utf8'), /cuda_graph_config:\n {2}enable_padding: true\n {2}max_batch_size: 64\n/);
    // A MoE checkpoint over several GPUs runs attention data-parallel, as the page's MoE options say.
    const moe = commandFor({ ...trt, model: 'nvidia/Qwen3-30B-A3B-FP4', weights_dtype: 'fp4', tp: 2, gpu_count: 2, isl: 1000, osl: 1000 }, d);
    assert.match(readFileSync(moe[moe.indexOf('--extra_llm_api_options') + 1] as string, 'utf8'), /^enable_attention_dp: true$/m);
  });

  test('errors: median |error|, the latency ratio, the share within 25% and the worst point', () => {
    const rows = [0.9, 1.0, 1.1, 1.5].map((ratio, i) => ({ point: { ...base, metric: i < 2 ? ('mean_tpot_ms' as const) : ('output_throughput' as const) }, ratio }));
    const s = summarizeErrors(rows);
    assert.equal(s.n, 4);
    assert.ok(Math.abs(s.medianAbsError - 0.1) < 1e-9);
    assert.ok(Math.abs((s.medianLatencyRatio as number) - 0.95) < 1e-9);
    assert.equal(s.within25, 0.75);
    assert.ok(Math.abs((s.worst?.ratio as number) - 1.5) < 1e-9);
  });

  test("the model error every prediction states was measured on this corpus (else: npm run bench:predict-published -- --write)", () => {
    assert.equal(MODEL_ERROR.corpus_digest, corpusDigest(join(REPO, 'test', 'fixtures', 'published')));
    assert.ok(MODEL_ERROR.points >= 1000 && MODEL_ERROR.sources >= 3);
    const [head, figures] = modelErrorLines({ ...MODEL_ERROR, median_abs_error: 0.1948, within_25: 0.5751, latency_ratio: 0.7434, points: 1012, sources: 6, measured: '2026-12-06' });
    assert.equal(head, 'model error on published GPU data (uncalibrated; 1012 points from 6 sources, measured 2026-12-06):');
    assert.equal(figures, '  median 19%, 58% of points within 25%; latencies predicted 26% too fast (median)');
  });

  test('a fit recovers the speed factors that produced the published figures', () => {
    const d = temp();
    const truth = { prefill: 0.8, decode: 0.7 };
    const shapes: Array<Partial<PublishedPoint>> = [
      { metric: 'mean_tpot_ms', load: { kind: 'concurrency', concurrency: 8, requests: 80 } },
      { metric: 'mean_ttft_ms', isl: 4000, osl: 50, load: { kind: 'rate', rate: 1, requests: 60 } },
      { metric: 'output_throughput', load: { kind: 'concurrency', concurrency: 64, requests: 256 } },
    ];
    const pts = shapes.map((s) => {
      const p = { ...base, ...s };
      const r = predictPublished(p, d, truth);
      assert.ok(r.ok);
      return { ...p, value: r.predicted };
    });
    // Each shape 8 times (24 points, as the bench fits a group on): the fit's ridge, a cross-source prior of ±22% per
    // factor, gives way to that many consistent points.
    const fit = fitFactors(Array.from({ length: 8 }, () => pts).flat(), d);
    assert.ok(Math.abs(fit.prefill / truth.prefill - 1) < 0.05, `prefill ${fit.prefill}`);
    assert.ok(Math.abs(fit.decode / truth.decode - 1) < 0.05, `decode ${fit.decode}`);
  });

  test("a random-dataset point runs bench_serving's uniform lengths around the printed means, not lockstep equal ones", () => {
    const p: PublishedPoint = { ...base, engine: 'sglang', isl: 8000, osl: 1000, dataset: 'random', isl_mean_measured: 3980.9, osl_mean_measured: 531.2, metric: 'mean_ttft_ms' };
    const l = drawnLengths(p, 400);
    assert.ok(l);
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.ok(Math.abs(mean(l.map((x) => x.input)) / 3980.9 - 1) < 0.05, 'input mean');
    assert.ok(Math.abs(mean(l.map((x) => x.output)) / 531.2 - 1) < 0.05, 'output mean');
    assert.ok(l.every((x) => x.input >= 1 && x.input <= 8000 && x.output >= 1 && x.output <= 1000), 'within bench_serving range');
    assert.ok(new Set(l.map((x) => x.input)).size > 300, 'lengths differ');
    assert.equal(drawnLengths({ ...p, dataset: undefined }, 10), undefined, 'fixed lengths otherwise');
    // Closed loop at 16: with equal lengths all 16 finish together and queue their prefills behind each other.
    const d = temp();
    const fixed = predictPublished({ ...p, dataset: undefined, model: 'meta-llama/Llama-3.1-70B-Instruct', gpu: 'H100', tp: 8, gpu_count: 8 }, d);
    const drawn = predictPublished({ ...p, model: 'meta-llama/Llama-3.1-70B-Instruct', gpu: 'H100', tp: 8, gpu_count: 8 }, d);
    assert.ok(fixed.ok && drawn.ok);
    assert.ok(drawn.predicted < fixed.predicted, `TTFT drawn ${drawn.predicted} vs lockstep ${fixed.predicted}`);
  });

  test("a TensorRT-LLM run's stated settings (the DeepSeek blog's attention DP, batch and token limits) reach its command", () => {
    const d = temp();
    const p: PublishedPoint = { ...base, engine: 'tensorrt_llm', model: 'deepseek-ai/DeepSeek-R1', gpu: 'H200', tp: 8, gpu_count: 8, ep: 8, trtllm: { attention_dp: true, max_batch_size: 128, max_num_tokens: 1151, kv_cache_free_gpu_memory_fraction: 0.8, cuda_graph_max_batch_size: 128 } };
    const argv = commandFor(p, d);
    const at = (flag: string): string | undefined => argv[argv.indexOf(flag) + 1];
    assert.deepEqual([at('--max_batch_size'), at('--max_num_tokens'), at('--kv_cache_free_gpu_memory_fraction'), at('--ep_size')], ['128', '1151', '0.8', '8']);
    const opts = readFileSync(at('--extra_llm_api_options') as string, 'utf8');
    assert.match(opts, /enable_attention_dp: true/);
    assert.match(opts, /max_batch_size: 128/);
  });
});
