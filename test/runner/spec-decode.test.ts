// Speculative decoding measured per trial on the simulated engine: the server's own draft counters (vLLM's
// spec_decode_* counters, SGLang's verify calls) read around each trial give the row's spec_decode block and its
// accept length; the built-in text is accepted more often than random token ids, and a server without speculation has none.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { writeFileSync } from 'node:fs';
import { cleanup, planYaml, runOnSim, tempDir } from '../support/runner';

const VLLM = `base_server_flags:\n  model: Qwen/Qwen3-8B\n  max_model_len: 4096\nsearch_space:\n  speculative_config: ['{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}']`;
const SGLANG = 'base_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\n  enable_metrics: true\nsearch_space:\n  speculative_algorithm: [EAGLE3]\n  speculative_num_steps: [3]';

interface Spec {
  basis: string;
  drafts: number;
  draft_tokens: number | null;
  accepted_tokens: number;
  mean_accept_length: number;
  draft_acceptance_rate: number | null;
}

async function rowsFor(kind: string, dir: string): Promise<Array<Record<string, unknown>>> {
  const plan = planYaml({ frameworks: { vllm: VLLM, sglang: SGLANG }, benchmark: 'request_rates: [2]', dataset: `kind: ${kind}\nnum_prompts: 24\nscenario_names: [chat]\ninput_len: [512]\noutput_len: [64]` });
  const run = await runOnSim(plan, { outDir: path.join(dir, kind), skipSmoke: true, strategy: 'grid', repeats: 0 });
  assert.equal(run.result.status, 'completed', run.result.reason);
  return run.result.rows as unknown as Array<Record<string, unknown>>;
}

describe('speculative decoding measured per trial (simulated)', () => {
  test("each speculative candidate's rows carry the server's acceptance over the trial; the built-in text beats random ids; a plain server has none", { timeout: 240_000 }, async () => {
    const dir = tempDir();
    try {
      const text = await rowsFor('builtin-text', dir);
      const ids = await rowsFor('random-ids', dir);
      const specOf = (rows: Array<Record<string, unknown>>, fw: string, cand: string): Spec => {
        const r = rows.find((x) => x.framework === fw && x.candidate_id === cand && x.status === 'ok');
        assert.ok(r, `${fw} ${cand}: no ok row`);
        const s = r.spec_decode as Spec | undefined;
        assert.ok(s, `${fw} ${cand}: no spec_decode`);
        assert.equal((r.metrics as { accept_length: number }).accept_length, s.mean_accept_length);
        return s;
      };
      for (const fw of ['vllm', 'sglang']) {
        for (const r of [...text, ...ids].filter((x) => x.framework === fw && x.candidate_id === 'baseline')) assert.equal(r.spec_decode, undefined, `${fw} baseline has no speculation`);
        const t = specOf(text, fw, 'c1');
        const i = specOf(ids, fw, 'c1');
        assert.equal(t.basis, 'server_counters');
        assert.ok(t.drafts > 0 && t.mean_accept_length > 1 && t.mean_accept_length <= 4, `${fw}: ${JSON.stringify(t)}`);
        assert.ok(t.mean_accept_length > i.mean_accept_length + 0.5, `${fw}: text ${t.mean_accept_length} vs random ids ${i.mean_accept_length}`);
        // At 2 req/s the batch is small and memory-bound: verifying 3 more tokens costs little, so tokens come faster.
        const tpot = (rows: Array<Record<string, unknown>>, cand: string): number => (rows.find((x) => x.framework === fw && x.candidate_id === cand)?.metrics as { p50_tpot_ms: number }).p50_tpot_ms;
        assert.ok(tpot(text, 'c1') < 0.8 * tpot(text, 'baseline'), `${fw}: TPOT with speculation ${tpot(text, 'c1')} ms vs ${tpot(text, 'baseline')} ms without`);
        if (fw === 'vllm') assert.ok(t.draft_tokens === 3 * t.drafts && (t.draft_acceptance_rate ?? 0) > 0, JSON.stringify(t));
        else assert.equal(t.draft_tokens, null, 'SGLang counts no drafted tokens');
      }
    } finally {
      cleanup(dir);
    }
  });

  test("TensorRT-LLM's iteration stats, polled through the trial (each /metrics call drains them), give the same block", { timeout: 180_000 }, async () => {
    const dir = tempDir();
    try {
      const options = path.join(dir, 'spec.yaml');
      writeFileSync(options, 'speculative_config:\n  decoding_type: Eagle\n  max_draft_len: 3\n  speculative_model_dir: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\n');
      const trt = `backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096\n  extra_llm_api_options: ${options}`;
      const plan = planYaml({ frameworks: { tensorrt_llm: trt }, benchmark: 'request_rates: [2]', dataset: 'num_prompts: 24\nscenario_names: [chat]\ninput_len: [512]\noutput_len: [64]' });
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid', repeats: 0 });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const rows = (run.result.rows as unknown as Array<Record<string, unknown>>).filter((r) => r.status === 'ok');
      assert.ok(rows.length > 0);
      for (const r of rows) {
        const s = r.spec_decode as Spec | undefined;
        assert.ok(s && s.drafts > 0 && s.draft_tokens === 3 * s.drafts && s.mean_accept_length > 1 && s.mean_accept_length <= 4, JSON.stringify(s));
        // Every generated token after each request's first came from a verify step: the drafts account for all of them.
        const out = (r.metrics as { total_output_tokens: number; completed: number }).total_output_tokens - (r.metrics as { completed: number }).completed;
        assert.ok(Math.abs(s.drafts + s.accepted_tokens - out) <= 0.1 * out + 8, `${JSON.stringify(s)} vs ${out} decoded tokens`);
      }
    } finally {
      cleanup(dir);
    }
  });
});
