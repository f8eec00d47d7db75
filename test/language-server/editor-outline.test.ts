// outline.ts in-process: document symbols with exact ranges, the code lenses per framework, the candidate summaries and the "Show commands" listing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkConfigText } from '../../src/core/config/check';
import type { Range } from '../../src/core/config/yaml-doc';
import { shlexJoin } from '../../src/core/candidates/shell';
import { candidateProblems, wrapArgv } from '../../src/core/editor/candidate-problems';
import { candidateSummaries, commandsListing, frameworkErrors, lensesFor, outlineFor, type OutlineSymbol } from '../../src/core/editor/outline';
import { SHIPPED, VALID, mutate, yamlFiles } from '../support/fixtures';
import { indexOfOnce, readRepoFile, spanOf } from '../support/text-at';

const QWEN = readRepoFile('configs', 'cookbook-llm', 'qwen3-235b-a22b.yaml');
const DEMO = readRepoFile('configs', 'examples', 'demo.plan.yaml');
const qwen = checkConfigText(QWEN);

/** The offsets of a mapping key that opens a block at `indent` columns. */
function keySpan(key: string, indent = 0): Range {
  const at = indexOfOnce(QWEN, `\n${' '.repeat(indent)}${key}:\n`) + 1 + indent;
  return [at, at + key.length];
}
/** From a key to where the next line (`before`) starts: a block value's range ends after its last newline. */
const from = (key: Range, before?: string): Range => [key[0], before === undefined ? QWEN.length : indexOfOnce(QWEN, before) + 1];
const contains = (outer: Range, inner: Range) => outer[0] <= inner[0] && inner[1] <= outer[1];

describe('outline of the shipped qwen3-235b-a22b config', () => {
  const count = (fw: string) => qwen.candidateLists.find((p) => p.framework === fw)?.candidates.length;

  test('model, scenarios and frameworks with exact ranges, selections and details', () => {
    const fwKey = (fw: string) => keySpan(fw, 2);
    assert.deepEqual(outlineFor(qwen), [
      { name: 'model', detail: 'Qwen/Qwen3-235B-A22B', kind: 'module', range: from(keySpan('model'), '\nhardware:'), selection: keySpan('model') },
      {
        name: 'scenarios',
        detail: '2, longest 9000 tokens',
        kind: 'array',
        range: from(keySpan('dataset'), '\nbenchmark:'),
        selection: keySpan('dataset'),
        // Each scenario points at its input length.
        children: [
          { name: 'chat', detail: '1000 → 1000', kind: 'event', range: spanOf(QWEN, '1000', '  input_len:\n'), selection: spanOf(QWEN, '1000', '  input_len:\n') },
          { name: 'summarization', detail: '8000 → 1000', kind: 'event', range: spanOf(QWEN, '8000'), selection: spanOf(QWEN, '8000') },
        ],
      },
      {
        name: 'frameworks',
        kind: 'module',
        range: from(keySpan('frameworks')),
        selection: keySpan('frameworks'),
        children: [
          { name: 'sglang', detail: `${count('sglang')} candidates`, kind: 'object', range: from(fwKey('sglang'), '\n  vllm:'), selection: fwKey('sglang') },
          { name: 'vllm', detail: `${count('vllm')} candidates`, kind: 'object', range: from(fwKey('vllm'), '\n  tensorrt_llm:'), selection: fwKey('vllm') },
          { name: 'tensorrt_llm', detail: `${count('tensorrt_llm')} candidates`, kind: 'object', range: from(fwKey('tensorrt_llm'), '\n  tokenspeed:'), selection: fwKey('tensorrt_llm') },
          { name: 'tokenspeed', detail: `${count('tokenspeed')} candidates`, kind: 'object', range: from(fwKey('tokenspeed')), selection: fwKey('tokenspeed') },
        ],
      },
    ]);
    // Plural details, as the stdio test expects (/^\d+ candidates$/).
    assert.ok(qwen.candidateLists.every((p) => p.candidates.length > 1));
  });
});

