// A plan's dataset section: every kind the client knows, its file and options, the scenarios it runs, the
// speculative default, and the findings the editor shows for a kind's missing or wrong keys.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkConfigText } from '../../../src/core/config/check';
import { readRunPlan } from '../../../src/core/plan/build';
import { planYaml } from '../../support/runner';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'autobench-plan-dataset-'));
  writeFileSync(join(dir, 'rows.jsonl'), '{"prompt": "hello there", "output_len": 4}\n');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const VLLM = 'base_server_flags:\n  max_model_len: 4096';
const read = (dataset: string, o: { benchmark?: string; vllm?: string } = {}) =>
  readRunPlan({ text: planYaml({ dataset, frameworks: { vllm: o.vllm ?? VLLM }, ...(o.benchmark ? { benchmark: o.benchmark } : {}) }), path: join(dir, 'x.plan.yaml') });
const codes = (text: string) => checkConfigText(text, { kind: 'auto' }).findings.map((f) => `${f.severity} ${f.code}`);

describe('plan dataset', () => {
  test('custom: dataset.path resolved against the plan folder; one scenario named scenario_names[0]; written facts say custom', () => {
    const p = read('kind: custom\npath: rows.jsonl\nnum_prompts: 5\nscenario_names: [support, other]\ninput_len: [256, 512]\noutput_len: [32, 64]');
    assert.deepEqual(p.problems, []);
    assert.equal(p.bench.datasetKind, 'custom');
    assert.equal(p.bench.dataset.source, 'plan');
    assert.equal(p.bench.dataset.path, join(dir, 'rows.jsonl'));
    assert.equal(p.bench.dataset.pathKey, 'dataset.path');
    assert.equal(p.bench.canonicalJsonl, 'rows.jsonl');
    assert.deepEqual(p.scenarios, [{ name: 'support', inputLen: 256, outputLen: 32 }]);
    assert.ok(p.warnings.some((w) => /dataset\.kind custom runs one scenario .* the other 1 are not run/.test(w)), p.warnings.join('\n'));
  });

  test('custom by canonical_jsonl, named by the kind when scenario_names is absent', () => {
    const p = read(`kind: custom\ncanonical_jsonl: ${join(dir, 'rows.jsonl')}\ninput_len: [256]\noutput_len: [32]`);
    assert.deepEqual(p.problems, []);
    assert.equal(p.bench.dataset.pathKey, 'dataset.canonical_jsonl');
    assert.deepEqual(p.scenarios.map((s) => s.name), ['custom']);
  });

  test('a missing or unreadable file is a plan error naming the key, the path and the fix', () => {
    const p = read('kind: sharegpt\npath: nope.json\ninput_len: [256]\noutput_len: [32]');
    assert.equal(p.problems.length, 1);
    assert.match(p.problems[0] as string, new RegExp(`^dataset\\.path: nope\\.json \\(${join(dir, 'nope.json').replace(/[/.]/g, '\\$&')}\\) cannot be read \\(ENOENT\\): give the path of a ShareGPT JSON file .*relative to the plan's folder`));
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked.jsonl');
      writeFileSync(locked, '{}\n');
      chmodSync(locked, 0o000);
      assert.match(read(`kind: mooncake\npath: ${locked}\ninput_len: [256]\noutput_len: [32]`).problems.join('\n'), /dataset\.path: .*locked\.jsonl.* cannot be read \(EACCES\)/);
    }
    const noPath = read('kind: custom\ninput_len: [256]\noutput_len: [32]');
    assert.match(noPath.problems.join('\n'), /dataset\.kind: dataset\.kind custom needs dataset\.path \(or dataset\.canonical_jsonl\): a JSONL file of \{"prompt", "output_len"\} rows/);
  });

  test('generated-shared-prefix: dataset.gsp read as the builder takes it; the scenario is system + question -> output', () => {
    const p = read('kind: generated-shared-prefix\nscenario_names: [agents]\ngsp: {num_groups: 3, prompts_per_group: 4, system_prompt_len: 300, question_len: 20, output_len: 12, ordered: true}\ninput_len: [256]\noutput_len: [32]');
    assert.deepEqual(p.problems, []);
    assert.deepEqual(p.bench.dataset.options, { gspNumGroups: 3, gspPromptsPerGroup: 4, gspSystemPromptLen: 300, gspQuestionLen: 20, gspOutputLen: 12, gspOrdered: true });
    assert.deepEqual(p.scenarios, [{ name: 'agents', inputLen: 320, outputLen: 12 }]);
  });

  test('builtin-text runs every scenario at its lengths; a kind the runner does not build is a problem', () => {
    const p = read('kind: builtin-text\nscenario_names: [a, b]\ninput_len: [256, 1024]\noutput_len: [32, 64]');
    assert.deepEqual(p.problems, []);
    assert.deepEqual(p.scenarios.map((s) => [s.name, s.inputLen, s.outputLen]), [['a', 256, 32], ['b', 1024, 64]]);
    assert.match(read('kind: mmmu\ninput_len: [256]\noutput_len: [32]').problems.join('\n'), /dataset\.kind "mmmu": the runner builds random, random-ids, builtin-text, sharegpt, custom, generated-shared-prefix, mooncake, trace-csv workloads/);
  });

  test('no kind named: builtin-text when a candidate uses speculative decoding (said in the plan), else random; a named kind stands', () => {
    const spec = `base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  speculative_config: [null, '{"method": "ngram", "num_speculative_tokens": 3}']`;
    const lengths = 'input_len: [256]\noutput_len: [32]';
    const p = read(lengths, { vllm: spec });
    assert.deepEqual(p.problems, []);
    assert.equal(p.bench.datasetKind, 'builtin-text');
    assert.equal(p.bench.dataset.source, 'speculative-default');
    assert.deepEqual(p.bench.dataset.speculative, ['vllm c1: speculative_config']);
    assert.equal(p.bench.asWritten.datasetKind, 'builtin-text', 'the report says which kind ran');
    const plain = read(lengths);
    assert.equal(plain.bench.datasetKind, 'random');
    assert.equal(plain.bench.dataset.source, 'default');
    const named = read(`kind: random-ids\n${lengths}`, { vllm: spec });
    assert.equal(named.bench.datasetKind, 'random-ids');
    assert.equal(named.bench.dataset.source, 'plan');
  });

  test('SGLang speculative_algorithm and a TensorRT-LLM options file with speculative_config count as speculative', () => {
    writeFileSync(join(dir, 'trt.yaml'), 'kv_cache_config:\n  free_gpu_memory_fraction: 0.8\nspeculative_config:\n  decoding_type: Eagle\n  max_draft_len: 3\n');
    const text = planYaml({
      dataset: 'input_len: [256]\noutput_len: [32]',
      frameworks: { sglang: 'base_server_flags:\n  speculative_algorithm: EAGLE3\n  speculative_num_steps: 3', tensorrt_llm: 'base_server_flags:\n  backend: pytorch\n  extra_llm_api_options: trt.yaml' },
    });
    const p = readRunPlan({ text, path: join(dir, 'y.plan.yaml') });
    assert.deepEqual(p.bench.dataset.speculative, ['sglang baseline: speculative_algorithm', 'tensorrt_llm baseline: extra_llm_api_options (speculative_config)']);
    assert.equal(p.bench.datasetKind, 'builtin-text');
  });
});

