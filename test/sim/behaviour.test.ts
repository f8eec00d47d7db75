// Behaviour a user of the simulated engine would notice: performance follows the same knobs as on a GPU
// (concurrency until KV runs out, prompt length, output length, prefix caching, batch caps), and failures
// look like the real servers' (OOM at startup, crash mid-run, startup delay).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { checkConfigText } from '../../src/core/config/check';
import { DEFAULT_SIM_OPTIONS, SimStartError, parseFrameworkArgs, resolveSim, simTargetFor, type SimServer } from '../../src/sim';
import { REPO, post, postJson, promptOf, sim, withSim } from '../support/sim';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

interface LoadResult {
  /** Output tokens per simulated second of engine time (idle gaps between a worker's requests excluded). */
  throughput: number;
  /** Mean end-to-end latency in simulated seconds. */
  e2e: number;
}

interface Timing {
  arrival: number;
  first_token: number;
  finish: number;
}

// Measured on the engine's modelled clock (--sim-debug-timing), so a busy test machine cannot blur them; the
// large lag allowance makes the engine catch up after stalls instead of stretching its schedule.
const MODELLED = { debugTiming: true, maxLagMs: 1e9 };

async function complete(s: SimServer, prompt: string, maxTokens: number): Promise<{ timing: Timing; tokens: number; cached?: number }> {
  const r = await postJson(s, '/v1/completions', { prompt, max_tokens: maxTokens, ignore_eos: true });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const choice = (r.json.choices as Array<{ autobench_sim_timing: Timing }>)[0] as { autobench_sim_timing: Timing };
  const usage = r.json.usage as { completion_tokens: number };
  return { timing: choice.autobench_sim_timing, tokens: usage.completion_tokens };
}

/** Closed loop: `c` workers each send `perWorker` requests back to back. */
async function load(s: SimServer, c: number, perWorker: number, promptLen: number, outLen: number): Promise<LoadResult> {
  const runs: Array<{ timing: Timing; tokens: number }> = [];
  const before = s.engine.stats();
  await Promise.all(
    Array.from({ length: c }, async (_, w) => {
      for (let i = 0; i < perWorker; i++) runs.push(await complete(s, promptOf(promptLen, `${w}x${i}`), outLen));
    }),
  );
  const after = s.engine.stats();
  const throughput = (after.generatedTokens - before.generatedTokens) / (after.busySeconds - before.busySeconds);
  return { throughput, e2e: runs.reduce((a, r) => a + r.timing.finish - r.timing.arrival, 0) / runs.length };
}

async function ttft(s: SimServer, prompt: string, maxTokens = 1): Promise<{ ttft: number; e2e: number }> {
  const { timing } = await complete(s, prompt, maxTokens);
  return { ttft: timing.first_token - timing.arrival, e2e: timing.finish - timing.arrival };
}

