// Rendering candidate flags into server commands the way the playbook prints them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PyFloat, isPyMap } from '../../../src/core/py/value';
import type { PyValue } from '../../../src/core/py/value';
import { parseYaml } from '../../../src/core/config/yaml-doc';
import { renderArgv, renderCommand, renderValue } from '../../../src/core/candidates/render';
import { ShellSyntaxError } from '../../../src/core/candidates/shell';
import type { FlagMap } from '../../../src/core/candidates/generate';

const flags = (o: Record<string, PyValue>): FlagMap => new Map(Object.entries(o));

/** Base flags as the YAML loader produces them, so number spelling goes through the real path. */
function yamlFlags(text: string): FlagMap {
  const root = parseYaml(text).root?.value ?? null;
  assert.ok(isPyMap(root));
  return new Map([...root].map(([k, v]) => [String(k), v]));
}

void describe('renderValue', () => {
  void test('prints as Python str() would', () => {
    assert.equal(renderValue(0.9), '0.9');
    assert.equal(renderValue(new PyFloat(1)), '1.0');
    assert.equal(renderValue(8192), '8192');
    assert.equal(renderValue('fa3'), 'fa3');
    assert.equal(renderValue([1, 'a', true]), "[1, 'a', True]");
    assert.equal(renderValue(new Map<PyValue, PyValue>([['a', 1]]) as PyValue), "{'a': 1}");
  });
});

void describe('renderCommand', () => {
  void test('vllm: positional model and dashed flags', () => {
    const cmd = renderCommand({
      serverCommand: 'vllm serve',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      positionalModel: true,
      flagStyle: 'dash',
      flags: flags({ tensor_parallel_size: 2, max_model_len: 8192, enable_chunked_prefill: true }),
    });
    assert.equal(
      cmd,
      'vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 --max-model-len 8192 --enable-chunked-prefill',
    );
  });

  void test('sglang: no positional model; the model goes in through its flag', () => {
    const cmd = renderCommand({
      serverCommand: 'python3 -m sglang.launch_server',
      model: 'Qwen/Qwen3-8B',
      positionalModel: false,
      flagStyle: 'dash',
      flags: flags({ model_path: 'Qwen/Qwen3-8B', tp_size: 1 }),
    });
    assert.equal(cmd, 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 1');
  });

  void test('tensorrt_llm: keys kept verbatim, underscores and all', () => {
    const argv = renderArgv({
      serverCommand: 'trtllm-serve serve',
      model: 'm',
      positionalModel: true,
      flagStyle: 'verbatim',
      flags: flags({ max_seq_len: 4096, tp_size: 2, backend: 'pytorch' }),
    });
    assert.deepEqual(argv, ['trtllm-serve', 'serve', 'm', '--max_seq_len', '4096', '--tp_size', '2', '--backend', 'pytorch']);
  });

  void test('true is a bare flag; false and null are omitted', () => {
    const argv = renderArgv({
      serverCommand: 'vllm serve',
      model: 'm',
      positionalModel: true,
      flagStyle: 'dash',
      flags: flags({ enforce_eager: true, enable_prefix_caching: false, quantization: null, seed: 0 }),
    });
    assert.deepEqual(argv, ['vllm', 'serve', 'm', '--enforce-eager', '--seed', '0']);
  });

  void test('false with a known disable form emits it, so the default-on feature really goes off', () => {
    const argv = renderArgv({
      serverCommand: 'vllm serve',
      model: 'm',
      positionalModel: true,
      flagStyle: 'dash',
      flags: flags({ enable_prefix_caching: false, trust_remote_code: false }),
      disableForm: (k) => (k === 'enable_prefix_caching' ? '--no-enable-prefix-caching' : undefined),
    });
    assert.deepEqual(argv, ['vllm', 'serve', 'm', '--no-enable-prefix-caching']);
  });

  void test('YAML numbers print as Python does: 0.90 -> 0.9, 1.0 -> 1.0', () => {
    const cmd = renderCommand({
      serverCommand: 'vllm serve',
      model: 'm',
      positionalModel: true,
      flagStyle: 'dash',
      flags: yamlFlags('gpu_memory_utilization: 0.90\nscale: 1.0\nmax_num_seqs: 0x10\n'),
    });
    assert.equal(cmd, 'vllm serve m --gpu-memory-utilization 0.9 --scale 1.0 --max-num-seqs 16');
  });

  void test('values with spaces or JSON are quoted like shlex.join', () => {
    const cmd = renderCommand({
      serverCommand: "python3 -m sglang.launch_server --host '0.0.0.0'",
      model: undefined,
      positionalModel: false,
      flagStyle: 'dash',
      flags: flags({ served_model_name: 'my model', json_model_override_args: '{"rope_scaling": null}', chat_template: "it's" }),
    });
    assert.equal(
      cmd,
      `python3 -m sglang.launch_server --host 0.0.0.0 --served-model-name 'my model' --json-model-override-args '{"rope_scaling": null}' --chat-template 'it'"'"'s'`,
    );
  });

  void test('a server_command with an unbalanced quote raises the typed error', () => {
    assert.throws(
      () => renderCommand({ serverCommand: 'vllm "serve', model: 'm', positionalModel: true, flagStyle: 'dash', flags: new Map() }),
      ShellSyntaxError,
    );
  });
});
