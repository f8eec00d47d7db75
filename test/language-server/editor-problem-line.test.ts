// "Go to Line" after a run that measured nothing: the flag the skip reason names, under its framework, else the framework's key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { problemPosition } from '../../src/core/editor/problem-line';

const PLAN = `frameworks:
  sglang:
    base_server_flags:
      totally_bogus_flag: 1
  vllm:
    base_server_flags:
      max_model_len: 4096
      totally_bogus_flag: 1
    search_space:
      enforce_eagr: [true]
`;

test('the flag a reason quotes, in the framework the reason is about (not the same key under another framework)', () => {
  assert.deepEqual(problemPosition(PLAN, 'vllm', "unknown flag 'totally_bogus_flag' (not in the captured vllm_serve_all.txt)"), { line: 7, character: 6 });
  assert.deepEqual(problemPosition(PLAN, 'vllm', 'unknown flag `--enforce-eagr`'), { line: 9, character: 6 });
});

test('a reason that names no flag of the section: the framework key; a framework not in the text: nothing', () => {
  assert.deepEqual(problemPosition(PLAN, 'vllm', 'server did not become healthy within 900 s'), { line: 4, character: 2 });
  assert.equal(problemPosition(PLAN, 'tokenspeed', 'x'), undefined);
  assert.equal(problemPosition(': [', 'vllm', 'x'), undefined);
});
