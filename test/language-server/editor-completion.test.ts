// completeAt in-process: server flags from the built-in table or a --help snapshot, their values, and schema keys and values.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { builtinKnownFlags, findFlag } from '../../src/core/config/known-flags';
import { loadSnapshotFlags } from '../../src/core/config/snapshot-flags';
import { completeAt, snippetText, yamlString, type CompletionEntry } from '../../src/core/editor/completion';
import { HELP } from '../support/fixtures';
import { offsetAfter, readRepoFile, replaceOnce } from '../support/text-at';

const QWEN = readRepoFile('configs', 'cookbook-llm', 'qwen3-235b-a22b.yaml');
const BUILTIN_FOOTER = '_from the built-in flag table (vLLM 0.20.1): no `--help` snapshot applies (set `autobench.snapshots.helpDir`, a `# autobench: help-dir=` modeline, or `version_manifest` help paths)_';
const VLLM_BASE_KEYS = ['tensor_parallel_size', 'gpu_memory_utilization', 'max_model_len', 'dtype', 'enable_chunked_prefill', 'kv_cache_dtype'];

/** QWEN with one new line typed after `line` (first occurrence past `after`), and the cursor at its end. */
function typeLine(after: string, line: string, typed: string): { text: string; at: number } {
  const start = offsetAfter(QWEN, line, after);
  const text = `${QWEN.slice(0, start)}${typed}\n${QWEN.slice(start)}`;
  return { text, at: start + typed.length };
}

const labels = (entries: CompletionEntry[]) => entries.map((e) => e.label);
const choicesOf = (fw: 'vllm' | 'sglang', key: string): string[] => findFlag(builtinKnownFlags(fw), key)?.choices ?? [];

