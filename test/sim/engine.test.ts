// The engine's parts: tokenizer and pseudo-words, KV pool with prefix cache, cost model, configuration from
// flags, and the scheduler's stream interval, chunked prefill, caching and abort.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SimClock } from '../../src/sim/clock';
import { resolveSim, type ResolvedSim } from '../../src/sim/config';
import { emptyWork, stepSeconds } from '../../src/sim/cost';
import { SimEngine } from '../../src/sim/engine';
import { KvPool } from '../../src/sim/kv';
import { DEFAULT_SIM_OPTIONS, extractSimOptions } from '../../src/sim/options';
import { modelProfile } from '../../src/sim/profiles';
import { parseFrameworkArgs } from '../../src/sim/serve';
import type { FinishReason } from '../../src/sim/request';
import { WORDS, countTokens, outputText, tokenPieces, tokenize } from '../../src/sim/tokens';

function resolve(fw: 'sglang' | 'vllm' | 'tensorrt_llm' | 'tokenspeed', argv: string[], inv?: string, speed = 1e5): ResolvedSim {
  const r = resolveSim(fw, parseFrameworkArgs(fw, argv, inv) as Map<string, never>, { ...DEFAULT_SIM_OPTIONS, speed, logIntervalMs: 0 });
  assert.ok(r.ok, r.ok ? '' : r.lines.join('\n'));
  return r.config;
}

interface Run {
  deliveries: number[];
  finish: FinishReason | null;
  generated: number;
}

function run(engine: SimEngine, prompt: number[], maxNew: number): Promise<Run> {
  return new Promise((done, fail) => {
    const out: Run = { deliveries: [], finish: null, generated: 0 };
    const r = engine.submit({ promptIds: prompt, maxNewTokens: maxNew, ignoreEos: true, varySample: false }, {
      tokens: (from, count, finish) => {
        out.deliveries.push(count);
        out.generated = from + count;
        if (finish) {
          out.finish = finish;
          done(out);
        }
      },
      failed: (m) => fail(new Error(m)),
    });
    if (!r.ok) fail(new Error(r.message));
  });
}

const ids = (n: number, salt = 0): number[] => Array.from({ length: n }, (_, i) => (i * 2654435761 + salt) >>> 0);

describe('tokens', () => {
  test('pieces: short words with their leading space, long words split, digits in threes, whitespace runs', () => {
    assert.deepEqual(tokenPieces('Hello  world, abcdefghij 12345\n\nx'), ['Hello', ' ', ' world', ',', ' abcdef', 'ghij', ' 123', '45', '\n\n', 'x']);
    assert.equal(countTokens(''), 0);
    assert.equal(tokenize('same text').join(), tokenize('same text').join());
  });

  test('every generated word is one token, so output text re-tokenizes to its count', () => {
    for (const w of WORDS) assert.equal(countTokens(w), 1, w);
    const text = outputText(1234, 0, 500);
    assert.equal(countTokens(text), 500);
    assert.equal(outputText(1234, 10, 5), tokenPieces(text).slice(10, 15).join(''));
  });
});

describe('KV pool', () => {
  test('cached blocks are shared, kept idle after use, and evicted oldest first', () => {
    const kv = new KvPool(4, 16, true);
    assert.ok(kv.allocate(2));
    assert.ok(kv.publish(101));
    assert.ok(kv.publish(102));
    kv.release([101, 102], 0);
    assert.equal(kv.used(), 0);
    assert.equal(kv.available(), 4);
    assert.equal(kv.match([101, 102, 103]), 2);
    kv.acquire([101], 1);
    assert.ok(kv.allocate(3), 'evicts the idle block 102 to make room');
    assert.equal(kv.evictions, 1);
    assert.equal(kv.match([101, 102]), 1);
    assert.equal(kv.allocate(1), false, 'full');
  });

  test('without caching nothing is matched or kept', () => {
    const kv = new KvPool(2, 16, false);
    assert.ok(kv.allocate(2));
    assert.equal(kv.publish(1), false);
    kv.release([], 2);
    assert.equal(kv.match([1]), 0);
    assert.equal(kv.available(), 2);
  });
});

describe('cost model', () => {
  const c = resolve('vllm', ['meta-llama/Llama-3.1-8B-Instruct']).engine.cost;
  test('decode is memory bound: a bigger batch costs little, more resident context costs more', () => {
    const one = stepSeconds(c, { ...emptyWork(), decodeSeqs: 1, decodeCtx: 1000 });
    const b32 = stepSeconds(c, { ...emptyWork(), decodeSeqs: 32, decodeCtx: 32 * 1000 });
    const b32long = stepSeconds(c, { ...emptyWork(), decodeSeqs: 32, decodeCtx: 32 * 16000 });
    assert.ok(b32 < 1.5 * one, `${b32} vs ${one}`);
    assert.ok(b32long > 1.5 * b32, `${b32long} vs ${b32}`);
  });

  test('prefill is compute bound and grows with prompt tokens', () => {
    const p = (n: number): number => stepSeconds(c, { ...emptyWork(), prefillSeqs: 1, prefillTokens: n, prefillPairs: n * (n / 2), prefillCtx: n });
    assert.ok(p(8192) > 3.5 * p(2048));
    assert.ok(p(2048) > 3 * p(256));
  });
});

