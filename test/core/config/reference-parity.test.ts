// Where `autobench validate` now follows the reference validator: benchmark.sla: null, a non-string model.name, a framework
// without `enabled` (checker and run plan), the sequence-limit pass order, and the file order and spelling of a run.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkConfigText } from '../../../src/core/config/check';
import { collectConfigFiles, pathlibSpelling } from '../../../src/core/config/files';
import { LineIndex } from '../../../src/core/config/finding';
import { readRunPlan } from '../../../src/core/plan/build';
import { mutate, VALID } from '../../support/fixtures';

const errors = (text: string) =>
  checkConfigText(text)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => f.message);

const BENCH_SLA = 'benchmark:\n  sla:\n    max_p50_ttft_ms: 2000\n    max_p50_tpot_ms: 80\n    min_success_rate: 0.99\n';

describe('benchmark.sla: null reads the top-level sla', () => {
  test('the top-level block is checked, deprecation errors included', () => {
    const text = mutate(BENCH_SLA, 'benchmark:\n  sla: null\nsla:\n  max_ttft_ms: 5\n  goodput: 1\n');
    assert.deepEqual(errors(text), [
      "sla: 'max_ttft_ms' is deprecated; use 'max_p50_ttft_ms' (see references/result-schema.md)",
      "sla: unknown key 'goodput'; allowed keys are ['max_p50_e2e_ms', 'max_p50_tpot_ms', 'max_p50_ttft_ms', 'min_success_rate']",
    ]);
    assert.deepEqual(checkConfigText(text).model.slaPath, ['sla']);
  });

  test('an empty `sla:` (null) and a benchmark that is no mapping fall back too', () => {
    assert.deepEqual(errors(mutate(BENCH_SLA, 'benchmark:\n  sla:\nsla:\n  max_p99_e2e_ms: 5\n')), [
      "sla: 'max_p99_e2e_ms' is deprecated; use 'max_p50_e2e_ms' (see references/result-schema.md)",
    ]);
    assert.deepEqual(errors(mutate(BENCH_SLA, 'benchmark: 3\nsla:\n  max_tpot_ms: 5\n')), [
      "sla: 'max_tpot_ms' is deprecated; use 'max_p50_tpot_ms' (see references/result-schema.md)",
    ]);
  });

  test('a benchmark.sla mapping still wins over the top-level block', () => {
    assert.deepEqual(errors(`${VALID}sla:\n  max_ttft_ms: 5\n`), []);
  });

  test('a non-string SLA key is printed as Python repr prints it', () => {
    assert.deepEqual(errors(mutate('    min_success_rate: 0.99\n', '    min_success_rate: 0.99\n    7: 1\n')), [
      "sla: unknown key 7; allowed keys are ['max_p50_e2e_ms', 'max_p50_tpot_ms', 'max_p50_ttft_ms', 'min_success_rate']",
    ]);
    assert.deepEqual(errors(mutate('    min_success_rate: 0.99\n', '    min_success_rate: 0.99\n    constructor: 1\n')), [
      "sla: unknown key 'constructor'; allowed keys are ['max_p50_e2e_ms', 'max_p50_tpot_ms', 'max_p50_ttft_ms', 'min_success_rate']",
    ]);
  });
});

describe('model.name must be a string', () => {
  for (const value of ['123', '1.5', '[a, b]', 'yes', '{a: 1}']) {
    test(`name: ${value}`, () => {
      const r = checkConfigText(mutate('  name: Qwen/Qwen3-32B\n', `  name: ${value}\n`));
      assert.deepEqual(r.findings.filter((f) => f.severity === 'error').map((f) => f.message), ['model.name must be set']);
      assert.equal(r.model.modelName, undefined);
    });
  }
});

describe('a framework without `enabled` is disabled', () => {
  const noEnabled = mutate('  vllm:\n    enabled: true\n', '  vllm:\n');

  test('it is neither checked nor listed, and a warning names its line and the fix', () => {
    const bad = mutate('    server_command: vllm serve\n', '    server_command: [vllm]\n', noEnabled);
    const r = checkConfigText(bad);
    assert.deepEqual(r.findings.filter((f) => f.severity === 'error'), []);
    assert.deepEqual(r.candidateLists.map((p) => p.framework), ['sglang']);
    const vllm = r.model.frameworks.find((s) => s.framework === 'vllm');
    assert.equal(vllm?.enabled, false);
    assert.equal(vllm?.excludedBy, 'enabled-missing');
    const w = r.findings.find((f) => f.code === 'enabled-missing');
    assert.ok(w);
    assert.equal(w.severity, 'warning');
    assert.match(w.message, /^vllm: no 'enabled' key, so this framework is disabled: .*add enabled: true to run it$/);
    assert.equal(new LineIndex(bad).positionAt(w.range[0]).line, bad.split('\n').indexOf('  vllm:'));
  });

  test('its quick fix adds enabled: true, after which it is checked again', () => {
    const r = checkConfigText(noEnabled);
    const edit = r.findings.find((f) => f.code === 'enabled-missing')?.fixes?.[0]?.edits[0];
    assert.ok(edit);
    const fixed = noEnabled.slice(0, edit.range[0]) + edit.newText + noEnabled.slice(edit.range[1]);
    assert.match(fixed, /\n {4}enabled: true\n {2}tensorrt_llm:/);
    const again = checkConfigText(fixed);
    assert.deepEqual(again.findings.filter((f) => f.code === 'enabled-missing'), []);
    assert.deepEqual(again.candidateLists.map((p) => p.framework), ['sglang', 'vllm']);
  });

  test('the run plan records it as disabled and runs nothing of it', () => {
    const plan = readRunPlan({ text: noEnabled, path: join(tmpdir(), 'no-enabled.yaml') });
    const vllm = plan.frameworks.find((f) => f.framework === 'vllm');
    assert.equal(vllm?.status, 'user_excluded');
    assert.match(vllm?.reason ?? '', /^disabled: the config has no 'enabled' key .*add enabled: true to run it/);
    assert.deepEqual(vllm?.candidates, []);
    assert.equal(plan.frameworks.find((f) => f.framework === 'sglang')?.status, 'run');
  });

  test('a runtime plan (framework_set picks frameworks) still reads a missing enabled as true', () => {
    const plan = mutate('schema_version: 1\n', '', noEnabled).replace(BENCH_SLA, 'sla:\n  max_p50_ttft_ms: 2000\n');
    const r = checkConfigText(plan, { kind: 'plan' });
    assert.equal(r.model.frameworks.find((s) => s.framework === 'vllm')?.enabled, true);
    assert.deepEqual(r.findings.filter((f) => f.code === 'enabled-missing'), []);
  });
});

