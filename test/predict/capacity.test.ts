// The capacity search: the capacity is a simulated rate that meets the SLA, and a failing rate lies just above it
// (within CAPACITY_PRECISION); the curve is every rate simulated; nothing passing gives capacity 0.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CAPACITY_PRECISION, predictCapacity } from '../../src/predict/capacity';
import { predictPoint } from '../../src/predict/point';
import { engineFor, predictOptions } from '../../src/predict/engine';
import type { Candidate } from '../../src/core/candidates/candidate';
import type { FrameworkKey } from '../../src/core/frameworks/types';
import type { ResolvedSim } from '../../src/sim/config';
import type { SlaReading } from '../../src/core/sla/limits';

/** Just enough of a Candidate for engineFor: the argv the plan would launch. */
function candidate(framework: FrameworkKey, argv: string[]): Candidate {
  return { framework, index: 0, id: 'baseline', name: 'baseline', flags: new Map(), overrides: new Map(), argv, command: argv.join(' '), usedKeys: [] };
}

function engine(framework: FrameworkKey, argv: string[], gpu = 'H100'): ResolvedSim {
  const e = engineFor(framework, candidate(framework, argv), predictOptions(gpu));
  assert.ok(e.ok, e.ok ? '' : e.reason);
  return e.config;
}

const SLA: SlaReading = { limits: { max_p50_ttft_ms: 300, max_p50_tpot_ms: 12, min_success_rate: 0.99 }, deprecated: [] };
const CHAT = { name: 'chat', inputLen: 512, outputLen: 128 };
const LONG = { name: 'summarization', inputLen: 3072, outputLen: 128 };
/** Two tidied (4 significant digit) rates may be off the bracket's ratio by a rounding step each. */
const ROUNDING = 1.001;

const ENGINES: Array<{ label: string; fw: FrameworkKey; argv: string[] }> = [
  { label: 'vLLM Qwen3-8B', fw: 'vllm', argv: ['vllm', 'serve', 'Qwen/Qwen3-8B', '--max-model-len', '4096'] },
  { label: 'SGLang Qwen3-8B, 64 running', fw: 'sglang', argv: ['python', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--max-running-requests', '64'] },
];

describe('predictCapacity', () => {
  for (const e of ENGINES) {
    for (const sc of [CHAT, LONG]) {
      for (const concurrency of [null, 8]) {
        test(`${e.label}, ${sc.name}, concurrency ${concurrency ?? 'none'}: passes at the capacity and fails just above it`, () => {
          const config = engine(e.fw, e.argv);
          const p = predictCapacity(config, { scenario: sc, concurrency, sla: SLA });
          assert.ok(p.capacity > 0, 'a small model on an H100 holds some load under this SLA');
          assert.equal(p.scenario, sc.name);
          assert.equal(p.concurrency, concurrency);
          // The curve: every simulated rate once, ascending; the point at capacity is on it and passed.
          const rates = p.curve.map((x) => x.rate);
          assert.deepEqual(rates, [...rates].sort((a, b) => a - b));
          assert.equal(new Set(rates).size, rates.length);
          assert.ok(p.atCapacity, 'the point at capacity is kept');
          assert.equal(p.atCapacity.rate, p.capacity);
          assert.equal(p.atCapacity.passed, true);
          assert.deepEqual(p.atCapacity.reasons, []);
          // The bracket: the lowest failing rate above the capacity is within the search's precision.
          const above = p.curve.filter((x) => x.rate > p.capacity && !x.passed);
          assert.ok(above.length > 0, `a failing rate above ${p.capacity} req/s was simulated`);
          const fail = above[0] as (typeof above)[number];
          assert.ok(fail.rate / p.capacity <= CAPACITY_PRECISION * ROUNDING, `failing ${fail.rate} vs capacity ${p.capacity}: ratio ${fail.rate / p.capacity}`);
          assert.ok(fail.reasons.length > 0, 'a failing point says why');
          // The same points simulated again give the same verdicts (the search is deterministic).
          assert.equal(predictPoint(config, { scenario: sc, rate: p.capacity, concurrency }, SLA).passed, true);
          assert.equal(predictPoint(config, { scenario: sc, rate: fail.rate, concurrency }, SLA).passed, false);
        });
      }
    }
  }

  test('a hint far from the capacity finds the same bracket', () => {
    const config = engine('vllm', ENGINES[0]?.argv ?? []);
    const free = predictCapacity(config, { scenario: CHAT, concurrency: null, sla: SLA });
    for (const hint of [0.05, 500]) {
      const hinted = predictCapacity(config, { scenario: CHAT, concurrency: null, sla: SLA, hint });
      assert.ok(Math.abs(hinted.capacity / free.capacity - 1) <= CAPACITY_PRECISION - 1 + 0.002, `hint ${hint}: ${hinted.capacity} vs ${free.capacity}`);
    }
  });

  test('an SLA nothing meets gives capacity 0 and no point at capacity', () => {
    const config = engine('vllm', ENGINES[0]?.argv ?? []);
    const p = predictCapacity(config, { scenario: LONG, concurrency: null, sla: { limits: { max_p50_ttft_ms: 1 }, deprecated: [] } });
    assert.equal(p.capacity, 0);
    assert.equal(p.atCapacity, undefined);
    assert.ok(p.curve.length > 0 && p.curve.every((x) => !x.passed));
    assert.ok(p.curve.every((x) => x.reasons.some((r) => /TTFT/.test(r))), 'each point says the TTFT target was missed');
  });
});
