// The simulator's speculative decoding (src/sim/spec.ts, fw/spec-flags.ts): each engine's flags read into a method and
// a draft count; acceptance from the text's predictability (repetition in the prompt); the seeded draws' mean matches
// the expected acceptance length; and the engine's counters served under each engine's names.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptanceOf, acceptedIn, expectedLength, predictability } from '../../src/sim/spec';
import { sglangSpec, trtllmSpec, vllmSpec } from '../../src/sim/fw/spec-flags';
import { countersIn, specBlock } from '../../src/runner/spec-metrics';

describe('speculative decoding on the simulator', () => {
  test('each engine names its method and draft count its own way', () => {
    assert.deepEqual(vllmSpec('{"method": "eagle3", "model": "x", "num_speculative_tokens": 4}'), { method: 'eagle3', k: 4 });
    assert.deepEqual(vllmSpec('{"model": "meta-llama/Llama-3.2-1B", "num_speculative_tokens": 5}'), { method: 'draft_model', k: 5 });
    assert.deepEqual(vllmSpec('{"method": "ngram", "prompt_lookup_max": 4}'), { method: 'ngram', k: 3 });
    const bad = vllmSpec('{method: eagle');
    assert.ok(typeof bad === 'string' && bad.startsWith('argument --speculative-config: invalid loads value'), JSON.stringify(bad));
    assert.deepEqual(sglangSpec('EAGLE3', 2), { method: 'eagle3', k: 2 });
    assert.deepEqual(sglangSpec('NEXTN', undefined), { method: 'mtp', k: 3 });
    assert.equal(sglangSpec(undefined, 3), undefined);
    assert.deepEqual(trtllmSpec({ decoding_type: 'MTP', num_nextn_predict_layers: 1 }), { method: 'mtp', k: 1 });
    assert.deepEqual(trtllmSpec({ decoding_type: 'Eagle', max_draft_len: 3 }), { method: 'eagle', k: 3 });
  });

  test('repetitive text is predictable, random ids are not; acceptance follows, per method', () => {
    const ids = Array.from({ length: 600 }, (_, i) => (i * 2654435761) % 151_000);
    const prose = Array.from({ length: 600 }, (_, i) => [11, 279, 315, 264, 323, 311, 374, 304][i % 8] ?? 0).map((x, i) => (i % 3 === 0 ? 1000 + i : x));
    assert.ok(predictability(ids) < 0.02, String(predictability(ids)));
    assert.ok(predictability(prose) > 0.9, String(predictability(prose)));
    const eagle3 = { method: 'eagle3' as const, k: 3 };
    const ngram = { method: 'ngram' as const, k: 3 };
    assert.ok(acceptanceOf(eagle3, 1) > acceptanceOf(eagle3, 0) + 0.4);
    // n-gram drafting needs repeated text: on random ids it accepts almost nothing.
    assert.ok(acceptanceOf(ngram, 0) < 0.05 && acceptanceOf(ngram, 1) > 0.6);
    // On natural text EAGLE-3 at k=3 gives about 3 tokens per step (the write-ups' range for chat text is 2.6-3.3).
    assert.ok(expectedLength(3, acceptanceOf(eagle3, 1)) > 2.6 && expectedLength(3, acceptanceOf(eagle3, 1)) < 3.4);
  });

  test('the seeded draws accept runs whose mean is the expected length', () => {
    for (const alpha of [0.3, 0.6, 0.85]) {
      let sum = 0;
      const n = 20_000;
      for (let i = 0; i < n; i++) sum += 1 + acceptedIn(3, alpha, i * 7919, i % 50);
      assert.ok(Math.abs(sum / n - expectedLength(3, alpha)) < 0.03, `alpha ${alpha}: ${sum / n} vs ${expectedLength(3, alpha)}`);
    }
  });

  test("the runner's reading of each engine's counters: vLLM's three, SGLang's verify calls with finished tokens", () => {
    const v = (d: number, t: number, a: number): string => `vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} ${d}\nvllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.7e9\nvllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} ${t}\nvllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} ${a}\n`;
    const b = specBlock('vllm', countersIn('vllm', v(10, 30, 12)) as never, countersIn('vllm', v(110, 330, 162)) as never);
    assert.deepEqual([b?.drafts, b?.draft_tokens, b?.accepted_tokens, b?.mean_accept_length, b?.draft_acceptance_rate], [100, 300, 150, 2.5, 0.5]);
    const s = (verify: number, tokens: number, requests: number): string => `sglang:spec_verify_calls_total{model_name="m"} ${verify}\nsglang:generation_tokens_total{model_name="m"} ${tokens}\nsglang:num_requests_total{model_name="m"} ${requests}\n`;
    // 10 requests of 65 tokens: the first token each from prefill, 640 from 256 verify steps: 2.5 tokens a step.
    const g = specBlock('sglang', countersIn('sglang', s(0, 0, 0)) as never, countersIn('sglang', s(256, 650, 10)) as never);
    assert.deepEqual([g?.drafts, g?.draft_tokens, g?.accepted_tokens, g?.mean_accept_length, g?.draft_acceptance_rate], [256, null, 384, 2.5, null]);
    assert.equal(countersIn('vllm', 'vllm:num_requests_running 1\n'), undefined, 'no speculation, no counters');
  });
});
