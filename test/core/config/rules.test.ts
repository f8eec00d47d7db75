// The playbook's rules with their exact texts, and each deliberate difference from its script.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkConfigText } from '../../../src/core/config/check';
import { LineIndex } from '../../../src/core/config/finding';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SnapshotFlags } from '../../../src/core/config/known-flags';
import { loadSnapshotFlags } from '../../../src/core/config/snapshot-flags';
import { SLA_REPLACEMENTS, slaPercentileChange } from '../../../src/core/sla/limits';
import { HELP, mutate, VALID } from '../../support/fixtures';

const errors = (text: string) =>
  checkConfigText(text)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => f.message);
const warnings = (text: string) => checkConfigText(text).findings.filter((f) => f.severity === 'warning');

describe('playbook rules', () => {
  test('the valid fixture has no error', () => {
    assert.deepEqual(errors(VALID), []);
  });

  test('root must be a mapping', () => {
    assert.deepEqual(errors('- a\n- b\n'), ['expected a YAML mapping']);
    assert.deepEqual(errors('just text\n'), ['expected a YAML mapping']);
    assert.deepEqual(errors(''), ['expected a YAML mapping']);
  });

  test('schema_version, model.name and source.kind', () => {
    assert.deepEqual(errors(mutate('schema_version: 1', 'schema_version: 2')), ['schema_version must be 1']);
    assert.deepEqual(errors(mutate('schema_version: 1', 'schema_version: "1"')), ['schema_version must be 1']);
    assert.deepEqual(errors(mutate('  name: Qwen/Qwen3-32B\n', '  name: ""\n')), ['model.name must be set']);
    assert.deepEqual(errors(mutate('  kind: llm_serving_cookbook', '  kind: other')), ["source.kind must be one of ['llm_serving_cookbook']"]);
  });

  test('dataset lists, alignment and emptiness', () => {
    assert.deepEqual(errors(mutate('input_len: [1000, 8000]', 'input_len: 1000')), ['dataset.input_len and dataset.output_len must be lists']);
    assert.deepEqual(errors(mutate('output_len: [1000, 1000]', 'output_len: [1000]')), ['dataset.input_len and dataset.output_len must be aligned']);
    assert.deepEqual(errors(mutate('input_len: [1000, 8000]\n  output_len: [1000, 1000]', 'input_len: []\n  output_len: []')), [
      'dataset.input_len and dataset.output_len must not be empty',
    ]);
  });

  test('required length is the largest aligned pair, not the product', () => {
    // (1000+1000, 8000+1000): R = 9000; a cartesian product would give 8000+5000.
    const text = mutate('output_len: [1000, 1000]', 'output_len: [5000, 1000]');
    assert.deepEqual(errors(mutate('max_model_len: 12288', 'max_model_len: 9000', text)), []);
    assert.deepEqual(errors(mutate('max_model_len: 12288', 'max_model_len: 8999')), [
      'vllm: base max_model_len (8999) is smaller than the largest dataset scenario (9000)',
    ]);
  });

  test('search block', () => {
    assert.deepEqual(errors(mutate('search:\n  max_candidates_per_framework: 4', 'search: [1]')), ['search must be a mapping']);
    assert.deepEqual(errors(mutate('max_candidates_per_framework: 4', 'max_candidates_per_framework: many')), [
      'search.max_candidates_per_framework must be an integer',
    ]);
    assert.deepEqual(errors(mutate('max_candidates_per_framework: 4', 'max_candidates_per_framework: 4.0')), [
      'search.max_candidates_per_framework must be an integer',
    ]);
    assert.deepEqual(errors(mutate('max_candidates_per_framework: 4', 'max_candidates_per_framework: 0')), ['search.max_candidates_per_framework must be positive']);
  });

  test('frameworks mapping and the four keys', () => {
    const noFw = VALID.slice(0, VALID.indexOf('frameworks:')) + 'frameworks: []\n';
    assert.deepEqual(errors(noFw), ['frameworks must be a mapping']);
    const start = VALID.indexOf('  tokenspeed:');
    assert.deepEqual(errors(VALID.slice(0, start)), ['missing frameworks.tokenspeed']);
  });

  test('enabled framework sections must have mappings and a command', () => {
    assert.deepEqual(errors(mutate('      max_num_seqs: [64, 128]\n', '      max_num_seqs: [64, 128]\n    server_command: 7\n'.replace('    server_command: 7\n', ''))), []);
    assert.deepEqual(errors(mutate('    server_command: vllm serve\n', '    server_command: [vllm, serve]\n')), ['vllm: server_command must be a string']);
    assert.deepEqual(errors(mutate('    search_space:\n      max_num_seqs: [64, 128]', '    search_space: [max_num_seqs]')), ['vllm: search_space must be a mapping']);
    assert.deepEqual(
      errors(mutate('    base_server_flags:\n      tensor_parallel_size: 4\n      gpu_memory_utilization: 0.90\n      max_model_len: 12288\n', '    base_server_flags: tp=4\n')),
      ['vllm: base_server_flags must be a mapping'],
    );
  });

  test('disabled frameworks are not checked', () => {
    const text = mutate('      backend: pytorch\n', '      backend: trt\n      made_up_flag: 1\n');
    assert.deepEqual(errors(text), []);
  });

  test('unknown flags, Python repr quoting, document order, once per key', () => {
    const text = mutate('      max_num_seqs: [64, 128]', "      max_num_seqs: [64, 128]\n      zz_flag: [1]\n      \"it's\": [1]\n      aa_flag: [2]");
    assert.deepEqual(errors(mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      zz_flag: 3\n', text)), [
      "vllm: unknown or unsupported server flag 'zz_flag'",
      `vllm: unknown or unsupported server flag "it's"`,
      "vllm: unknown or unsupported server flag 'aa_flag'",
    ]);
  });

  test('unknown flag comes with a quick fix that removes its line', () => {
    const text = mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      not_a_flag: 3\n');
    const f = checkConfigText(text).findings.find((x) => x.code === 'unknown-flag');
    assert.ok(f?.fixes?.[0]);
    const edit = f.fixes[0].edits[0]!;
    const fixed = text.slice(0, edit.range[0]) + edit.newText + text.slice(edit.range[1]);
    assert.equal(fixed, VALID);
    assert.deepEqual(errors(fixed), []);
  });

  test('in a run plan an engine backend is a warning that says the run skips TensorRT-LLM (the shipped demo plan opens clean)', () => {
    const demo = readFileSync(join(__dirname, '../../../configs/examples/demo.plan.yaml'), 'utf8');
    const found = checkConfigText(demo, { kind: 'auto' }).findings;
    assert.deepEqual(found.filter((f) => f.severity === 'error').map((f) => f.message), []);
    const w = found.find((f) => f.code === 'trt-base-backend');
    assert.equal(w?.severity, 'warning');
    assert.equal(w?.message, 'tensorrt_llm: backend trt is not supported (the PyTorch backend only): a run skips TensorRT-LLM as unsupported; set it to pytorch to measure it');
    assert.equal(w?.fixes?.[0]?.edits[0]?.newText, 'pytorch');
  });

  test('TensorRT-LLM backend rules', () => {
    const on = mutate('  tensorrt_llm:\n    enabled: false', '  tensorrt_llm:\n    enabled: true');
    assert.deepEqual(errors(on), []);
    assert.deepEqual(errors(mutate('backend_policy: fixed_pytorch', 'backend_policy: searchable', on)), ['tensorrt_llm: backend_policy must be fixed_pytorch']);
    assert.deepEqual(errors(mutate('      backend: pytorch', '      backend: trt', on)), ['tensorrt_llm: base backend must be pytorch']);
    assert.deepEqual(errors(mutate('      max_seq_len: 12288\n    search_space: {}', '      max_seq_len: 12288\n    search_space:\n      backend: [pytorch, trt]', on)), [
      'tensorrt_llm: backend must not appear in search_space',
    ]);
  });

  test('sequence limits: sglang defaults to R, others to 0; search candidates checked', () => {
    // sglang without context_length is fine (defaults to R).
    assert.deepEqual(errors(VALID), []);
    assert.deepEqual(errors(mutate('      mem_fraction_static: 0.82\n', '      mem_fraction_static: 0.82\n      context_length: 4096\n')), [
      'sglang: base context_length (4096) is smaller than the largest dataset scenario (9000)',
    ]);
    assert.deepEqual(errors(mutate('      max_model_len: 12288\n', '')), ['vllm: base max_model_len (0) is smaller than the largest dataset scenario (9000)']);
    assert.deepEqual(errors(mutate('      max_model_len: 12288\n', '      max_model_len: auto\n')), ['vllm: base max_model_len is not an integer']);
    assert.deepEqual(errors(mutate('      max_num_seqs: [64, 128]', "      max_num_seqs: [64, 128]\n      max_model_len: [16384, 8192, '32k']")), [
      'vllm: search_space max_model_len candidate 8192 is smaller than the largest dataset scenario (9000)',
      "vllm: search_space max_model_len candidate '32k' is not an integer",
    ]);
  });

  test('sequence-limit errors come with a fix that raises the limit', () => {
    const apply = (text: string, code: string) => {
      const f = checkConfigText(text).findings.find((x) => x.code === code);
      assert.ok(f?.fixes?.[0], code);
      const e = f.fixes[0].edits[0]!;
      return text.slice(0, e.range[0]) + e.newText + text.slice(e.range[1]);
    };
    const small = mutate('      max_model_len: 12288', '      max_model_len: 4096');
    assert.equal(apply(small, 'seq-limit-small'), mutate('      max_model_len: 12288', '      max_model_len: 9000'));
    const missing = mutate('      max_model_len: 12288\n', '');
    const fixed = apply(missing, 'seq-limit-small');
    assert.ok(fixed.includes('      gpu_memory_utilization: 0.90\n      max_model_len: 9000\n'), fixed);
    assert.deepEqual(errors(fixed), []);
    const searched = mutate('      max_num_seqs: [64, 128]', '      max_num_seqs: [64, 128]\n      max_model_len: [16384, 8192]');
    assert.deepEqual(errors(apply(searched, 'seq-limit-search-small')), []);
  });

  test('SLA keys: deprecated names, unknown names, top-level sla fallback', () => {
    assert.deepEqual(errors(mutate('max_p50_ttft_ms: 2000', 'max_p99_ttft_ms: 2000')), [
      "sla: 'max_p99_ttft_ms' is deprecated; use 'max_p50_ttft_ms' (see references/result-schema.md)",
    ]);
    assert.deepEqual(errors(mutate('max_p50_tpot_ms: 80', 'max_tpot_ms: 80')), ["sla: 'max_tpot_ms' is deprecated; use 'max_p50_tpot_ms' (see references/result-schema.md)"]);
    assert.deepEqual(errors(mutate('min_success_rate: 0.99', 'min_goodput: 3')), [
      "sla: unknown key 'min_goodput'; allowed keys are ['max_p50_e2e_ms', 'max_p50_tpot_ms', 'max_p50_ttft_ms', 'min_success_rate']",
    ]);
    const topLevel = mutate('benchmark:\n  sla:\n    max_p50_ttft_ms: 2000\n    max_p50_tpot_ms: 80\n    min_success_rate: 0.99\n', 'sla:\n  max_e2e_ms: 9\n');
    assert.deepEqual(errors(topLevel), ["sla: 'max_e2e_ms' is deprecated; use 'max_p50_e2e_ms' (see references/result-schema.md)"]);
  });

  test('every deprecated SLA key: a p99 key says its fix changes the percentile and selects the value; a legacy name is renamed', () => {
    // VALID's SLA with an e2e limit too, so that each deprecated key has its replacement to become.
    const base = mutate('    min_success_rate: 0.99\n', '    min_success_rate: 0.99\n    max_p50_e2e_ms: 9000\n');
    const seen: string[] = [];
    for (const [old, replacement] of Object.entries(SLA_REPLACEMENTS)) {
      const text = base.replace(`    ${replacement}: `, `    ${old}: `);
      const f = checkConfigText(text).findings.find((x) => x.code === 'sla-deprecated');
      const fix = f?.fixes?.[0];
      assert.ok(f && fix && f.fixes?.length === 1, old);
      const edit = fix.edits[0]!;
      assert.equal(text.slice(0, edit.range[0]) + edit.newText + text.slice(edit.range[1]), base, `${old}: the fix gives the replacement with the same value`);
      const p99 = old.startsWith('max_p99_');
      // `autobench validate` keeps the reference validator's text; the editor says what the rename does instead.
      assert.equal(f.message, `sla: '${old}' is deprecated; use '${replacement}' (see references/result-schema.md)`);
      if (p99) {
        assert.equal(f.editorMessage, `sla: '${old}' is deprecated; use '${replacement}' (it limits p50, not p99: the same value is a looser limit, so review it)`);
        assert.equal(fix.title, `Replace with ${replacement} (changes the limit from p99 to p50: review the value)`);
        assert.equal(fix.changesMeaning, true, `${old}: never the preferred fix`);
        const value = /: (\d+)\n/.exec(text.slice(edit.range[0]))?.[1];
        assert.equal(edit.select && edit.newText.slice(...edit.select), value, `${old}: the value is selected for review`);
      } else {
        assert.equal(f.editorMessage, `sla: '${old}' is deprecated; use '${replacement}' (the same p50 limit under its current name)`);
        assert.deepEqual(fix, { title: `Rename to '${replacement}'`, edits: [{ range: f.range, newText: replacement }] });
      }
      seen.push(`${old} ${p99 ? 'p99' : 'same'}`);
    }
    assert.deepEqual(seen.sort(), ['max_e2e_ms same', 'max_p99_e2e_ms p99', 'max_p99_tpot_ms p99', 'max_p99_ttft_ms p99', 'max_tpot_ms same', 'max_ttft_ms same']);
    assert.deepEqual(
      Object.keys(SLA_REPLACEMENTS).map((k) => slaPercentileChange(k)),
      [{ from: 'p99', to: 'p50' }, { from: 'p99', to: 'p50' }, { from: 'p99', to: 'p50' }, undefined, undefined, undefined],
    );
    assert.equal(slaPercentileChange('max_p50_ttft_ms'), undefined);
    assert.equal(slaPercentileChange('constructor'), undefined);
  });

  test('a deprecated SLA key whose replacement is already set: the fix removes it, and says what that drops', () => {
    const both = mutate('    max_p50_ttft_ms: 2000\n', '    max_p50_ttft_ms: 2000\n    max_p99_ttft_ms: 5000\n');
    const f = checkConfigText(both).findings.find((x) => x.code === 'sla-deprecated')!;
    assert.equal(f.fixes?.[0]?.title, "Remove 'max_p99_ttft_ms' (drops the p99 limit; 'max_p50_ttft_ms' is already set)");
    assert.equal(f.fixes?.[0]?.changesMeaning, true);
    const e = f.fixes?.[0]?.edits[0];
    assert.ok(e);
    assert.equal(both.slice(0, e.range[0]) + e.newText + both.slice(e.range[1]), VALID);
    const legacy = mutate('    max_p50_tpot_ms: 80\n', '    max_tpot_ms: 60\n    max_p50_tpot_ms: 80\n');
    const g = checkConfigText(legacy).findings.find((x) => x.code === 'sla-deprecated')!;
    assert.deepEqual([g.fixes?.[0]?.title, g.fixes?.[0]?.changesMeaning], ["Remove 'max_tpot_ms' ('max_p50_tpot_ms' is already set)", undefined]);
  });

  test('a p99 key without a value on its line is renamed with nothing to select', () => {
    const text = mutate('    max_p50_ttft_ms: 2000\n', '    max_p99_ttft_ms:\n');
    const fix = checkConfigText(text).findings.find((x) => x.code === 'sla-deprecated')?.fixes?.[0];
    assert.equal(fix?.edits[0]?.newText, 'max_p50_ttft_ms');
    assert.equal(fix?.edits[0]?.select, undefined);
    assert.equal(fix?.changesMeaning, true);
  });

  test('YAML 1.1 scalars: yes/on are booleans, 0x1F and 017 are ints, 1_000 is 1000', () => {
    const r = checkConfigText(mutate('schema_version: 1', 'schema_version: 0x1'));
    assert.deepEqual(r.findings.filter((f) => f.severity === 'error'), []);
    assert.deepEqual(errors(mutate('    enabled: true\n    server_command: vllm serve', '    enabled: on\n    server_command: vllm serve')), []);
    assert.deepEqual(errors(mutate('max_model_len: 12288', 'max_model_len: 12_288')), []);
    assert.deepEqual(errors(mutate('max_model_len: 12288', 'max_model_len: 030000')), []); // octal 12288
  });
});