describe('performance follows the knobs', () => {
  test('throughput rises with concurrency until the KV cache is full, then latency climbs', async () => {
    // Speed 5 keeps client-side delays (wall clock, scaled by the speed) small against a 2 s request, so the
    // workers really overlap. 8192 KV tokens hold ~25 requests of 256 + 128 tokens (SGLang admits on expected, not maximum, length).
    await withSim('sglang', ['--model-path', 'meta-llama/Llama-3.1-70B-Instruct', '--tp-size', '4', '--max-total-tokens', '8192', '--sim-gpu', 'H100'], async (s) => {
      const r1 = await load(s, 1, 2, 256, 128);
      const r4 = await load(s, 4, 2, 256, 128);
      const r16 = await load(s, 16, 2, 256, 128);
      const r64 = await load(s, 64, 2, 256, 128);
      const msg = JSON.stringify({ r1, r4, r16, r64 });
      // Below the KV limit, 4x the requests give nearly 4x the tokens (decode is memory bound)...
      assert.ok(r4.throughput > 3 * r1.throughput, msg);
      assert.ok(r16.throughput > 2.5 * r4.throughput, msg);
      assert.ok(r16.e2e < 1.4 * r1.e2e, `batching barely slows a request ${msg}`);
      // ...past it (~25 requests fit), 4x the requests give little more, and requests wait.
      assert.ok(r64.throughput < 1.7 * r16.throughput, `KV-bound ${msg}`);
      assert.ok(r64.e2e > 1.8 * r16.e2e, `latency climbs as requests queue for KV ${msg}`);
    }, { sim: { speed: 5, ...MODELLED } });
  });

  test('TTFT rises with prompt length', async () => {
    await withSim('vllm', [MODEL, '--sim-gpu', 'H100'], async (s) => {
      const short = await ttft(s, promptOf(128));
      const mid = await ttft(s, promptOf(2048, 'm'));
      const long = await ttft(s, promptOf(8000, 'l'));
      const msg = JSON.stringify({ short, mid, long });
      assert.ok(mid.ttft > 2 * short.ttft, msg);
      assert.ok(long.ttft > 2.5 * mid.ttft, msg);
    }, { sim: { speed: 50, ...MODELLED } });
  });

  test('a longer decode raises end-to-end latency, not TTFT', async () => {
    await withSim('vllm', [MODEL, '--sim-gpu', 'H100'], async (s) => {
      const a = await ttft(s, promptOf(64, 'a'), 16);
      const b = await ttft(s, promptOf(64, 'b'), 256);
      const msg = JSON.stringify({ a, b });
      assert.ok(b.e2e > 5 * a.e2e, msg);
      assert.ok(b.ttft < 3 * a.ttft + 0.02, msg);
    }, { sim: { speed: 50, ...MODELLED } });
  });

  for (const [fw, on, off] of [
    ['sglang', ['--model-path', MODEL], ['--model-path', MODEL, '--disable-radix-cache']],
    ['vllm', [MODEL], [MODEL, '--no-enable-prefix-caching']],
  ] as const) {
    test(`prefix caching helps a shared-prefix workload (${fw})`, async () => {
      const system = promptOf(3000, 'sys');
      const meanTtft = async (args: readonly string[]): Promise<number> =>
        withSim(fw, [...args, '--sim-gpu', 'H100'], async (s) => {
          const t: number[] = [];
          for (let i = 0; i < 5; i++) t.push((await ttft(s, `${system} ${promptOf(20, `u${i}`)}`)).ttft);
          return t.slice(1).reduce((x, y) => x + y, 0) / (t.length - 1);
        }, { sim: { speed: 50, ...MODELLED } });
      const cached = await meanTtft(on);
      const uncached = await meanTtft(off);
      assert.ok(cached < 0.4 * uncached, JSON.stringify({ cached, uncached }));
    });
  }

  test('max_num_seqs caps the batch: the same load takes longer', async () => {
    const run = (extra: string[]): Promise<LoadResult> =>
      withSim('vllm', ['meta-llama/Llama-3.1-70B-Instruct', '--tensor-parallel-size', '4', '--sim-gpu', 'H100', ...extra], (s) => load(s, 8, 1, 64, 64), { sim: { speed: 5, ...MODELLED } });
    const capped = await run(['--max-num-seqs', '2']);
    const free = await run([]);
    assert.ok(capped.throughput < 0.5 * free.throughput, JSON.stringify({ capped, free }));
    assert.ok(capped.e2e > 1.5 * free.e2e, JSON.stringify({ capped, free }));
  });

  test('when KV runs out, requests are preempted and still finish with every token', async () => {
    await withSim('vllm', [MODEL, '--num-gpu-blocks-override', '64', '--max-model-len', '1024'], async (s) => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => postJson(s, '/v1/completions', { prompt: promptOf(100, `p${i}`), max_tokens: 200, ignore_eos: true })),
      );
      for (const r of results) assert.equal((r.json.usage as { completion_tokens: number }).completion_tokens, 200);
      assert.ok(s.engine.stats().preemptions > 0, 'some request was preempted');
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      assert.match(metrics, /^vllm:num_preemptions_total\{[^}]*\} [1-9]\d*$/m);
    }, { sim: { speed: 50, ...MODELLED } });
  });
});