describe('error order and the sequence-limit pass', () => {
  test('sequence limits are checked after every framework’s other rules, as the reference loops twice', () => {
    const text = mutate('  tensorrt_llm:\n    enabled: false\n    server_command: trtllm-serve serve\n    backend_policy: fixed_pytorch\n', '  tensorrt_llm:\n    enabled: true\n    server_command: trtllm-serve serve\n    backend_policy: engine\n', mutate('max_model_len: 12288', 'max_model_len: 100'));
    assert.deepEqual(errors(text), [
      'tensorrt_llm: backend_policy must be fixed_pytorch',
      'vllm: base max_model_len (100) is smaller than the largest dataset scenario (9000)',
    ]);
  });

  test('an invalid dataset leaves R at 0: limits that are no integer are still reported', () => {
    const text = mutate('input_len: [1000, 8000]', 'input_len: 5', mutate('max_model_len: 12288', 'max_model_len: abc'));
    assert.deepEqual(errors(text), ['dataset.input_len and dataset.output_len must be lists', 'vllm: base max_model_len is not an integer']);
  });

  test('a null base_server_flags counts as {} for the limit (0 for vLLM); a list search_space skips it', () => {
    const base = '    base_server_flags:\n      tensor_parallel_size: 4\n      gpu_memory_utilization: 0.90\n      max_model_len: 12288\n';
    assert.deepEqual(errors(mutate(base, '    base_server_flags: null\n')), [
      'vllm: base_server_flags must be a mapping',
      'vllm: base max_model_len (0) is smaller than the largest dataset scenario (9000)',
    ]);
    const listSpace = mutate('    search_space:\n      max_num_seqs: [64, 128]', '    search_space: [max_num_seqs]', mutate('max_model_len: 12288', 'max_model_len: 100'));
    assert.deepEqual(errors(listSpace), ['vllm: search_space must be a mapping']);
  });
});

describe('config files: pathlib spelling and order', () => {
  test('paths print as pathlib prints them', () => {
    assert.equal(pathlibSpelling('./a//b/./c.yaml'), 'a/b/c.yaml');
    assert.equal(pathlibSpelling('/x/../y/'), '/x/../y');
    assert.equal(pathlibSpelling('./'), '.');
  });

  test('all files are sorted together, part by part, whatever the order of the arguments', () => {
    const d = mkdtempSync(join(tmpdir(), 'autobench-files-'));
    mkdirSync(join(d, 'a'));
    for (const f of ['b.yaml', 'a-c.yaml', 'a/b.yml', 'a/a.yaml']) writeFileSync(join(d, f), VALID);
    const { files } = collectConfigFiles([join(d, 'b.yaml'), `${d}/./a/`, join(d, 'a-c.yaml')]);
    assert.deepEqual(files, [join(d, 'a', 'a.yaml'), join(d, 'a', 'b.yml'), join(d, 'a-c.yaml'), join(d, 'b.yaml')]);
  });
});

describe('YAML tags safe_load cannot construct', () => {
  test('an unknown or Python tag fails the whole file with PyYAML’s message, as the reference does', () => {
    assert.deepEqual(errors(mutate('  name: Qwen/Qwen3-32B\n', '  name: !foo Qwen/Qwen3-32B\n')), ["could not determine a constructor for the tag '!foo'"]);
    assert.deepEqual(errors(mutate('  name: Qwen/Qwen3-32B\n', "  name: !!python/name:os.system ''\n")), [
      "could not determine a constructor for the tag 'tag:yaml.org,2002:python/name:os.system'",
    ]);
  });

  test('the tags SafeConstructor knows still load', () => {
    assert.deepEqual(errors(mutate('  name: Qwen/Qwen3-32B\n', '  name: !!str Qwen/Qwen3-32B\n')), []);
    assert.deepEqual(errors(mutate('max_model_len: 12288', 'max_model_len: !!int 12288')), []);
    assert.deepEqual(errors(mutate('  name: Qwen/Qwen3-32B\n', '  name: !!set {a, b}\n')), ['model.name must be set']);
  });
});