describe('deliberate differences from the playbook script', () => {
  test('null sections give errors, not crashes', () => {
    assert.deepEqual(errors(mutate('source:\n  kind: llm_serving_cookbook', 'source: null')), ["source.kind must be one of ['llm_serving_cookbook']"]);
    assert.deepEqual(errors(mutate('model:\n  name: Qwen/Qwen3-32B\n  tokenizer: Qwen/Qwen3-32B', 'model: null')), ['model.name must be set']);
    const nullSection = mutate('  tokenspeed:\n    enabled: false', '  tokenspeed:\n  unused:\n    enabled: false');
    assert.deepEqual(errors(nullSection), ["tokenspeed: section must be a mapping with at least 'enabled: true' or 'enabled: false'"]);
  });

  test('a non-string flag key is an error', () => {
    assert.deepEqual(errors(mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      8: 1\n')), ['vllm: flag name 8 in base_server_flags must be a string']);
  });

  test('an unbalanced quote in server_command is an error', () => {
    assert.deepEqual(errors(mutate('server_command: vllm serve', `server_command: "vllm serve --x 'oops"`)), [
      'vllm: server_command cannot be split like a shell command (No closing quotation); check its quotes',
    ]);
  });

  test('.inf sequence limits are errors', () => {
    assert.deepEqual(errors(mutate('max_model_len: 12288', 'max_model_len: .inf')), ['vllm: base max_model_len is not an integer']);
  });

  test('max_candidates_per_framework: 1 yields exactly one candidate', () => {
    const r = checkConfigText(mutate('max_candidates_per_framework: 4', 'max_candidates_per_framework: 1'));
    for (const plan of r.candidateLists) assert.equal(plan.candidates.length, 1, plan.framework);
  });

  test('duplicate mapping keys are errors', () => {
    const text = mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      max_model_len: 4096\n');
    const dup = checkConfigText(text).findings.filter((f) => f.code === 'duplicate-key');
    assert.equal(dup.length, 1);
    assert.equal(dup[0]!.severity, 'error');
    assert.equal(new LineIndex(text).positionAt(dup[0]!.range[0]).line, text.split('\n').findIndex((l) => l.includes('max_model_len: 4096')));
  });

  test("enabled: 'false' (a string) is an error, not enabled", () => {
    assert.deepEqual(errors(mutate('  tensorrt_llm:\n    enabled: false', "  tensorrt_llm:\n    enabled: 'false'")), ["tensorrt_llm: enabled must be true or false, got 'false'"]);
  });

  test('false for a default-on flag renders its disable form', () => {
    const text = mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      enable_prefix_caching: false\n');
    const vllm = checkConfigText(text).candidateLists.find((p) => p.framework === 'vllm')!;
    assert.match(vllm.candidates[0]!.command, / --no-enable-prefix-caching$/);
    const snap = loadSnapshotFlags(join(HELP, 'vllm', 'v0.20.1')).flags;
    const withSnap = checkConfigText(text, { snapshots: snap }).candidateLists.find((p) => p.framework === 'vllm')!;
    assert.match(withSnap.candidates[0]!.command, / --no-enable-prefix-caching$/);
  });

  test('false for a default-on flag with no disable form is an error', () => {
    const snapshots: SnapshotFlags = {
      vllm: {
        framework: 'vllm',
        source: 'snapshot',
        files: ['x.txt'],
        label: 'snapshot x',
        groupedSummaryOnly: false,
        flags: [
          { key: 'tensor_parallel_size', kind: 'int' },
          { key: 'gpu_memory_utilization', kind: 'float' },
          { key: 'max_model_len', kind: 'int' },
          { key: 'max_num_seqs', kind: 'int' },
          { key: 'always_on', kind: 'bool', defaultOn: true },
        ],
      },
    };
    const text = mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      always_on: false\n');
    const errs = checkConfigText(text, { snapshots }).findings.filter((f) => f.severity === 'error');
    assert.deepEqual(errs.map((f) => f.message), ["vllm: always_on is on by default and snapshot x lists no flag that turns it off; 'false' would be silently ignored"]);
  });

  test('benchmark-client help files are not merged into server flags', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-client-help-'));
    cpSync(join(HELP, 'vllm', 'v0.20.1', 'vllm_bench_serve_all.txt'), join(dir, 'vllm_bench_serve_all.txt'));
    cpSync(join(HELP, 'trtllm', 'main-benchmark_serving.py-0228a712', 'trtllm_benchmark_serving.txt'), join(dir, 'trtllm_benchmark_serving.txt'));
    const loaded = loadSnapshotFlags(dir);
    assert.deepEqual(loaded.missing, ['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed']);
  });

  test('a snapshot adds flags the built-in table lacks and drops ones the version lacks', () => {
    const snap = loadSnapshotFlags(join(HELP, 'vllm', 'v0.20.1')).flags;
    const adds = mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      enable_force_include_usage: true\n');
    assert.deepEqual(errors(adds).length, 1, 'the built-in table does not know enable_force_include_usage');
    assert.deepEqual(checkConfigText(adds, { snapshots: snap }).findings.filter((f) => f.severity === 'error'), []);
    const old = loadSnapshotFlags(join(HELP, 'vllm', 'v0.6.6')).flags;
    const drops = mutate('      max_num_seqs: [64, 128]', '      max_num_seqs: [64, 128]\n      long_prefill_token_threshold: [0, 4096]');
    assert.deepEqual(errors(drops), []);
    assert.deepEqual(
      checkConfigText(drops, { snapshots: old }).findings.filter((f) => f.severity === 'error').map((f) => f.message),
      ["vllm: unknown or unsupported server flag 'long_prefill_token_threshold'"],
    );
  });

  test('error order is deterministic across runs', () => {
    const text = mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      b_flag: 1\n      a_flag: 2\n      c_flag: 3\n');
    const first = errors(text);
    for (let i = 0; i < 5; i++) assert.deepEqual(errors(text), first);
    assert.deepEqual(first, ["vllm: unknown or unsupported server flag 'b_flag'", "vllm: unknown or unsupported server flag 'a_flag'", "vllm: unknown or unsupported server flag 'c_flag'"]);
  });
});

describe('our warnings', () => {
  const codes = (text: string) => warnings(text).map((w) => w.code);

  test('memory knob in search_space', () => {
    assert.ok(codes(mutate('      max_num_seqs: [64, 128]', '      max_num_seqs: [64, 128]\n      gpu_memory_utilization: [0.8, 0.9]')).includes('memory-knob-searched'));
  });

  test('a searched memory knob has a fix that moves it to the base flags', () => {
    const text = mutate('      gpu_memory_utilization: 0.90\n', '').replace('      max_num_seqs: [64, 128]', '      gpu_memory_utilization: [0.85, 0.9]\n      max_num_seqs: [64, 128]');
    const f = checkConfigText(text).findings.find((x) => x.code === 'memory-knob-searched')!;
    const fix = f.fixes![0]!;
    assert.equal(fix.title, 'Move gpu_memory_utilization to base_server_flags (0.85)');
    const edits = [...fix.edits].sort((a, b) => b.range[0] - a.range[0]);
    let out = text;
    for (const e of edits) out = out.slice(0, e.range[0]) + e.newText + out.slice(e.range[1]);
    assert.ok(out.includes('      max_model_len: 12288\n      gpu_memory_utilization: 0.85\n'), out);
    assert.ok(!codes(out).includes('memory-knob-searched'));
    assert.deepEqual(errors(out), []);
  });

  test('smoke-only flag outside a smoke plan, accepted in one', () => {
    const text = mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      enforce_eager: true\n');
    assert.ok(codes(text).includes('smoke-only-flag'));
    assert.ok(!codes(mutate('search:\n', 'search:\n  tier: 0\n', text)).includes('smoke-only-flag'));
  });

  test('forced vLLM block_size', () => {
    assert.ok(codes(mutate('      max_num_seqs: [64, 128]', '      max_num_seqs: [64, 128]\n      block_size: [16]')).includes('forced-block-size'));
  });

  test('DBO / all2all flags in a default pass', () => {
    assert.ok(codes(mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      enable_dbo: true\n')).includes('advanced-comm-flag'));
  });

  test('secret-looking values', () => {
    const text = mutate('server_command: vllm serve', 'server_command: HF_TOKEN=hf_abcdefghijklmnopqrstuvwx vllm serve');
    const w = warnings(text).filter((x) => x.code === 'secret-value');
    assert.equal(w.length, 1);
    assert.ok(!w[0]!.message.includes('hf_abc'), 'the warning must not repeat the secret');
    assert.ok(codes(mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      api_key: sk-abcdefghijklmnopqrstuvwx\n')).includes('secret-value'));
  });

  test('search space larger than the budget names the values never tried', () => {
    const text = mutate(
      '      chunked_prefill_size: [4096, 8192]',
      '      prefill_attention_backend: [fa3, flashinfer]\n      decode_attention_backend: [fa3, flashinfer]\n      chunked_prefill_size: [4096, 8192]\n      max_running_requests: [32, 48, 64]',
    );
    const w = warnings(text).find((x) => x.code === 'search-budget' && x.message.startsWith('sglang'));
    assert.ok(w, 'budget warning expected');
    assert.match(w.message, /24 combinations, 4 candidates will run/);
    assert.match(w.message, /never tried: .*prefill_attention_backend=flashinfer/);
  });

  test('search value equal to the base value', () => {
    assert.ok(codes(mutate('      max_num_seqs: [64, 128]', '      max_num_seqs: [64, 128]\n      max_model_len: [12288, 16384]')).includes('search-equals-base'));
  });

  test('parallel sizes disagreeing with hardware.gpu_count', () => {
    const w = warnings(mutate('      tp_size: 4', '      tp_size: 2')).filter((x) => x.code === 'parallel-mismatch');
    assert.equal(w.length, 1);
    assert.match(w[0]!.message, /tp_size=2 uses 2 GPU\(s\) but the run has 4/);
    assert.ok(!codes(VALID).includes('parallel-mismatch'));
  });

  test('model or tokenizer differing between frameworks', () => {
    assert.ok(codes(mutate('      model_path: Qwen/Qwen3-32B', '      model_path: Qwen/Qwen3-8B')).includes('fairness-model'));
    assert.ok(codes(mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      tokenizer: other/tokenizer\n')).includes('fairness-tokenizer'));
  });

  test('warnings never change the verdict', () => {
    const text = mutate('      max_num_seqs: [64, 128]', '      max_num_seqs: [64, 128]\n      block_size: [16]\n      gpu_memory_utilization: [0.8]');
    assert.deepEqual(errors(text), []);
    assert.ok(warnings(text).length >= 2);
  });
});
