// cursorContext in-process: enclosing keys, key/value/item position, the partial word it replaces and sibling keys, read from text that may not parse.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseYaml } from '../../src/core/config/yaml-doc';
import { cursorContext } from '../../src/core/editor/cursor';
import { VALID } from '../support/fixtures';
import { offsetAfter, readRepoFile, replaceOnce } from '../support/text-at';

const QWEN = readRepoFile('configs', 'cookbook-llm', 'qwen3-235b-a22b.yaml');
const VLLM_BASE = ['frameworks', 'vllm', 'base_server_flags'];

describe('cursorContext on the shipped qwen3-235b-a22b config', () => {
  test('an empty line inside vLLM base_server_flags: a key, with every other flag of that block as a sibling', () => {
    const text = replaceOnce(QWEN, '      dtype: auto\n      enable_chunked_prefill: true\n', '      dtype: auto\n      \n      enable_chunked_prefill: true\n');
    const at = offsetAfter(text, '      dtype: auto\n      ', '  vllm:\n');
    assert.deepEqual(cursorContext(text, at), {
      parents: VLLM_BASE,
      where: 'key',
      prefix: '',
      replace: [at, at],
      indent: 6,
      // Upwards first (nearest first), then downwards; the block ends at `search_space:`.
      siblings: ['dtype', 'max_model_len', 'gpu_memory_utilization', 'tensor_parallel_size', 'enable_chunked_prefill', 'kv_cache_dtype'],
    });
  });

  test('inside a key being typed: the word before the cursor is the prefix, and the key itself is not a sibling', () => {
    const at = offsetAfter(QWEN, '      max_num', '  vllm:\n');
    assert.equal(QWEN.slice(at - 7, at + 6), 'max_num_seqs:');
    assert.deepEqual(cursorContext(QWEN, at), {
      parents: ['frameworks', 'vllm', 'search_space'],
      where: 'key',
      prefix: 'max_num',
      replace: [at - 7, at],
      indent: 6,
      // List items (`- 32`) at the same indent are not keys.
      siblings: ['max_num_batched_tokens', 'max_num_partial_prefills', 'max_long_partial_prefills', 'long_prefill_token_threshold', 'enable_prefix_caching'],
    });
  });

  test('after `key: `: the value of that key, the partial value is the prefix', () => {
    const at = offsetAfter(QWEN, '      kv_cache_dtype: au', '  vllm:\n');
    assert.deepEqual(cursorContext(QWEN, at), {
      parents: VLLM_BASE,
      where: 'value',
      key: 'kv_cache_dtype',
      prefix: 'au',
      replace: [at - 2, at],
      indent: 6,
      siblings: [],
    });
  });

  test('a value with slashes, dots and dashes is one word', () => {
    const at = offsetAfter(QWEN, '  tokenizer: Qwen/Qwen3-235B-A22B', 'model:\n');
    const ctx = cursorContext(QWEN, at);
    assert.equal(ctx.where, 'value');
    assert.equal(ctx.key, 'tokenizer');
    assert.deepEqual(ctx.parents, ['model']);
    assert.equal(ctx.prefix, 'Qwen/Qwen3-235B-A22B');
    assert.deepEqual(ctx.replace, [at - 'Qwen/Qwen3-235B-A22B'.length, at]);
  });

  test('a `- ` item at the key\'s own indent belongs to the key line above it', () => {
    const at = offsetAfter(QWEN, '  - 80', '  input_len:\n');
    assert.deepEqual(cursorContext(QWEN, at), {
      parents: ['dataset'],
      where: 'item',
      key: 'input_len',
      prefix: '80',
      replace: [at - 2, at],
      indent: 2,
      siblings: [],
    });
  });

  test('an indented `- ` item in a search space belongs to its flag', () => {
    const at = offsetAfter(QWEN, '      - fl', '      decode_attention_backend:\n');
    const ctx = cursorContext(QWEN, at);
    assert.deepEqual([ctx.where, ctx.key, ctx.parents, ctx.prefix], ['item', 'decode_attention_backend', ['frameworks', 'sglang', 'search_space'], 'fl']);
  });

  test('the end of the file: a top-level key, every top-level key a sibling (last first)', () => {
    const ctx = cursorContext(QWEN, QWEN.length);
    assert.deepEqual(ctx, {
      parents: [],
      where: 'key',
      prefix: '',
      replace: [QWEN.length, QWEN.length],
      indent: 0,
      siblings: ['frameworks', 'search', 'benchmark', 'dataset', 'hardware', 'model', 'source', 'schema_version'],
    });
  });
});

describe('cursorContext on text that does not parse', () => {
  test('a half-typed flag (a syntax error) still sits in its block', () => {
    const text = replaceOnce(VALID, '      max_model_len: 12288\n    search_space:\n      max_num_seqs', '      max_model_len: 12288\n      max_num_se\n    search_space:\n      max_num_seqs');
    assert.equal(parseYaml(text).problems[0]?.message, 'Implicit map keys need to be followed by map values');
    const at = offsetAfter(text, '      max_num_se\n') - 1;
    assert.deepEqual(cursorContext(text, at), {
      parents: VLLM_BASE,
      where: 'key',
      prefix: 'max_num_se',
      replace: [at - 10, at],
      indent: 6,
      siblings: ['max_model_len', 'gpu_memory_utilization', 'tensor_parallel_size'],
    });
  });

  test('an unclosed flow list: the cursor is an item of its key', () => {
    const text = replaceOnce(VALID, '  input_len: [1000, 8000]', '  input_len: [1000, 8');
    assert.ok(parseYaml(text).problems.length > 0);
    const at = offsetAfter(text, '  input_len: [1000, 8');
    assert.deepEqual(cursorContext(text, at), {
      parents: ['dataset'],
      where: 'item',
      key: 'input_len',
      prefix: '8',
      replace: [at - 1, at],
      indent: 2,
      siblings: [],
    });
  });

  test('quoted parent keys are unquoted; comment lines and trailing comments do not break the chain', () => {
    const text = [
      'frameworks:',
      '  # the engines under test',
      "  'vllm':   # quoted on purpose",
      '    "base_server_flags":',
      '',
      '      # memory',
      '      gpu_memory_utilization: 0.9',
      '      ',
      '',
    ].join('\n');
    const at = offsetAfter(text, '0.9\n      ');
    assert.deepEqual(cursorContext(text, at), {
      parents: VLLM_BASE,
      where: 'key',
      prefix: '',
      replace: [at, at],
      indent: 6,
      siblings: ['gpu_memory_utilization'],
    });
  });

  test('a line that holds a value ends the chain without becoming a parent', () => {
    const text = 'dataset:\n  kind: random\n    \n';
    const at = offsetAfter(text, 'random\n    ');
    const ctx = cursorContext(text, at);
    // `kind: random` is shallower than the cursor but is not a mapping, so only `dataset` owns it.
    assert.deepEqual([ctx.parents, ctx.where, ctx.indent], [['dataset'], 'key', 4]);
  });
});
