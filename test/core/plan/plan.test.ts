import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
// The run plan read once from a config: frameworks and their candidates, tiers, skips, problems, the trial plan.
import { checkConfigText } from '../../../src/core/config/check';
import { readRunPlan, type ReadPlanOptions } from '../../../src/core/plan/build';
import { assertRunnable, PlanError } from '../../../src/core/plan/types';
import { planYaml, REPO } from '../../support/runner';

const DEMO = path.join(REPO, 'configs/examples/demo.plan.yaml');
const demoText = readFileSync(DEMO, 'utf8');

function plan(text: string, o: ReadPlanOptions = {}) {
  const p = readRunPlan({ text, path: path.join(REPO, 'configs/examples/x.plan.yaml') }, o);
  assertRunnable(p);
  return p;
}

describe('run plan', () => {
  test('the demo plan: sglang and vllm run, TensorRT-LLM trt backend is skipped as unsupported, TokenSpeed is user-excluded', () => {
    const p = readRunPlan({ text: demoText, path: DEMO });
    assert.deepEqual(p.problems, []);
    const by = Object.fromEntries(p.frameworks.map((f) => [f.framework, f]));
    assert.equal(by.sglang?.status, 'run');
    assert.equal(by.vllm?.status, 'run');
    assert.equal(by.sglang?.candidates.length, 3);
    assert.equal(by.tensorrt_llm?.status, 'skipped');
    assert.match(by.tensorrt_llm?.reason ?? '', /^unsupported: .*PyTorch backend only/);
    assert.equal(by.tokenspeed?.status, 'user_excluded');
    assert.deepEqual(p.scenarios.map((s) => s.name), ['chat', 'summarization']);
    assert.ok(p.bench.search, 'the demo searches the rate');
    assert.equal(p.bench.fixed.length, 0);
  });

  test('commands are the strings validate prints (what the code lens shows)', () => {
    const check = checkConfigText(demoText, { kind: 'auto' });
    const p = plan(demoText);
    for (const f of p.frameworks.filter((x) => x.status === 'run')) {
      const lens = check.candidateLists.find((x) => x.framework === f.framework)?.candidates.map((c) => c.command);
      assert.deepEqual(f.candidates.map((c) => c.command), lens);
    }
  });

  test('tiers: 1 runs the baseline only, 3 every combination of the search space', () => {
    const text = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [8, 16, 32]\n  max_num_batched_tokens: [1024, 2048]' }, search: 'max_candidates_per_framework: 2' });
    const cands = (tier: 1 | 2 | 3) => plan(text, { tier }).frameworks.find((f) => f.framework === 'vllm')?.candidates.map((c) => c.id);
    assert.deepEqual(cands(1), ['baseline']);
    assert.deepEqual(cands(2), ['baseline', 'c1']);
    assert.equal(cands(3)?.length, 7);
  });

  test('--frameworks leaves the other enabled frameworks user-excluded', () => {
    const p = plan(demoText, { frameworks: ['vllm'] });
    assert.equal(p.frameworks.find((f) => f.framework === 'sglang')?.status, 'user_excluded');
    assert.match(p.frameworks.find((f) => f.framework === 'sglang')?.reason ?? '', /--frameworks/);
    assert.equal(p.frameworks.find((f) => f.framework === 'vllm')?.status, 'run');
  });

  test('a candidate using an unknown flag is skipped with the reason; the others still run', () => {
    const text = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  made_up_flag: [1]' } });
    const vllm = plan(text).frameworks.find((f) => f.framework === 'vllm');
    assert.equal(vllm?.status, 'run');
    assert.equal(vllm?.candidates[0]?.skip, undefined);
    assert.equal(vllm?.candidates[1]?.skip?.kind, 'unknown-flag');
    assert.match(vllm?.candidates[1]?.skip?.reason ?? '', /unknown flag 'made_up_flag' \(not in the built-in flag table\); never passed to the server/);
  });

  test('errors outside one framework stop the plan with every problem listed', () => {
    const text = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 100' }, sla: 'max_p99_ttft_ms: 10' });
    assert.throws(
      () => plan(text),
      (e: unknown) => e instanceof PlanError && e.problems.some((p) => /deprecated/.test(p)),
    );
    // A framework's own error (sequence limit too small) only skips that framework.
    const ok = plan(planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 100', sglang: 'base_server_flags:\n  model_path: Qwen/Qwen3-8B' } }));
    assert.equal(ok.frameworks.find((f) => f.framework === 'vllm')?.status, 'skipped');
    assert.match(ok.frameworks.find((f) => f.framework === 'vllm')?.reason ?? '', /max_model_len \(100\) is smaller/);
    assert.equal(ok.frameworks.find((f) => f.framework === 'sglang')?.status, 'run');
  });

  test('trial plan: fixed rates x concurrencies, the qps search, or one burst when neither is given', () => {
    const fixed = plan(planYaml({ frameworks: {}, benchmark: 'request_rates: [1, inf]\nmax_concurrency: [null, 8]' })).bench;
    assert.deepEqual(fixed.fixed, [
      { rate: 1, concurrency: null },
      { rate: 'inf', concurrency: null },
      { rate: 1, concurrency: 8 },
      { rate: 'inf', concurrency: 8 },
    ]);
    assert.equal(fixed.search, undefined);
    const searched = plan(planYaml({ frameworks: {}, benchmark: 'request_rates: null\nqps: {lower: 1, upper: 12}' })).bench;
    assert.deepEqual(searched.fixed, []);
    assert.deepEqual(searched.search, { lower: 1, upper: 12, tolerance: 0.1, relTolerance: 0.02, maxRounds: 10, concurrencies: [null] });
    const neither = plan(planYaml({ frameworks: {}, benchmark: 'endpoint: /v1/completions' })).bench;
    assert.deepEqual(neither.fixed, [{ rate: 'inf', concurrency: null }]);
  });
});