describe('outline details', () => {
  test('disabled frameworks are excluded, a broken one has errors, a single candidate is singular', () => {
    const text = mutate('server_command: vllm serve', "server_command: ''", mutate('max_candidates_per_framework: 4', 'max_candidates_per_framework: 1'));
    const frameworks = outlineFor(checkConfigText(text)).find((s) => s.name === 'frameworks');
    assert.deepEqual(frameworks?.children?.map((c) => [c.name, c.detail]), [
      ['sglang', '1 candidate'],
      ['vllm', 'has errors'],
      ['tensorrt_llm', 'excluded'],
      ['tokenspeed', 'excluded'],
    ]);
  });

  test('the demo plan: a framework left out of framework_set is excluded', () => {
    const syms = outlineFor(checkConfigText(DEMO, { kind: 'auto' }));
    assert.deepEqual(syms.map((s) => [s.name, s.detail]), [
      ['model', 'Qwen/Qwen3-8B'],
      ['scenarios', '2, longest 3200 tokens'],
      ['frameworks', undefined],
    ]);
    assert.deepEqual(syms[1]?.children?.map((c) => `${c.name} ${c.detail}`), ['chat 512 → 128', 'summarization 3072 → 128']);
    assert.deepEqual(syms[2]?.children?.map((c) => [c.name, c.detail]), [
      ['sglang', '3 candidates'],
      ['vllm', '3 candidates'],
      ['tensorrt_llm', '3 candidates'],
      ['tokenspeed', 'excluded'],
    ]);
  });

  test('only the sections present appear; an unparsable document has none', () => {
    assert.deepEqual(outlineFor(checkConfigText('model: {}\n')), [{ name: 'model', detail: '', kind: 'module', range: [0, 9], selection: [0, 5] }]);
    assert.deepEqual(outlineFor(checkConfigText('a: [\n')), []);
  });

  test('every shipped config: each range holds its selection and its children, frameworks in document order', () => {
    const files = yamlFiles(SHIPPED);
    assert.ok(files.length >= 30, `only ${files.length} shipped configs`);
    const wellFormed = (s: OutlineSymbol, parent?: Range): boolean =>
      contains(s.range, s.selection) && (parent === undefined || contains(parent, s.range)) && (s.children ?? []).every((c) => wellFormed(c, s.range));
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const r = checkConfigText(text);
      const syms = outlineFor(r);
      assert.deepEqual(syms.map((s) => s.name), ['model', 'scenarios', 'frameworks'], file);
      assert.ok(syms.every((s) => wellFormed(s)), file);
      assert.equal(syms[1]?.children?.length, r.model.scenarios.length, file);
      const names = syms[2]?.children?.map((c) => c.name) ?? [];
      const order = names.map((n) => text.indexOf(`\n  ${n}:`));
      assert.ok(order.every((o, i) => o > 0 && (i === 0 || o > (order[i - 1] ?? 0))), `${file}: ${names.join(',')}`);
      // The shipped set validates clean, so no framework shows errors.
      assert.ok(!syms[2]?.children?.some((c) => c.detail === 'has errors'), file);
    }
  });
});

