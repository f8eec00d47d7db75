// hoverAt and nodePathAt in-process: flag help with its source (built-in table or snapshot), scenario lengths, schema descriptions, exact ranges.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkConfigText } from '../../src/core/config/check';
import { loadSnapshotFlags } from '../../src/core/config/snapshot-flags';
import { hoverAt, nodePathAt } from '../../src/core/editor/hover';
import { FIXTURES, HELP } from '../support/fixtures';
import { indexOfOnce, readRepoFile, replaceOnce, spanOf } from '../support/text-at';

const QWEN = readRepoFile('configs', 'cookbook-llm', 'qwen3-235b-a22b.yaml');
const PLAN = readFileSync(join(FIXTURES, 'plans', 'example-plan.yaml'), 'utf8');
/** The hover's last line for a framework on the built-in table: the version that table follows, and how to use a snapshot. */
const builtinFooter = (fwVersion: string) =>
  `_from the built-in flag table (${fwVersion}): no \`--help\` snapshot applies (set \`autobench.snapshots.helpDir\`, a \`# autobench: help-dir=\` modeline, or \`version_manifest\` help paths)_`;
const BUILTIN_FOOTER = builtinFooter('vLLM 0.20.1');
const SGLANG_FOOTER = builtinFooter('SGLang main 2026-07-18');
const qwen = checkConfigText(QWEN);

describe('hover on server flags', () => {
  test('a flag key: its option, help, facts and the built-in table as source; the range is the key', () => {
    const key = spanOf(QWEN, 'max_num_seqs', '  vllm:\n');
    assert.deepEqual(hoverAt(qwen, key[0] + 3, undefined), {
      markdown: `**\`--max-num-seqs\`**\n\nCap on sequences in one iteration.\n\nvalue: int\n\n${BUILTIN_FOOTER}`,
      range: key,
    });
    // Both ends of the key count as on it.
    assert.deepEqual(hoverAt(qwen, key[0], undefined)?.range, key);
    assert.deepEqual(hoverAt(qwen, key[1], undefined)?.range, key);
  });

  test('a value in a search-space list: the same flag help, the range is the value', () => {
    const value = spanOf(QWEN, '48', '  vllm:\n');
    const h = hoverAt(qwen, value[0] + 1, undefined);
    assert.deepEqual(h?.range, value);
    assert.match(h?.markdown ?? '', /^\*\*`--max-num-seqs`\*\*\n\n/);
  });

  test('an SGLang flag names its aliases; a default-on flag its disable form', () => {
    const tp = spanOf(QWEN, 'tp_size', '  sglang:\n');
    assert.equal(hoverAt(qwen, tp[0], undefined)?.markdown, `**\`--tp-size\`** (also \`tensor_parallel_size\`)\n\nTensor parallel size.\n\nvalue: int\n\n${SGLANG_FOOTER}`);
    const caching = spanOf(QWEN, 'enable_prefix_caching', '  vllm:\n');
    assert.match(hoverAt(qwen, caching[0], undefined)?.markdown ?? '', /\n\nvalue: bool · on by default; `false` renders `--no-enable-prefix-caching`\n\n/);
  });

  test('an unknown flag says so, and against what', () => {
    const text = replaceOnce(QWEN, '      dtype: auto\n      enable_chunked_prefill', '      dtype: auto\n      zzz: 1\n      enable_chunked_prefill');
    const key = spanOf(text, 'zzz');
    assert.deepEqual(hoverAt(checkConfigText(text), key[0] + 1, undefined), {
      markdown: '`zzz` is not a flag of this vllm CLI.\n\n_checked against the built-in flag table (vLLM 0.20.1)_',
      range: key,
    });
  });

  test('with a vLLM 0.6.6 snapshot: its help text and file, and the flags it lacks', () => {
    const snap = loadSnapshotFlags(join(HELP, 'vllm', 'v0.6.6')).flags;
    const r = checkConfigText(QWEN, { snapshots: snap });
    const seqs = spanOf(QWEN, 'max_num_seqs', '  vllm:\n');
    const md = hoverAt(r, seqs[0], snap)?.markdown ?? '';
    assert.match(md, /^\*\*`--max-num-seqs`\*\*\n\nMaximum number of sequences per iteration\.\n\n/);
    assert.ok(md.endsWith('\n\n_from vLLM 0.6.6 (`vllm_serve_help.txt`)_'), md);
    const missing = spanOf(QWEN, 'long_prefill_token_threshold');
    assert.deepEqual(hoverAt(r, missing[0], snap), {
      markdown: '`long_prefill_token_threshold` is not a flag of this vllm CLI.\n\n_checked against snapshot v0.6.6/vllm_serve_help.txt_',
      range: missing,
    });
    // SGLang is not in that folder: its flags still come from the built-in table.
    assert.ok(hoverAt(r, spanOf(QWEN, 'tp_size', '  sglang:\n')[0], snap)?.markdown.endsWith(SGLANG_FOOTER));
  });
});

