// YAML merge keys (`<<:`) build mappings in PyYAML's order: merged keys first, which decides the rendered flag order.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkConfigText } from '../../../src/core/config/check';
import { nodeAt, parseYaml } from '../../../src/core/config/yaml-doc';
import type { PyMap } from '../../../src/core/py/value';
import { mutate } from '../../support/fixtures';

function entries(text: string, ...path: string[]): Array<[unknown, unknown]> {
  const r = parseYaml(text);
  assert.deepEqual(r.problems, []);
  const node = nodeAt(r.root, path);
  assert.equal(node?.kind, 'map');
  return [...(node?.value as PyMap).entries()];
}

describe('merge keys in PyYAML order', () => {
  test('merged keys come first, even when `<<` is written last', () => {
    const text = 'common: &c {x: 1, y: 2}\nm:\n  w: 5\n  x: 9\n  <<: *c\n';
    // PyYAML 6: {'x': 9, 'y': 2, 'w': 5}: x keeps the merged position and the mapping's own value.
    assert.deepEqual(entries(text, 'm'), [['x', 9], ['y', 2], ['w', 5]]);
  });

  test('a list of merges: the first mapping wins, the last one’s keys come first', () => {
    const text = 'a: &A {x: 1, y: 2}\nb: &B {y: 3, z: 4}\nm:\n  w: 5\n  <<: [*A, *B]\n  x: 9\n';
    // yaml.safe_load gives m == {'y': 2, 'z': 4, 'x': 9, 'w': 5}
    assert.deepEqual(entries(text, 'm'), [['y', 2], ['z', 4], ['x', 9], ['w', 5]]);
  });

  test('two merge keys in one mapping, and a merge inside a merged mapping', () => {
    assert.deepEqual(entries('a: &A {x: 1, y: 2}\nb: &B {y: 3, z: 4}\nd:\n  <<: *A\n  <<: *B\n  k: 0\n', 'd'), [['x', 1], ['y', 3], ['z', 4], ['k', 0]]);
    assert.deepEqual(entries('e:\n  q: 1\n  <<: {r: 2, <<: {s: 3, r: 7}}\n', 'e'), [['s', 3], ['r', 2], ['q', 1]]);
  });

  test('a key set by the mapping over a merged one is no duplicate-key error', () => {
    assert.deepEqual(parseYaml('c: &c {x: 1}\nm:\n  <<: *c\n  x: 2\n').problems, []);
  });

  test('the rendered flag order follows: merged base flags render first', () => {
    const text = mutate(
      '    base_server_flags:\n      tensor_parallel_size: 4\n      gpu_memory_utilization: 0.90\n      max_model_len: 12288\n',
      '    base_server_flags:\n      max_model_len: 12288\n      <<: *vllm_common\n',
    ).replace('frameworks:\n', 'x_vllm: &vllm_common\n  tensor_parallel_size: 4\n  gpu_memory_utilization: 0.90\nframeworks:\n');
    const vllm = checkConfigText(text).candidateLists.find((p) => p.framework === 'vllm');
    assert.equal(vllm?.candidates[0]?.command, 'vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --gpu-memory-utilization 0.9 --max-model-len 12288');
  });

  test('a quick fix that appends to a mapping with merged keys lands among its own lines', () => {
    const text = mutate('max_model_len: 12288', 'max_model_len: 100').replace(
      '    base_server_flags:\n      tensor_parallel_size: 4\n',
      '    base_server_flags:\n      <<: *vllm_common\n',
    ).replace('frameworks:\n', 'x_vllm: &vllm_common\n  tensor_parallel_size: 4\nframeworks:\n');
    const gone = text.replace('      max_model_len: 100\n', '');
    const f = checkConfigText(gone).findings.find((x) => x.code === 'seq-limit-small');
    const edit = f?.fixes?.[0]?.edits[0];
    assert.ok(edit);
    const fixed = gone.slice(0, edit.range[0]) + edit.newText + gone.slice(edit.range[1]);
    assert.ok(fixed.includes('      <<: *vllm_common\n      gpu_memory_utilization: 0.90\n      max_model_len: 9000\n'), fixed);
  });
});