describe('configuration from framework flags', () => {
  test('memory flags size the KV cache; FP8 KV holds twice the tokens', () => {
    const a = resolve('vllm', ['meta-llama/Llama-3.1-8B-Instruct', '--gpu-memory-utilization', '0.6']);
    const b = resolve('vllm', ['meta-llama/Llama-3.1-8B-Instruct', '--gpu-memory-utilization', '0.9']);
    const f = resolve('vllm', ['meta-llama/Llama-3.1-8B-Instruct', '--gpu-memory-utilization', '0.9', '--kv-cache-dtype', 'fp8']);
    assert.ok(b.kvTokens > a.kvTokens * 1.5);
    assert.ok(Math.abs(f.kvTokens / b.kvTokens - 2) < 0.01);
  });

  test('auto GPU: the smallest that holds the weights; parallel sizes split them', () => {
    assert.equal(resolve('vllm', ['meta-llama/Llama-3.1-8B-Instruct']).gpu.name, 'H100');
    const big = resolve('vllm', ['deepseek-ai/DeepSeek-V3', '--tensor-parallel-size', '8']);
    assert.equal(big.gpu.name, 'H200');
    assert.equal(big.gpus, 8);
    const sg = resolve('sglang', ['--model-path', 'deepseek-ai/DeepSeek-V3', '--tp-size', '8', '--dp-size', '2', '--enable-dp-attention'], 'launch_server');
    assert.equal(sg.engine.replicas, 2);
  });

  test('framework defaults and caps land in the policy', () => {
    const s = resolve('sglang', ['--model-path', 'm-8B', '--chunked-prefill-size', '-1', '--max-running-requests', '48', '--disable-radix-cache'], 'launch_server');
    assert.equal(s.engine.policy.chunkSize, Infinity);
    assert.equal(s.engine.policy.maxRunning, 48);
    assert.equal(s.engine.policy.prefixCaching, false);
    assert.equal(s.engine.policy.mixed, false);
    const v = resolve('vllm', ['m-8B', '--max-num-batched-tokens', '4096', '--max-num-seqs', '64']);
    assert.equal(v.engine.policy.tokenBudget, 4096);
    assert.equal(v.engine.policy.maxRunning, 64);
    assert.equal(v.engine.policy.mixed, true);
    const t = resolve('tensorrt_llm', ['m-8B', '--max_num_tokens', '2048']);
    assert.equal(t.maxPromptTokens, 2048, 'no chunked prefill: a prompt must fit one iteration');
    assert.equal(modelProfile('some-org/Thing-70B-FP8').estimated, true);
    assert.equal(modelProfile('some-org/Thing-70B-FP8').bytesPerParam, 1);
  });

  test('simulator options come from --sim-* flags over AUTOBENCH_SIM_OPTS', () => {
    const { rest, options } = extractSimOptions(['m', '--sim-speed', '5', '--port', '1'], { AUTOBENCH_SIM_OPTS: '--sim-speed 2 --sim-gpu B200' });
    assert.deepEqual(rest, ['m', '--port', '1']);
    assert.equal(options.speed, 5);
    assert.equal(options.gpu, 'B200');
    assert.throws(() => extractSimOptions(['--sim-warp', '9']), /unknown simulator option --sim-warp/);
    assert.throws(() => extractSimOptions(['--sim-speed', '0']), /invalid value/);
  });
});

describe('scheduler', () => {
  const engine = (fw: 'sglang' | 'vllm', argv: string[], inv?: string): SimEngine => {
    const c = resolve(fw, argv, inv);
    return new SimEngine(c.engine, new SimClock(c.options.speed));
  };

  test('stream_interval groups tokens into deliveries', async () => {
    const e = engine('vllm', ['m-8B', '--stream-interval', '4']);
    const r = await run(e, ids(10), 10);
    assert.equal(r.generated, 10);
    assert.deepEqual(r.deliveries, [1, 4, 4, 1]);
    assert.equal(r.finish, 'length');
  });

  test('chunked prefill splits a long prompt over steps', async () => {
    const chunked = engine('vllm', ['m-8B', '--max-num-batched-tokens', '512']);
    await run(chunked, ids(2000), 1);
    assert.equal(chunked.stats().steps, 4);
    const whole = engine('vllm', ['m-8B', '--no-enable-chunked-prefill']);
    await run(whole, ids(2000), 1);
    assert.equal(whole.stats().steps, 1);
  });

  test('a repeated prompt hits the prefix cache; aborting frees the KV blocks', async () => {
    const e = engine('sglang', ['--model-path', 'm-8B'], 'launch_server');
    const p = ids(300, 7);
    await run(e, p, 2);
    await run(e, p, 2);
    assert.equal(e.stats().cachedTokens, 288, 'every full 16-token block of the prompt but the last token');
    const pending = e.submit({ promptIds: ids(100, 9), maxNewTokens: 100000, ignoreEos: true, varySample: false }, { tokens: () => undefined, failed: () => undefined });
    assert.ok(pending.ok);
    e.abort(pending.request, pending.replica);
    assert.equal(e.stats().kvBlocksUsed, 0);
  });

  test('the same seed gives the same answers and answer lengths', async () => {
    const lens = async (): Promise<number[]> => {
      const c = resolve('vllm', ['m-8B']);
      const e = new SimEngine({ ...c.engine, naturalMedian: 20 }, new SimClock(1e5));
      const out: number[] = [];
      for (let i = 0; i < 5; i++) {
        out.push(
          await new Promise<number>((done) => {
            e.submit({ promptIds: ids(10, i), maxNewTokens: 500, ignoreEos: false, varySample: false }, { tokens: (f, n, fin) => fin && done(f + n), failed: () => done(-1) });
          }),
        );
      }
      return out;
    };
    const a = await lens();
    assert.deepEqual(await lens(), a);
    assert.ok(a.some((n) => n < 500));
  });
});