describe('flag names in a flag block', () => {
  const { text, at } = typeLine('  vllm:\n', '      dtype: auto\n', '      ');
  const entries = completeAt(text, at, 'cookbook', undefined);

  test('every vLLM flag of the built-in table not already in the block, in table order', () => {
    const expected = builtinKnownFlags('vllm').flags.map((f) => f.key).filter((k) => !VLLM_BASE_KEYS.includes(k));
    assert.deepEqual(labels(entries), expected);
    assert.ok(!labels(entries).includes('mem_fraction_static'), 'an SGLang flag offered for vLLM');
    assert.ok(entries.every((e) => e.kind === 'flag' && e.insertText.startsWith(`${e.label}: `) && e.replace[0] === at && e.replace[1] === at));
  });

  test('a boolean flag inserts its value to pick and a choice flag its choices, as snippets; a free-valued flag the key alone', () => {
    const by = (label: string) => entries.find((e) => e.label === label);
    // A key left without a value is null, which leaves the flag out: the value comes with the key.
    assert.deepEqual([by('enforce_eager')?.insertText, by('enforce_eager')?.snippet], ['enforce_eager: ${1|true,false|}', true]);
    assert.deepEqual([by('kv_offloading_backend')?.insertText, by('kv_offloading_backend')?.snippet], ['kv_offloading_backend: ${1|lmcache,native|}', true]);
    assert.deepEqual([by('max_num_seqs')?.insertText, by('max_num_seqs')?.snippet], ['max_num_seqs: ', undefined]);
    const snippets = entries.filter((e) => e.snippet).map((e) => e.label);
    const flags = builtinKnownFlags('vllm').flags.filter((f) => !VLLM_BASE_KEYS.includes(f.key));
    assert.deepEqual(snippets, flags.filter((f) => f.kind === 'bool' || f.choices?.length).map((f) => f.key));
  });

  test('a flag on by default offers false first; search_space wraps the pick in a list; a choice YAML would misread is quoted', () => {
    const onByDefault = entries.find((e) => e.label === 'async_scheduling');
    assert.equal(onByDefault?.insertText, 'async_scheduling: ${1|false,true|}');
    const search = typeLine('  vllm:\n', '    search_space:\n', '      ');
    const inSearch = completeAt(search.text, search.at, 'cookbook', undefined);
    assert.equal(inSearch.find((e) => e.label === 'enforce_eager')?.insertText, 'enforce_eager: [${1|true,false|}]');
    assert.equal(inSearch.find((e) => e.label === 'kv_offloading_backend')?.insertText, 'kv_offloading_backend: [${1|lmcache,native|}]');
    const ts = typeLine('  tokenspeed:\n', '      max_model_len: 12288\n', '      ');
    // `null` as a choice is the string: quoted, or YAML would read it as no value.
    assert.equal(completeAt(ts.text, ts.at, 'cookbook', undefined).find((e) => e.label === 'disaggregation_mode')?.insertText, "disaggregation_mode: ${1|'null',prefill,decode,encode|}");
  });

  test('an entry carries its kind and source, the markdown of its help, and sorts deprecated flags last', () => {
    assert.deepEqual(
      entries.find((e) => e.label === 'max_num_seqs'),
      {
        label: 'max_num_seqs',
        kind: 'flag',
        detail: 'int · vLLM built-in table (0.20.1)',
        documentation: `**\`--max-num-seqs\`**\n\nCap on sequences in one iteration.\n\nvalue: int\n\n${BUILTIN_FOOTER}`,
        insertText: 'max_num_seqs: ',
        replace: [at, at],
        sortText: '0max_num_seqs',
      },
    );
    assert.equal(entries.find((e) => e.label === 'kv_offloading_backend')?.detail, 'choice {lmcache,native} · vLLM built-in table (0.20.1)');
    // More than four choices are cut to four and an ellipsis.
    assert.match(entries.find((e) => e.label === 'tokenizer_mode')?.detail ?? '', /^choice \{auto(,[^,{}]+){3},…\} · vLLM built-in table \(0\.20\.1\)$/);
    const deprecated = entries.filter((e) => e.deprecated);
    assert.deepEqual(deprecated.map((e) => [e.label, e.sortText]), [['calculate_kv_scales', '1calculate_kv_scales']]);
    assert.ok(entries.filter((e) => !e.deprecated).every((e) => e.sortText === `0${e.label}` && !('deprecated' in e)));
  });

  test('a default-on flag documents its disable form', () => {
    const doc = entries.find((e) => e.label === 'enable_prefix_caching')?.documentation ?? '';
    assert.ok(doc.includes('value: bool · on by default; `false` renders `--no-enable-prefix-caching`'), doc);
  });

  test('a partial name is replaced from its start; the list is the same (the editor filters it)', () => {
    const typed = typeLine('  vllm:\n', '      dtype: auto\n', '      max_num_b');
    const partial = completeAt(typed.text, typed.at, 'cookbook', undefined);
    assert.deepEqual(labels(partial), labels(entries));
    assert.deepEqual(partial.find((e) => e.label === 'max_num_batched_tokens')?.replace, [typed.at - 9, typed.at]);
  });

  test('search_space excludes only its own keys: a base flag may still be searched', () => {
    const { text: t2, at: a2 } = typeLine('  vllm:\n', '    search_space:\n', '      ');
    const got = labels(completeAt(t2, a2, 'cookbook', undefined));
    for (const taken of ['max_num_seqs', 'max_num_batched_tokens', 'max_num_partial_prefills', 'max_long_partial_prefills', 'long_prefill_token_threshold', 'enable_prefix_caching']) {
      assert.ok(!got.includes(taken), `${taken} offered twice`);
    }
    assert.ok(got.includes('dtype') && got.includes('gpu_memory_utilization'));
  });

  test('each framework block offers its own CLI\'s flags', () => {
    const sg = typeLine('  sglang:\n', '      schedule_policy: lpm\n', '      ');
    const got = completeAt(sg.text, sg.at, 'cookbook', undefined);
    const expected = builtinKnownFlags('sglang').flags.map((f) => f.key).filter((k) => !['tp_size', 'model_path', 'mem_fraction_static', 'schedule_policy'].includes(k));
    assert.deepEqual(labels(got), expected);
    assert.ok(got.every((e) => e.detail?.endsWith(' · SGLang built-in table (main 2026-07-18)')));
  });
});

describe('flag names from a --help snapshot', () => {
  const snap = loadSnapshotFlags(join(HELP, 'vllm', 'v0.6.6')).flags;
  const { text, at } = typeLine('  vllm:\n', '      dtype: auto\n', '      ');

  test('vLLM 0.6.6 flags, labelled with the version, without flags it did not have', () => {
    const entries = completeAt(text, at, 'cookbook', snap);
    const names = labels(entries);
    assert.ok(names.includes('max_num_seqs'));
    assert.ok(!names.includes('long_prefill_token_threshold'), 'a flag vLLM 0.6.6 lacks');
    assert.ok(!names.includes('dtype'));
    assert.ok(entries.every((e) => e.detail?.endsWith(' · vLLM 0.6.6')), JSON.stringify(entries[0]));
    assert.ok(entries.every((e) => e.documentation?.endsWith('\n\n_from vLLM 0.6.6 (`vllm_serve_help.txt`)_')));
    assert.deepEqual(entries.filter((e) => e.deprecated).map((e) => e.sortText), ['1use_v2_block_manager', '1worker_use_ray']);
  });

  test('frameworks the snapshot folder does not cover keep the built-in table', () => {
    const sg = typeLine('  sglang:\n', '      schedule_policy: lpm\n', '      ');
    const entries = completeAt(sg.text, sg.at, 'cookbook', snap);
    assert.ok(entries.length > 0 && entries.every((e) => e.detail?.endsWith(' · SGLang built-in table (main 2026-07-18)')));
  });
});

