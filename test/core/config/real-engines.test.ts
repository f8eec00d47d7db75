// Issue 25 (real engines as they are), the config side: TokenSpeed's model as --model (audit #11); request body keys TensorRT-LLM refuses (audit #15).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkConfigText } from '../../../src/core/config/check';
import { mutate } from '../../support/fixtures';
import { planYaml } from '../../support/runner';

const TOKENSPEED_ON = mutate('  tokenspeed:\n    enabled: false', '  tokenspeed:\n    enabled: true');

describe('audit #11: TokenSpeed takes the model as --model', () => {
  test('the rendered command names the model with --model, never positionally', () => {
    const r = checkConfigText(TOKENSPEED_ON);
    const ts = r.candidateLists.find((c) => c.framework === 'tokenspeed');
    assert.ok(ts, 'tokenspeed candidates');
    assert.equal(ts.candidates[0]?.command, 'tokenspeed serve --model Qwen/Qwen3-32B --tensor-parallel-size 4 --max-model-len 12288');
    assert.deepEqual(ts.candidates[0]?.argv.slice(0, 4), ['tokenspeed', 'serve', '--model', 'Qwen/Qwen3-32B']);
  });

  test('a model the flags name themselves is not given twice', () => {
    const r = checkConfigText(mutate('      tensor_parallel_size: 4\n      max_model_len: 12288\n    search_space: {}', '      model_path: Qwen/Qwen3-32B\n      tensor_parallel_size: 4\n      max_model_len: 12288\n    search_space: {}', TOKENSPEED_ON));
    const cmd = r.candidateLists.find((c) => c.framework === 'tokenspeed')?.candidates[0]?.command ?? '';
    assert.equal(cmd, 'tokenspeed serve --model-path Qwen/Qwen3-32B --tensor-parallel-size 4 --max-model-len 12288');
  });

  test('vLLM keeps its positional model', () => {
    const r = checkConfigText(TOKENSPEED_ON);
    assert.match(r.candidateLists.find((c) => c.framework === 'vllm')?.candidates[0]?.command ?? '', /^vllm serve Qwen\/Qwen3-32B /);
  });
});

describe('audit #15: extra_request_body keys outside TensorRT-LLM\'s request schema', () => {
  const TRT = 'enabled: true\nserver_command: trtllm-serve serve\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 1024';
  const body = (endpoint: string) => `request_rates: [inf]\nendpoint: ${endpoint}\nextra_request_body:\n  top_k: 20\n  no_stop_trim: true\n  ignore_eos: true`;

  test('a key trtllm-serve refuses is warned on its own line, with a fix that removes it', () => {
    const text = planYaml({ frameworks: { tensorrt_llm: TRT }, benchmark: body('/v1/completions') });
    const found = checkConfigText(text).findings.filter((f) => f.code === 'request-field-refused');
    assert.equal(found.length, 1, JSON.stringify(found.map((f) => f.message)));
    const f = found[0]!;
    assert.equal(f.severity, 'warning');
    assert.match(f.message, /tensorrt_llm: extra_request_body key 'no_stop_trim' is not a field of TensorRT-LLM's \/v1\/completions request .*400/);
    assert.equal(text.slice(0, f.range[0]).split('\n').length, text.split('\n').findIndex((l) => l.includes('no_stop_trim')) + 1, 'the finding is on the key\'s line');
    const edit = f.fixes?.[0]?.edits[0];
    assert.ok(edit, 'a fix');
    const fixed = text.slice(0, edit.range[0]) + edit.newText + text.slice(edit.range[1]);
    assert.ok(!fixed.includes('no_stop_trim') && fixed.includes('top_k: 20'));
  });

  test('chat: max_tokens (alias of max_completion_tokens) and chat-only fields are accepted; a completions-only field is not', () => {
    const text = planYaml({ frameworks: { tensorrt_llm: TRT }, benchmark: 'request_rates: [inf]\nendpoint: /v1/chat/completions\nextra_request_body:\n  max_tokens: 10\n  chat_template_kwargs: {enable_thinking: false}\n  return_context_logits: true' });
    const keys = checkConfigText(text).findings.filter((f) => f.code === 'request-field-refused').map((f) => f.path[2]);
    assert.deepEqual(keys, ['return_context_logits']);
  });

  test('frameworks that accept unknown fields get no warning', () => {
    const text = planYaml({ frameworks: { vllm: 'enabled: true\nserver_command: vllm serve' }, benchmark: body('/v1/completions') });
    assert.equal(checkConfigText(text).findings.filter((f) => f.code === 'request-field-refused').length, 0);
  });
});