describe('hover on scenarios', () => {
  const SUMMARY = "**Scenario 2: `summarization`**\n\ninput 8000 + output 1000 = **9000** tokens\n\nEvery framework's sequence limit must be at least 9000, the largest scenario.";
  const CHAT = "**Scenario 1: `chat`**\n\ninput 1000 + output 1000 = **2000** tokens\n\nEvery framework's sequence limit must be at least 9000, the largest scenario.";

  test('an input length shows its scenario and the required sequence limit', () => {
    const v = spanOf(QWEN, '8000', '  input_len:\n');
    assert.deepEqual(hoverAt(qwen, v[0] + 2, undefined), { markdown: SUMMARY, range: v });
  });

  test('the name and the output length of a scenario show the same', () => {
    const name = spanOf(QWEN, 'chat', '  scenario_names:\n');
    assert.deepEqual(hoverAt(qwen, name[0], undefined), { markdown: CHAT, range: name });
    const out = spanOf(QWEN, '1000', '  output_len:\n');
    assert.deepEqual(hoverAt(qwen, out[0], undefined), { markdown: CHAT, range: out });
  });
});

describe('hover from the schema', () => {
  test('a key: its name and the schema description', () => {
    const k = spanOf(QWEN, 'max_p50_ttft_ms');
    // An SLA key names our page on SLA keys, which the language server links.
    assert.deepEqual(hoverAt(qwen, k[0], undefined), { markdown: '**max_p50_ttft_ms**\n\nHighest acceptable median time to first token, in milliseconds.', range: k, doc: 'sla' });
    const top = spanOf(QWEN, 'schema_version');
    assert.deepEqual(hoverAt(qwen, 0, undefined), { markdown: '**schema_version**\n\nVersion of this config format. Only version 1 exists.', range: top });
  });

  test('a scalar value shows its key\'s description; a list item its item description, untitled', () => {
    const v = spanOf(QWEN, 'llm_serving_cookbook');
    assert.deepEqual(hoverAt(qwen, v[0], undefined), { markdown: '**kind**\n\nThe kind of source document this config was derived from.', range: v });
    const item = spanOf(QWEN, 'null', '  max_concurrency:\n');
    assert.deepEqual(hoverAt(qwen, item[0], undefined), { markdown: 'Most requests in flight at once, or null for no cap.', range: item });
  });

  test('the description follows the document kind (plan or cookbook schema)', () => {
    const at = indexOfOnce(PLAN, 'version_manifest:');
    const plan = checkConfigText(PLAN, { kind: 'auto' });
    assert.equal(plan.kind, 'plan');
    assert.equal(
      hoverAt(plan, at, undefined)?.markdown,
      '**version_manifest**\n\nPer framework: container image, package version, git commit and the paths of the captured --help outputs used to check flags.',
    );
    assert.equal(
      hoverAt(checkConfigText(PLAN, { kind: 'cookbook' }), at, undefined)?.markdown,
      '**version_manifest**\n\nPer framework: the container image, package version, git commit and the captured --help files the run was checked against.',
    );
  });

  test('no hover where the schema says nothing, between lines, or in a comment', () => {
    assert.equal(hoverAt(qwen, spanOf(QWEN, 'temperature')[0], undefined), undefined);
    assert.equal(hoverAt(qwen, spanOf(QWEN, 'source:\n')[1], undefined), undefined);
    assert.equal(hoverAt(checkConfigText(PLAN, { kind: 'auto' }), 2, undefined), undefined);
  });
});

describe('no hover between keys and values', () => {
  test('in the indentation before a key: nothing, not the enclosing key', () => {
    const key = spanOf(QWEN, 'max_num_seqs', '  vllm:\n');
    const lineStart = QWEN.lastIndexOf('\n', key[0]) + 1;
    for (let at = lineStart; at < key[0]; at++) assert.equal(hoverAt(qwen, at, undefined), undefined, `column ${at - lineStart}`);
    assert.ok(hoverAt(qwen, key[0], undefined), 'the key itself still hovers');
    // The same for a schema key and for the items of a block list.
    const tier = spanOf(QWEN, 'tier');
    assert.equal(hoverAt(qwen, tier[0] - 1, undefined), undefined);
    const item = spanOf(QWEN, '- 48', '  vllm:\n');
    assert.equal(hoverAt(qwen, item[0] - 1, undefined), undefined);
  });

  test('after the colon, before the value: nothing', () => {
    const key = spanOf(QWEN, 'tp_size', '  sglang:\n');
    assert.equal(QWEN[key[1] + 1], ' ');
    assert.equal(hoverAt(qwen, key[1] + 1, undefined), undefined);
    assert.equal(nodePathAt(qwen.root, key[1] + 1), undefined);
  });
});

describe('nodePathAt', () => {
  test('the deepest key or value under an offset, and whether it is the key', () => {
    const key = spanOf(QWEN, 'tp_size', '  tensorrt_llm:\n');
    assert.deepEqual(nodePathAt(qwen.root, key[0]), { path: ['frameworks', 'tensorrt_llm', 'base_server_flags', 'tp_size'], onKey: true, range: key });
    const value = spanOf(QWEN, '16384', '  tensorrt_llm:\n');
    assert.deepEqual(nodePathAt(qwen.root, value[1]), { path: ['frameworks', 'tensorrt_llm', 'search_space', 'max_num_tokens', 1], onKey: false, range: value });
    assert.equal(nodePathAt(undefined, 0), undefined);
  });
});
