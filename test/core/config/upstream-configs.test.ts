// The 39 upstream cookbook configs and their older SGLang-repository variants, as the playbook's validator sees them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { checkConfigText } from '../../../src/core/config/check';
import { SHIPPED, UPSTREAM, UPSTREAM_SGLANG, yamlFiles, FIXTURES } from '../../support/fixtures';

const errorsOf = (file: string) =>
  checkConfigText(readFileSync(file, 'utf8'))
    .findings.filter((f) => f.severity === 'error')
    .map((f) => f.message);

describe('upstream cookbook configs', () => {
  const files = yamlFiles(UPSTREAM);
  test('there are 39 of them', () => assert.equal(files.length, 39));
  for (const file of files) {
    test(`${basename(file)} validates with no error and yields candidates for all four frameworks`, () => {
      const r = checkConfigText(readFileSync(file, 'utf8'));
      assert.deepEqual(r.findings.filter((f) => f.severity === 'error').map((f) => f.message), []);
      assert.deepEqual(r.candidateLists.map((p) => p.framework), ['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed']);
      for (const p of r.candidateLists) {
        assert.ok(p.candidates.length >= 1 && p.candidates.length <= r.model.maxCandidates, `${p.framework}: ${p.candidates.length}`);
        assert.equal(p.candidates[0]!.id, 'baseline');
      }
    });
  }
});

describe('SGLang-repository variants (no tokenspeed section, p99 SLA names)', () => {
  for (const file of yamlFiles(UPSTREAM_SGLANG)) {
    test(`${basename(file)} gives exactly the documented errors`, () => {
      assert.deepEqual(errorsOf(file), [
        'missing frameworks.tokenspeed',
        "sla: 'max_p99_ttft_ms' is deprecated; use 'max_p50_ttft_ms' (see references/result-schema.md)",
        "sla: 'max_p99_tpot_ms' is deprecated; use 'max_p50_tpot_ms' (see references/result-schema.md)",
      ]);
    });
  }
});

describe('shipped model set', () => {
  const files = yamlFiles(SHIPPED);
  test('ships the cookbook model set', () => assert.ok(files.length >= 39));
  for (const file of files) {
    test(`${basename(file)} validates with no error and no warning`, () => {
      const r = checkConfigText(readFileSync(file, 'utf8'));
      assert.deepEqual(r.findings.map((f) => `${f.severity} ${f.code}: ${f.message}`), []);
    });
  }
});

test('the runtime plan example validates as a plan', () => {
  const r = checkConfigText(readFileSync(`${FIXTURES}/plans/example-plan.yaml`, 'utf8'), { kind: 'auto' });
  assert.equal(r.kind, 'plan');
  // Its one finding is real: the TensorRT-LLM baseline sets no max_seq_len, so only the searched
  // candidates are known to fit the 9000-token scenario.
  assert.deepEqual(r.findings.filter((f) => f.severity === 'error').map((f) => f.message), [
    'tensorrt_llm: base max_seq_len (0) is smaller than the largest dataset scenario (9000)',
  ]);
  assert.equal(r.candidateLists.length, 4);
  // Plans name no server_command: each framework's usual entry point is used.
  assert.match(r.candidateLists.find((p) => p.framework === 'vllm')!.candidates[0]!.command, /^vllm serve Qwen\/Qwen3-32B /);
});