describe('code lenses', () => {
  test('five lenses on each enabled framework\'s key: the count, Show commands and the three runs', () => {
    const lenses = lensesFor(qwen);
    assert.equal(lenses.length, 20);
    for (const plan of qwen.candidateLists) {
      const range = keySpan(plan.framework, 2);
      const here = lenses.filter((l) => l.framework === plan.framework);
      assert.deepEqual(here, [
        { range, framework: plan.framework, title: `${plan.candidates.length} candidates`, command: 'autobench.pickCandidate' },
        { range, framework: plan.framework, title: 'Show commands', command: 'autobench.showCandidates' },
        { range, framework: plan.framework, title: 'Run baseline', command: 'autobench.runBaseline' },
        { range, framework: plan.framework, title: 'Run candidate…', command: 'autobench.runCandidate' },
        { range, framework: plan.framework, title: 'Run all', command: 'autobench.runAll' },
      ]);
    }
  });

  test('no lenses on disabled or broken frameworks; one candidate is singular', () => {
    const text = mutate('server_command: vllm serve', "server_command: ''", mutate('max_candidates_per_framework: 4', 'max_candidates_per_framework: 1'));
    const lenses = lensesFor(checkConfigText(text));
    assert.deepEqual(lenses.map((l) => `${l.framework}: ${l.title}`), ['sglang: 1 candidate', 'sglang: Show commands', 'sglang: Run baseline', 'sglang: Run candidate…', 'sglang: Run all']);
    assert.deepEqual(lensesFor(checkConfigText(VALID)).map((l) => l.framework), ['sglang', 'sglang', 'sglang', 'sglang', 'sglang', 'vllm', 'vllm', 'vllm', 'vllm', 'vllm']);
  });
});