describe('dataset findings in the editor', () => {
  const plan = (dataset: string, benchmark?: string) => planYaml({ dataset, frameworks: { vllm: VLLM }, ...(benchmark ? { benchmark } : {}) });

  test('each kind with its required keys has no dataset finding', () => {
    for (const ds of [
      'kind: builtin-text\ninput_len: [256]\noutput_len: [32]',
      'kind: custom\npath: rows.jsonl\ninput_len: [256]\noutput_len: [32]',
      'kind: sharegpt\npath: s.json\nsharegpt: {output_len: 64}\ninput_len: [256]\noutput_len: [32]',
      'kind: mooncake\npath: t.jsonl\nmooncake: {slowdown_factor: 2}\ninput_len: [256]\noutput_len: [32]',
      'kind: generated-shared-prefix\ngsp: {num_groups: 2, prompts_per_group: 3}\ninput_len: [256]\noutput_len: [32]',
    ]) {
      assert.deepEqual(codes(plan(ds)).filter((c) => c.includes('dataset')), [], ds);
    }
  });

  test('missing and wrong keys are findings that say what to write', () => {
    const check = (ds: string, benchmark?: string) => checkConfigText(plan(ds, benchmark), { kind: 'auto' }).findings.filter((f) => f.code.startsWith('dataset'));
    const mooncake = check('kind: mooncake\ninput_len: [256]\noutput_len: [32]');
    assert.deepEqual(mooncake.map((f) => [f.severity, f.code, f.path.join('.')]), [['error', 'dataset-path-missing', 'dataset.kind']]);
    assert.match(mooncake[0]?.message ?? '', /dataset\.kind mooncake needs dataset\.path: a Mooncake trace JSONL/);
    const gsp = check('kind: generated-shared-prefix\ngsp: {num_groups: 2, output_len: 0}\ninput_len: [256]\noutput_len: [32]');
    assert.deepEqual(gsp.map((f) => f.code), ['dataset-options-missing', 'dataset-option-value']);
    assert.match(gsp[0]?.message ?? '', /needs dataset\.gsp\.prompts_per_group .* e\.g\. gsp: \{num_groups: 8, prompts_per_group: 10\}/);
    assert.match(gsp[1]?.message ?? '', /dataset\.gsp\.output_len must be an integer >= 1/);
    const turns = check('kind: generated-shared-prefix\ngsp: {num_groups: 2, prompts_per_group: 2, num_turns: 3}\ninput_len: [256]\noutput_len: [32]');
    assert.match(turns.map((f) => f.message).join('\n'), /dataset\.gsp\.num_turns 3 sends later turns as chat messages: set benchmark\.endpoint: \/v1\/chat\/completions/);
    assert.deepEqual(check('kind: generated-shared-prefix\ngsp: {num_groups: 2, prompts_per_group: 2, num_turns: 3}\ninput_len: [256]\noutput_len: [32]', 'endpoint: /v1/chat/completions\nrequest_rates: [inf]'), []);
    const unused = check('kind: random\npath: x.json\ngsp: {num_groups: 1}\ninput_len: [256]\noutput_len: [32]');
    assert.deepEqual(unused.map((f) => [f.severity, f.code]), [['warning', 'dataset-path-unused'], ['warning', 'dataset-options-unused']]);
  });
});