describe('flag values', () => {
  test('a choice flag offers its choices in order, replacing the partial value', () => {
    const { text, at } = typeLine('  vllm:\n', '      dtype: auto\n', '      kv_cache_dtype: fp');
    const entries = completeAt(text, at, 'cookbook', undefined);
    assert.deepEqual(labels(entries), choicesOf('vllm', 'kv_cache_dtype'));
    assert.ok(labels(entries).includes('fp8'));
    assert.deepEqual(entries[0], { label: 'auto', kind: 'value', detail: 'kv_cache_dtype · vLLM built-in table (0.20.1)', insertText: 'auto', replace: [at - 2, at], sortText: '0000' });
    assert.equal(entries[3]?.sortText, '0003');
  });

  test('inside a flow list in search_space: the same choices', () => {
    const { text, at } = typeLine('  vllm:\n', '    search_space:\n', '      kv_cache_dtype: [auto, ');
    assert.deepEqual(labels(completeAt(text, at, 'cookbook', undefined)), choicesOf('vllm', 'kv_cache_dtype'));
  });

  test('a new `- ` item of a block list in search_space: the flag\'s choices', () => {
    const { text, at } = typeLine('  sglang:\n', '      - flashinfer\n', '      - ');
    // The first `- flashinfer` past `sglang:` closes prefill_attention_backend's list.
    const entries = completeAt(text, at, 'cookbook', undefined);
    assert.deepEqual(labels(entries), choicesOf('sglang', 'prefill_attention_backend'));
    assert.equal(entries[0]?.detail, 'prefill_attention_backend · SGLang built-in table (main 2026-07-18)');
  });

  test('a boolean flag offers true and false', () => {
    const { text, at } = typeLine('  vllm:\n', '      dtype: auto\n', '      enable_prefix_caching: ');
    assert.deepEqual(completeAt(text, at, 'cookbook', undefined), [
      { label: 'true', kind: 'boolean', insertText: 'true', replace: [at, at] },
      { label: 'false', kind: 'boolean', insertText: 'false', replace: [at, at] },
    ]);
  });

  test('snippet text and YAML values stand for themselves', () => {
    assert.equal(snippetText('a$b}c\\d'), 'a\\$b\\}c\\\\d');
    assert.deepEqual(['auto', 'fp8', '16', '-1', 'null', 'on', 'No', '~', 'a: b', '#x', "it's", ' pad'].map(yamlString), ['auto', 'fp8', '16', '-1', "'null'", "'on'", "'No'", "'~'", "'a: b'", "'#x'", "it's", "' pad'"]);
  });

  test('a choice YAML would misread is inserted quoted, labelled as it is', () => {
    const { text, at } = typeLine('  tokenspeed:\n', '      max_model_len: 12288\n', '      disaggregation_mode: ');
    const first = completeAt(text, at, 'cookbook', undefined)[0];
    assert.deepEqual([first?.label, first?.insertText], ['null', "'null'"]);
  });

  test('a free-valued flag and an unknown flag offer nothing', () => {
    const int = typeLine('  vllm:\n', '      dtype: auto\n', '      max_num_seqs: ');
    assert.deepEqual(completeAt(int.text, int.at, 'cookbook', undefined), []);
    const unknown = typeLine('  vllm:\n', '      dtype: auto\n', '      zzz: ');
    assert.deepEqual(completeAt(unknown.text, unknown.at, 'cookbook', undefined), []);
  });
});