describe('failures like the real servers', () => {
  for (const [fw, args] of [
    ['sglang', ['--model-path', MODEL, '--mem-fraction-static', '0.99']],
    ['vllm', [MODEL, '--gpu-memory-utilization', '0.99']],
    // TensorRT-LLM sizes the KV cache after its profiling pass, so 0.99 fails only where 1% of the free memory cannot
    // hold the CUDA graphs captured after it: a 70B FP8 checkpoint on one H100.
    ['trtllm', ['nvidia/Llama-3.1-70B-Instruct-FP8', '--kv_cache_free_gpu_memory_fraction', '0.99']],
    ['tokenspeed', [MODEL, '--gpu-memory-utilization', '0.99']],
  ] as const) {
    test(`an oversized memory fraction fails at startup like OOM (${fw})`, async () => {
      await assert.rejects(sim(fw, [...args], { sim: { gpu: 'H100' } }), (e: unknown) => {
        assert.ok(e instanceof SimStartError);
        assert.equal(e.exitCode, 1);
        assert.match(e.message, /CUDA out of memory|out-of-memory/);
        return true;
      });
    });
  }

  test('a memory fraction too small for the weights says so', async () => {
    await assert.rejects(sim('sglang', ['--model-path', 'meta-llama/Llama-3.1-70B-Instruct', '--tp-size', '2', '--mem-fraction-static', '0.5'], { sim: { gpu: 'H100' } }), /Not enough memory.*Increase --mem-fraction-static/);
    await assert.rejects(sim('vllm', ['meta-llama/Llama-3.1-70B-Instruct', '--tensor-parallel-size', '2', '--gpu-memory-utilization', '0.5'], { sim: { gpu: 'H100' } }), /No available memory for the cache blocks/);
  });

  test('vLLM refuses a max_model_len the KV cache cannot hold', async () => {
    await assert.rejects(sim('vllm', [MODEL, '--num-gpu-blocks-override', '10']), /max seq len \(131072\) is larger than the maximum number of tokens that can be stored in KV cache \(160\)/);
  });

  test('the crash flag cuts connections mid-run and stops the server', async () => {
    let crashed = '';
    const s = await sim('vllm', [MODEL, '--sim-crash-after-requests', '2'], { sim: { speed: 5 }, onCrash: (m) => (crashed = m) });
    try {
      const first = await postJson(s, '/v1/completions', { prompt: 'a', max_tokens: 2, ignore_eos: true });
      assert.equal(first.status, 200);
      const second = post(s, '/v1/completions', { prompt: 'b', max_tokens: 500, ignore_eos: true, stream: true }).then(async (r) => r.text());
      await assert.rejects(second);
      assert.match(crashed, /illegal memory access/);
      assert.equal(s.crashed, crashed);
      await assert.rejects(fetch(`${s.url}/health`));
    } finally {
      await s.close();
    }
  });

  test('the startup delay holds the server back before it listens', async () => {
    const t0 = performance.now();
    const lines: string[] = [];
    const s = await sim('sglang', ['--model-path', MODEL], { sim: { startupDelayMs: 300, warmupMs: 0 }, log: (l) => lines.push(l) });
    try {
      assert.ok(performance.now() - t0 >= 290);
      assert.ok(lines.some((l) => l.includes('The server is fired up and ready to roll!')));
      assert.ok(lines.some((l) => l.includes(`Uvicorn running on ${s.url}`)));
      assert.ok(lines[0]?.includes('SIMULATED'));
    } finally {
      await s.close();
    }
  });
});

describe('the shipped configs', () => {
  test('every candidate command of every shipped config starts on the simulator', () => {
    const dir = path.join(REPO, 'configs', 'cookbook-llm');
    let n = 0;
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      const result = checkConfigText(readFileSync(path.join(dir, name), 'utf8'));
      for (const plan of result.candidateLists) {
        for (const c of plan.candidates) {
          const t = simTargetFor(c.argv);
          assert.ok(t, `${name}: ${c.command}`);
          const values = parseFrameworkArgs(t.framework, t.args, t.invocation);
          const r = resolveSim(t.framework, values as Map<string, never>, DEFAULT_SIM_OPTIONS);
          assert.ok(r.ok, `${name} ${c.id}: ${r.ok ? '' : r.lines.join(' ')}`);
          n++;
        }
      }
    }
    assert.ok(n > 300, `checked ${n} candidates`);
  });
});