describe('run lenses on a framework with errors', () => {
  test('an unknown flag in vllm: its run lenses say "(1 error)", the other framework\'s do not, the counts stay', () => {
    const text = DEMO.replace('      max_model_len: 4096\n', '      max_model_len: 4096\n      totally_bogus_flag: 1\n');
    assert.notEqual(text, DEMO);
    const r = checkConfigText(text, { kind: 'auto' });
    assert.deepEqual(frameworkErrors(r, 'vllm').map((f) => f.path.join('.')), ['frameworks.vllm.base_server_flags.totally_bogus_flag']);
    const titles = (fw: string) => lensesFor(r).filter((l) => l.framework === fw).map((l) => l.title);
    // The flag is a base flag: every candidate passes it, so every one is invalid, and the listing says why.
    assert.deepEqual(titles('vllm'), ['3 candidates (all invalid)', 'Show commands', 'Run baseline (1 error)', 'Run candidate… (1 error)', 'Run all (1 error)']);
    assert.deepEqual(titles('sglang'), ['3 candidates', 'Show commands', 'Run baseline', 'Run candidate…', 'Run all']);
    const marks = commandsListing('p.yaml', r, 'vllm').split('\n').filter((l) => l.startsWith('# ') && !l.startsWith('# p.yaml'));
    assert.deepEqual(marks.map((l) => l.replace(/ — INVALID: .*/, ' — INVALID')), ['# baseline — INVALID', '# c1: max_num_seqs=8 — INVALID', '# c2: max_num_seqs=28 — INVALID']);
    assert.match(marks[0] ?? '', /INVALID: vllm: unknown or unsupported server flag 'totally_bogus_flag'/);
    assert.deepEqual(candidateSummaries(r).vllm?.map((c) => c.problems?.length ?? 0), [1, 1, 1]);
  });

  test('an unknown value in the search space makes only the candidates that pass it invalid', () => {
    const text = DEMO.replace('      max_num_seqs: [8, 28]\n', '      max_num_seqs: [8, 28]\n      bogus_search_flag: [1]\n');
    assert.notEqual(text, DEMO);
    const r = checkConfigText(text, { kind: 'auto' });
    const vllm = r.candidateLists.find((p) => p.framework === 'vllm');
    assert.ok(vllm);
    const problems = candidateProblems(r, vllm);
    assert.deepEqual(vllm.candidates.map((c, i) => `${c.id}:${problems[i]?.length ?? 0}`), vllm.candidates.map((c) => `${c.id}:${c.overrides.has('bogus_search_flag') ? 1 : 0}`));
    assert.ok(vllm.candidates.some((c) => c.overrides.has('bogus_search_flag')) && problems[0]?.length === 0, 'the baseline does not pass it');
  });

  test('wrapping keeps every word, quotes included, and breaks only before an option', () => {
    const argv = ['python', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3 8B', '--json-model-override-args', '{"a": 1}', '--max-running-requests', '-1'];
    const cmd = shlexJoin(argv);
    assert.equal(cmd, "python -m sglang.launch_server --model-path 'Qwen/Qwen3 8B' --json-model-override-args '{\"a\": 1}' --max-running-requests -1");
    const wrapped = wrapArgv(argv);
    assert.equal(wrapped, "python -m sglang.launch_server \\\n  --model-path 'Qwen/Qwen3 8B' \\\n  --json-model-override-args '{\"a\": 1}' \\\n  --max-running-requests -1");
    assert.equal(wrapped.replace(/ \\\n {2}/g, ' '), cmd);
  });
});

describe('candidates for Run candidate… and Show commands', () => {
  const demo = checkConfigText(DEMO, { kind: 'auto' });

  test('the demo plan\'s candidates: ids, overrides against the base flags, exact commands', () => {
    const s = candidateSummaries(demo);
    assert.deepEqual(Object.keys(s), ['sglang', 'vllm', 'tensorrt_llm']);
    assert.deepEqual(s.vllm, [
      { id: 'baseline', overrides: '', command: 'vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1 --gpu-memory-utilization 0.9 --max-model-len 4096' },
      { id: 'c1', overrides: 'max_num_seqs=8', command: 'vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1 --gpu-memory-utilization 0.9 --max-model-len 4096 --max-num-seqs 8' },
      { id: 'c2', overrides: 'max_num_seqs=28', command: 'vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1 --gpu-memory-utilization 0.9 --max-model-len 4096 --max-num-seqs 28' },
    ]);
    assert.deepEqual(s.sglang?.map((c) => c.overrides), ['', 'max_running_requests=8', 'max_running_requests=64']);
    for (const p of demo.candidateLists) assert.deepEqual(s[p.framework]?.map((c) => c.command), p.candidates.map((c) => c.command));
  });

  test('the listing: a header, then per framework its source and every command under its id', () => {
    const listing = commandsListing('/somewhere/demo.plan.yaml', demo, 'vllm');
    const lines = listing.split('\n');
    assert.equal(lines[0], '# demo.plan.yaml: candidate commands (the exact strings of `autobench validate --json`)');
    assert.equal(lines[1], '');
    assert.match(lines[2] ?? '', /^## vLLM \(vllm\): 3 of \S+ combinations, coverage_first, flags from vLLM built-in table \(0\.20\.1\)$/);
    // One option per line with `\` continuations: the same words as the exact command.
    const base = ['vllm serve Qwen/Qwen3-8B \\', '  --tensor-parallel-size 1 \\', '  --gpu-memory-utilization 0.9 \\'];
    assert.deepEqual(lines.slice(3), [
      '# baseline',
      ...base,
      '  --max-model-len 4096',
      '# c1: max_num_seqs=8',
      ...base,
      '  --max-model-len 4096 \\',
      '  --max-num-seqs 8',
      '# c2: max_num_seqs=28',
      ...base,
      '  --max-model-len 4096 \\',
      '  --max-num-seqs 28',
      '',
    ]);
    const all = commandsListing('/somewhere/demo.plan.yaml', demo);
    assert.deepEqual(all.split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(0, l.indexOf(':'))), ['## SGLang (sglang)', '## vLLM (vllm)', '## TensorRT-LLM (tensorrt_llm)']);
    const unwrapped = all.replace(/ \\\n {2}/g, ' ');
    for (const p of demo.candidateLists) for (const c of p.candidates) assert.ok(unwrapped.includes(`\n${c.command}\n`), c.command);
  });

  test('values the budget never reaches are listed; no usable framework says what to do', () => {
    const small = checkConfigText(mutate('max_candidates_per_framework: 4', 'max_candidates_per_framework: 1'));
    const listing = commandsListing('v.yaml', small, 'sglang');
    assert.ok(listing.endsWith('\n# never tried within the budget: chunked_prefill_size=4096, chunked_prefill_size=8192\n'), listing);
    assert.equal(
      commandsListing('/a/x.yaml', checkConfigText('model: {}\n')),
      '# x.yaml: candidate commands (the exact strings of `autobench validate --json`)\n\n# no enabled framework without errors: fix the problems first\n',
    );
  });
});