describe('schema keys and values', () => {
  test('the hardware keys not yet present, with type and description', () => {
    const { text, at } = typeLine('hardware:\n', '  gpu_count: 8\n', '  ');
    assert.deepEqual(completeAt(text, at, 'cookbook', undefined), [
      {
        label: 'gpu_model',
        kind: 'property',
        insertText: 'gpu_model: ',
        replace: [at, at],
        sortText: '0gpu_model',
        detail: 'string',
        documentation: 'GPU model name, recorded for the fairness audit (not used for scheduling).',
      },
    ]);
  });

  test('a boolean key and a key with a closed set of values insert the value to pick; a free key does not', () => {
    const hw = typeLine('hardware:\n', '  gpu_count: 8\n', '  ');
    // multi_node is taken in QWEN: drop it to see its completion.
    const text = replaceOnce(hw.text, '  multi_node: false\n', '');
    const at = hw.at;
    const entries = completeAt(text, at, 'cookbook', undefined);
    const multi = entries.find((e) => e.label === 'multi_node');
    assert.deepEqual([multi?.insertText, multi?.snippet], ['multi_node: ${1|true,false|}', true]);
    const search = replaceOnce(QWEN, '  candidate_generation: coverage_first\n', '  \n');
    const s = completeAt(search, offsetAfter(search, '  max_candidates_per_framework: 10\n  '), 'cookbook', undefined);
    assert.deepEqual(s.find((e) => e.label === 'candidate_generation')?.insertText, 'candidate_generation: ${1|baseline_first_bounded_product,coverage_first|}');
    assert.deepEqual(labels(entries.filter((e) => !e.snippet)), ['gpu_model']);
  });

  test('a key whose value is a block opens it on the next line, one level deeper', () => {
    const { text, at } = typeLine('benchmark:\n', '  endpoint: /v1/completions\n', '  ');
    const entries = completeAt(text, at, 'cookbook', undefined);
    assert.deepEqual(labels(entries), ['request_rates', 'framework_set']);
    assert.deepEqual(entries.map((e) => e.insertText), ['request_rates: ', 'framework_set:\n    ']);
    assert.deepEqual(entries.map((e) => e.detail), ['array | number | null', 'array']);
  });

  test('top-level keys follow the schema of the document kind, in schema order', () => {
    const text = replaceOnce(QWEN, 'search:\n  tier: 2\n  max_candidates_per_framework: 10\n  candidate_generation: coverage_first\n  resume: true\n', '\n');
    const at = offsetAfter(text, '/qwen3-235b-a22b\n');
    assert.deepEqual(labels(completeAt(text, at, 'cookbook', undefined)), ['slurm', 'secrets', 'sla', 'search', 'version_manifest', 'verdict', 'cost']);
    assert.deepEqual(labels(completeAt(text, at, 'plan', undefined)), ['version_manifest', 'slurm', 'secrets', 'sla', 'search', 'verdict', 'cost']);
    assert.equal(completeAt(text, at, 'cookbook', undefined)[3]?.insertText, 'search:\n  ');
  });

  test('deprecated SLA keys are marked and sort after the current ones', () => {
    const { text, at } = typeLine('  sla:\n', '    min_success_rate: 0.99\n', '    ');
    const entries = completeAt(text, at, 'cookbook', undefined);
    assert.deepEqual(
      entries.map((e) => [e.label, e.sortText, e.deprecated ?? false]),
      [
        ['max_p50_e2e_ms', '0max_p50_e2e_ms', false],
        ['max_p99_ttft_ms', '1max_p99_ttft_ms', true],
        ['max_p99_tpot_ms', '1max_p99_tpot_ms', true],
        ['max_p99_e2e_ms', '1max_p99_e2e_ms', true],
        ['max_ttft_ms', '1max_ttft_ms', true],
        ['max_tpot_ms', '1max_tpot_ms', true],
        ['max_e2e_ms', '1max_e2e_ms', true],
      ],
    );
  });

  test('an enum value: the schema\'s values in order, detail the key', () => {
    const at = offsetAfter(QWEN, '  candidate_generation: ');
    assert.deepEqual(completeAt(QWEN, at, 'cookbook', undefined), [
      { label: 'baseline_first_bounded_product', kind: 'value', detail: 'candidate_generation', insertText: 'baseline_first_bounded_product', replace: [at, at], sortText: '0000' },
      { label: 'coverage_first', kind: 'value', detail: 'candidate_generation', insertText: 'coverage_first', replace: [at, at], sortText: '0001' },
    ]);
    const tier = offsetAfter(QWEN, '  tier: ');
    assert.deepEqual(labels(completeAt(QWEN, tier, 'cookbook', undefined)), ['1', '2', '3']);
  });

  test('a list item takes the values of the list\'s items', () => {
    const text = readRepoFile('configs', 'examples', 'demo.plan.yaml');
    const at = offsetAfter(text, '  framework_set: [sglang, ');
    assert.deepEqual(labels(completeAt(text, at, 'plan', undefined)), ['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed']);
  });

  test('a boolean key offers true and false; a free string offers nothing', () => {
    const at = offsetAfter(QWEN, '  multi_node: ');
    assert.deepEqual(labels(completeAt(QWEN, at, 'cookbook', undefined)), ['true', 'false']);
    assert.ok(completeAt(QWEN, at, 'cookbook', undefined).every((e) => e.kind === 'boolean'));
    const name = offsetAfter(QWEN, '  name: ');
    assert.deepEqual(completeAt(QWEN, name, 'cookbook', undefined), []);
  });
});
