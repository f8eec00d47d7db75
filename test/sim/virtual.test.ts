// The simulated engine on a virtual clock (what `autobench predict` runs): decode stretches applied in bulk give
// exactly what stepping one by one gives, and the virtual engine agrees with the real-time simulated server driven
// over HTTP by the project's load client.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { runBenchmark } from '../../src/client';
import type { FrameworkKey } from '../../src/core/frameworks/types';
import type { Workload, WorkloadRow } from '../../src/core/workload/types';
import { resolveSim, type ResolvedSim } from '../../src/sim/config';
import { DEFAULT_SIM_OPTIONS, type SimOptions } from '../../src/sim/options';
import { parseFrameworkArgs, startSimServer } from '../../src/sim/serve';
import { WORDS, countTokens, mix32 } from '../../src/sim/tokens';
import { simulateLoad, VirtualClock, type VirtualLoad } from '../../src/sim/virtual';

function resolved(fw: FrameworkKey, args: string[], o: Partial<SimOptions> & { invocation?: string } = {}): ResolvedSim {
  const { invocation, ...sim } = o;
  const r = resolveSim(fw, parseFrameworkArgs(fw, args, invocation) as Map<string, never>, { ...DEFAULT_SIM_OPTIONS, ...sim });
  assert.ok(r.ok, r.ok ? '' : r.lines.join('\n'));
  return r.config;
}

/** Counts the events each VirtualClock runs (to show the bulk path is taken, not only that it agrees). */
const events: number[] = [];
const originalRun = Object.getOwnPropertyDescriptor(VirtualClock.prototype, 'run')?.value as (this: VirtualClock, maxEvents?: number) => number;
VirtualClock.prototype.run = function run(this: VirtualClock, maxEvents?: number): number {
  const n = originalRun.call(this, maxEvents);
  events.push(n);
  return n;
};
after(() => {
  VirtualClock.prototype.run = originalRun;
});

function simulate(config: ResolvedSim, load: VirtualLoad): { result: ReturnType<typeof simulateLoad>; events: number } {
  const result = simulateLoad(config, load);
  return { result, events: events[events.length - 1] ?? 0 };
}

const ENGINES: Array<{ label: string; fw: FrameworkKey; args: string[]; o: Partial<SimOptions> & { invocation?: string }; todo?: string }> = [
  { label: 'vLLM Qwen3-8B on an H100', fw: 'vllm', args: ['Qwen/Qwen3-8B'], o: { gpu: 'H100' } },
  { label: 'SGLang Qwen3-8B on an H100', fw: 'sglang', args: ['--model-path', 'Qwen/Qwen3-8B'], o: { gpu: 'H100', invocation: 'launch_server' } },
  { label: 'vLLM Llama-3.1-70B, TP 4', fw: 'vllm', args: ['meta-llama/Llama-3.1-70B-Instruct', '--tensor-parallel-size', '4'], o: { gpu: 'H100' } },
  { label: 'SGLang DeepSeek-V3.2 (sparse attention), TP 8', fw: 'sglang', args: ['--model-path', 'deepseek-ai/DeepSeek-V3.2', '--tp', '8'], o: { gpu: 'H200', invocation: 'launch_server' } },
  {
    label: 'SGLang Qwen3-8B, DP 2 x TP 2',
    fw: 'sglang',
    args: ['--model-path', 'Qwen/Qwen3-8B', '--dp-size', '2', '--tp', '2'],
    o: { gpu: 'H100', invocation: 'launch_server' },
    // Capped loads on several replicas step one by one (a finish on one replica releases a request to another).
  },
  { label: 'TensorRT-LLM Qwen3-8B with step jitter (--sim-noise 0.05)', fw: 'tensorrt_llm', args: ['Qwen/Qwen3-8B'], o: { gpu: 'H100', noise: 0.05, seed: 7 } },
];

const SHAPE = { inputLen: 1024, outputLen: 128, requests: 48, warmup: 3, seed: 1 };

describe('simulateLoad: bulk decode stretches equal stepping one by one', () => {
  for (const e of ENGINES) {
    test(e.label, e.todo ? { todo: e.todo } : {}, () => {
      const config = resolved(e.fw, e.args, e.o);
      if (e.label.includes('sparse')) assert.ok(config.engine.cost.sparseTopK > 0, 'the model has sparse attention');
      // Capacity, roughly: what the engine completes when every request arrives at once.
      const saturated = simulateLoad(config, { ...SHAPE, rate: Infinity, concurrency: null }).requestThroughput;
      assert.ok(saturated > 0);
      let fewer = 0;
      for (const rate of [saturated * 0.3, saturated * 3, Infinity]) {
        for (const concurrency of [null, 4]) {
          const load = { ...SHAPE, rate, concurrency };
          const bulk = simulate(config, load);
          const stepped = simulate(config, { ...load, bulk: false });
          assert.deepStrictEqual(bulk.result, stepped.result, `rate ${rate}, concurrency ${concurrency ?? 'none'}`);
          assert.equal(bulk.result.completed, SHAPE.requests);
          assert.ok(bulk.events <= stepped.events);
          if (bulk.events < stepped.events) fewer++;
        }
      }
      assert.ok(fewer >= 3, `the bulk path ran fewer events in most loads (${fewer} of 6)`);
    });
  }
});

/** A prompt of exactly `len` simulator tokens, unique per `salt` from its first token (no prefix cache hits). */
function prompt(len: number, salt: number): string {
  let s = '';
  for (let i = 0; i < len; i++) s += WORDS[mix32(salt, i) % WORDS.length] ?? ' a';
  return s;
}

// The real-time server runs SPEED times faster than the modelled GPU; the client's wall-clock latencies times SPEED
// are modelled milliseconds. A modest speed keeps every modelled step well above the timer resolution.
const SPEED = 10;
const INPUT = 8192;
const OUTPUT = 32;
/** Modelled req/s: about a quarter of what one request at a time can sustain, so requests rarely overlap. */
const RATE = 0.5;
const REQUESTS = 64;
/** Relative agreement of the medians: the same model; arrival draws differ (client vs virtual) and overlaps are rare. */
const REL = 0.15;
/**
 * TTFT in real time also holds wall-clock work the model does not price, only ever making it later: the prefill
 * step's timer (whole milliseconds, fired late on a busy machine), the HTTP request's parse and the prompt's
 * tokenization in the server, the SSE write and the client's read. A few ms of wall time together on a busy
 * 2-core machine; allowed up to this much (times SPEED in modelled ms). TPOT is a difference of two token times,
 * so this cancels there.
 */
const TTFT_WALL_ALLOWANCE_MS = 10;

describe('the virtual engine agrees with the real-time simulated server', () => {
  test(`vLLM Qwen3-8B on an H100: ${REQUESTS} requests of ${INPUT} -> ${OUTPUT} tokens at ${RATE} req/s (speed ${SPEED})`, async (t) => {
    const server = await startSimServer({ framework: 'vllm', args: ['Qwen/Qwen3-8B'], host: '127.0.0.1', port: 0, sim: { gpu: 'H100', speed: SPEED, logIntervalMs: 0 } });
    let measured;
    try {
      const rows: WorkloadRow[] = Array.from({ length: REQUESTS }, (_, i) => ({ prompt: prompt(INPUT, i + 1), promptLen: INPUT, outputLen: OUTPUT, scenario: 'long' }));
      assert.equal(countTokens(prompt(INPUT, 1)), INPUT, 'a prompt is exactly INPUT simulator tokens');
      const workload: Workload = { name: 'virtual-agreement', rows, notes: [], promptLenCheck: 'exact', timed: false };
      const warmupRow: WorkloadRow = { prompt: prompt(64, 999_999), promptLen: 64, outputLen: 8, scenario: 'warmup' };
      measured = await runBenchmark(workload, { backend: 'openai', baseUrl: server.url, model: server.model, requestRate: RATE * SPEED, seed: 1, ignoreEos: true, warmupRequests: 1, warmupRow, readyCheckTimeoutS: 10 });
    } finally {
      await server.close();
    }
    const m = measured.metrics;
    assert.equal(m.completed, REQUESTS);
    assert.equal(m.totalOutputTokens, REQUESTS * OUTPUT, 'ignore_eos: every request generated all its tokens');
    const virtual = simulateLoad(server.config, { inputLen: INPUT, outputLen: OUTPUT, rate: RATE, concurrency: null, requests: REQUESTS, warmup: 0, seed: 1 });
    assert.equal(virtual.completed, REQUESTS);
    const ttft = (m.ttft.median ?? NaN) * SPEED;
    const tpot = (m.tpot.median ?? NaN) * SPEED;
    const v = { ttft: virtual.ttftMs.p50, tpot: virtual.tpotMs.p50 };
    const said = `real time: p50 TTFT ${ttft.toFixed(1)} ms, p50 TPOT ${tpot.toFixed(2)} ms; virtual: ${v.ttft.toFixed(1)} ms, ${v.tpot.toFixed(2)} ms (modelled)`;
    t.diagnostic(said);
    assert.ok(Math.abs(tpot / v.tpot - 1) <= REL, `TPOT within ${REL * 100}%: ${said}`);
    assert.ok(ttft >= v.ttft * (1 - REL), `TTFT not below the model: ${said}`);
    assert.ok(ttft <= v.ttft * (1 + REL) + TTFT_WALL_ALLOWANCE_MS * SPEED, `TTFT within ${REL * 100}% + ${TTFT_WALL_ALLOWANCE_MS} wall ms: ${said}`);
  });
});
