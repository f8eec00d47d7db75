// Incremental analysis in-process: after any sequence of edits, the sections reused from earlier versions and the cached
// candidate lists give exactly the parse, findings and candidates of a fresh analysis; what cannot be split safely is parsed whole.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { checkConfigText, listCandidates, type CheckResult } from '../../src/core/config/check';
import { commandsListing, lensesFor } from '../../src/core/editor/outline';
import { parseYaml } from '../../src/core/config/yaml-doc';
import { DEFAULT_SETTINGS } from '../../src/shared/protocol';
import { Analyzer, type Analysis } from '../../language-server/src/analysis';
import { IncrementalParser } from '../../language-server/src/incremental-parse';
import { splitItems } from '../../language-server/src/list-runs';
import { splitBody, splitSections } from '../../language-server/src/sections';
import { SnapshotCache } from '../../language-server/src/snapshot-cache';
import { largeConfig, longListConfig } from '../../bench/large-config';
import { SHIPPED } from '../support/fixtures';
import { readRepoFile, replaceOnce } from '../support/text-at';

const MIMO = readRepoFile('configs', 'cookbook-llm', 'mimo-v2-flash.yaml');
const URI = 'file:///tmp/autobench-incremental/doc.yaml';

const newAnalyzer = () => new Analyzer(new SnapshotCache(), () => DEFAULT_SETTINGS, () => []);

/** Deterministic edits (a linear congruential generator): inserts of YAML-ish fragments and deletions anywhere. */
function edits(seed: number) {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces = ['x', ' ', '\n', ':', '- ', '#', '"', '  ', '\n  ', 'k: 1\n', '[', '{', '*a', '&a ', '7', '.', '\t', '\nfoo: 1\n', '---\n', 'model:\n  name: z\n', 'yes: 1\n', '|\n', '\r'];
  return (text: string): string => {
    const at = Math.floor(rnd() * text.length);
    if (rnd() < 0.6) return text.slice(0, at) + pieces[Math.floor(rnd() * pieces.length)]! + text.slice(at);
    return text.slice(0, at) + text.slice(at + 1 + Math.floor(rnd() * 4));
  };
}

/** A check result as a user sees it: findings, then each candidate list with its rendered commands. */
function visible(r: CheckResult) {
  return {
    findings: r.findings,
    lists: r.candidateLists.map((l) => ({ ...l, section: undefined, candidates: l.candidates.map((c) => ({ ...c })) })),
  };
}

function assertSameAsFresh(a: Analysis, label: string): CheckResult {
  const fresh = checkConfigText(a.text, { kind: 'auto' });
  assert.deepStrictEqual(a.result.root, fresh.root, `${label}: parse`);
  assert.deepStrictEqual(visible(a.result), visible(fresh), `${label}: findings and candidates`);
  return fresh;
}

describe('the incremental parse is the whole parse', () => {
  const texts = [...readdirSync(SHIPPED).map((f) => readRepoFile('configs', 'cookbook-llm', f)), largeConfig(300)];

  test('after 25 random edits of every shipped config and a generated one, version by version', () => {
    let reused = 0;
    texts.forEach((start, i) => {
      const p = new IncrementalParser();
      const edit = edits(i + 1);
      let text = start;
      for (let n = 0; n < 25; n++) {
        const next = edit(text);
        const whole = parseYaml(next);
        assert.deepStrictEqual(p.parse(next), whole, `config ${i}, edit ${n}: ${JSON.stringify(next.slice(0, 80))}`);
        // Walk on from clean versions, as typing mostly does; broken ones are still compared.
        if (whole.problems.length === 0) text = next;
      }
      reused += p.counts.reused;
    });
    assert.ok(reused > 300, `sections were reused (${reused})`);
  });

  test('an edit re-parses only the innermost entry it is in (key lines above included); the rest is reused, its offsets moved', () => {
    const p = new IncrementalParser();
    p.parse(MIMO);
    let text = MIMO;
    for (const [from, to, part] of [
      ['  tokenizer: XiaomiMiMo/MiMo-V2-Flash\n  precision', '  tokenizer: XiaomiMiMo/MiMo-V2-Flashx\n  precision', 'model:\n  tokenizer: XiaomiMiMo/MiMo-V2-Flashx\n'],
      [
        '      - 8192\n      - 16384\n      max_num_partial_prefills',
        '      - 8192\n      - 32768\n      max_num_partial_prefills',
        'frameworks:\n  vllm:\n    search_space:\n      max_num_batched_tokens:\n      - 8192\n      - 32768\n',
      ],
    ]) {
      text = replaceOnce(text, from!, to!);
      const before = { ...p.counts };
      assert.deepStrictEqual(p.parse(text), parseYaml(text));
      assert.equal(p.counts.parsed - before.parsed, 1, `one part parsed after ${JSON.stringify(to)}`);
      assert.equal(p.counts.parsedChars - before.parsedChars, part!.length, `only ${JSON.stringify(part)} parsed`);
    }
    assert.equal(p.counts.whole, 0);
  });

  test('entries are cut at every level: a block mapping of plain keys, deeper than the key above it', () => {
    const body = (text: string, indent: number) => splitBody({ start: 100, text }, indent);
    const vllm = '  vllm:\n    enabled: true\n    search_space:\n      a:\n      - 1\n';
    assert.deepEqual(body(vllm, 2), {
      header: '  vllm:\n',
      entries: [
        { start: 108, text: '    enabled: true\n' },
        { start: 126, text: '    search_space:\n      a:\n      - 1\n' },
      ],
      indent: 4,
    });
    assert.equal(body('  vllm:\n  - 1\n  - 2\n', 2), undefined, 'a compact list is no mapping');
    assert.equal(body('  vllm: {a: 1}\n', 2), undefined, 'a value on the key line');
    assert.equal(body('  vllm:\n    a: 1\n   b: 2\n', 2), undefined, 'a key out of line');
    const text = 'f:\n  g:\n    a: 1\n    # c\n    b: 2\n  h:\n    # d\n    c: 3\n\n    e:\n    - 4\n';
    const p = new IncrementalParser();
    assert.deepStrictEqual(p.parse(text), parseYaml(text));
    const next = text.replace('- 4', '- 5');
    const before = p.counts.parsedChars;
    assert.deepStrictEqual(p.parse(next), parseYaml(next));
    assert.equal(p.counts.parsedChars - before, 'f:\n  h:\n    e:\n    - 5\n'.length, 'g (an entry ending in a comment) is not cut; h is');
  });

  test('texts that splitting could change are parsed whole', () => {
    const cases = {
      alias: 'a: &x 1\nb: *x\n',
      directive: '%YAML 1.1\n---\na: 1\n',
      'document marker': 'a: 1\n---\nb: 2\n',
      'flow at column 0': 'a: [1,\n2]\nb: 1\n',
      'top-level list': '- a: 1\n- b: 2\n',
      'quoted key': '"a": 1\nb: 2\n',
      'merge key': '<<: {a: 1}\nb: 2\n',
    };
    for (const [name, text] of Object.entries(cases)) assert.equal(splitSections(text), undefined, name);
    // A section's entries are parsed apart only when that cannot move a range: not when one ends in a comment.
    const body = (text: string) => splitBody({ start: 0, text })?.entries.map((e) => e.text);
    assert.deepEqual(body('f:\n  # c\n  a:\n  - 1\n\n  b: 2\n'), ['  # c\n  a:\n  - 1\n\n', '  b: 2\n']);
    assert.equal(body('f:\n  a: 1\n  # c\n  b: 2\n'), undefined, 'a trailing comment stretches the value before it');
    for (const text of ['f: {a: 1,\n  b: 2}\n', 'f:\n  a: 1\n', 'f:\n- 1\n- 2\n', 'f:\n  a: 1\n  "b": 2\n', 'f:\n  a: 1\n b: 2\n']) {
      assert.equal(body(text), undefined, JSON.stringify(text));
    }
    for (const text of ['a: 1\nb: 2\na: 3\n', 'a: "x\nb: 2"\n', 'a: 1\nb: {c: 1\n', 'a: 1\nb:\n\t- 1\n']) {
      const p = new IncrementalParser();
      assert.deepStrictEqual(p.parse(text), parseYaml(text), JSON.stringify(text));
      assert.equal(p.counts.whole, 1, `${JSON.stringify(text)} parsed whole`);
    }
  });

  test('comments, blank lines, compact lists, block scalars and CRLF stay with their sections', () => {
    const text = '# autobench\n\na: 1 # c\n\n# about b\nb:\n- 1\n- 2\nc: |\n  text\n\n  more\nd: >-\n  folded\ne:\r\n  f: 2\r\n# end\n';
    assert.deepEqual(splitSections(text)?.map((s) => s.text.split('\n')[0]), ['# autobench', 'b:', 'c: |', 'd: >-', 'e:\r']);
    const p = new IncrementalParser();
    assert.deepStrictEqual(p.parse(text), parseYaml(text));
    assert.equal(p.counts.whole, 0);
  });
});

/** A text with long lists of every shape: compact at column 0, items that are mappings, lists, block scalars, comments. */
function mixedLists(): string {
  let t = 'top:\n';
  for (let i = 0; i < 120; i++) t += i % 7 === 0 ? `- a: ${i}\n  b:\n  - ${i}\n` : i % 11 === 0 ? `- |+\n  line ${i}\n\n` : i % 13 === 0 ? `# c ${i}\n- ${i}\n` : `- ${i}\n`;
  t += 'one:\n  only:\n    list:\n';
  for (let i = 0; i < 200; i++) t += i % 17 === 0 ? `    - >-\n      folded ${i}\n` : `    - "v${i}"\n`;
  return t;
}

/** Long one-line flow lists of plain values, spaced three ways, one ending in a comment. */
function flowLists(): string {
  const vals = Array.from({ length: 400 }, (_, i) => (i % 9 === 0 ? `v${i}` : i % 5 === 0 ? `${i}.5` : `${i}`));
  return `${longListConfig(10).replace(/ {6}max_num_seqs:\n( {6}- \d+\n)+/, `      max_num_seqs: [${vals.join(', ')}]\n`)}top: [${vals.join(',')}]\none:\n  only: [${vals.join(' , ')}] # c\n`;
}

describe('a long list is parsed in runs of items', () => {
  const LONG = longListConfig(3000);

  test('an edit in a 3,000-value list re-parses one run; an item added or removed leaves the other runs as they were', () => {
    const p = new IncrementalParser();
    assert.deepStrictEqual(p.parse(LONG), parseYaml(LONG));
    let text = LONG;
    for (const [from, to] of [
      ['\n      - 1500\n', '\n      - 1500x\n'],
      ['\n      - 1500x\n', '\n      - 1500\n      - 99\n'],
      ['\n      - 1\n', '\n'],
      ['\n      - 2999\n', '\n      - 2999 # c\n'],
    ]) {
      text = replaceOnce(text, from!, to!);
      const before = { ...p.counts };
      assert.deepStrictEqual(p.parse(text), parseYaml(text));
      assert.ok(p.counts.parsed - before.parsed <= 2, `at most two runs parsed after ${JSON.stringify(to)}`);
      assert.ok(p.counts.parsedChars - before.parsedChars < 2000, `${p.counts.parsedChars - before.parsedChars} characters parsed after ${JSON.stringify(to)}`);
    }
    assert.equal(p.counts.whole, 0);
  });

  test('so is a one-line flow list of 3,000 values: an edit in it re-parses one run', () => {
    const values = Array.from({ length: 3000 }, (_, i) => i + 1);
    const flow = LONG.replace(/ {6}max_num_seqs:\n( {6}- \d+\n)+/, `      max_num_seqs: [${values.join(', ')}]\n`);
    const p = new IncrementalParser();
    assert.deepStrictEqual(p.parse(flow), parseYaml(flow));
    for (const text of [flow.replace(', 1500,', ', 1500x,'), flow.replace(', 1500,', ', 1500, 7,'), flow.replace(', 3000]', ', 3000] # c')]) {
      const before = { ...p.counts };
      assert.deepStrictEqual(p.parse(text), parseYaml(text));
      assert.ok(p.counts.parsed - before.parsed <= 2 && p.counts.parsedChars - before.parsedChars < 1000, `one run parsed (${p.counts.parsedChars - before.parsedChars} characters)`);
    }
  });

  test('runs start only at an item of the list, never after a blank or comment line; anything out of line is not cut', () => {
    const runs = (text: string, indent = 0) => splitItems({ start: 0, text }, indent)?.runs.map((r) => r.text);
    const list = (n: number, sep = '') => Array.from({ length: n }, (_, i) => `  - ${i}\n${sep}`).join('');
    const cut = runs(`  k:\n${list(300)}`, 2)!;
    assert.ok(cut.length >= 2 && cut.every((r) => r.startsWith('  - ')), 'cut at items');
    assert.equal(cut.join(''), list(300));
    assert.equal(runs(`  k:\n${list(300, '\n')}`, 2), undefined, 'a blank line before every item: no place to cut');
    assert.equal(runs(`  k:\n${list(300, '  # c\n')}`, 2), undefined, 'a comment before every item: no place to cut');
    assert.equal(runs(`  k:\n${list(8)}`, 2), undefined, 'too short to cut');
    assert.equal(runs(`  k:\n${list(300)} x\n`, 2), undefined, 'a line left of the items');
    assert.equal(runs(`  k:\n${list(300)}  x: 1\n`, 2), undefined, 'a line at their indentation that starts no item');
    assert.equal(runs(`  k: [\n${list(300)}  ]\n`, 2), undefined, 'a value on the key line');
    assert.ok(runs(`k:\n${list(300).replace(/^ {2}/gm, '')}`), 'a compact list at column 0');
    const values = Array.from({ length: 300 }, (_, i) => String(i));
    const flow = runs(`  k: [${values.join(', ')}]  # c\n\n`, 2)!;
    assert.ok(flow.length >= 2 && flow.slice(1).every((r) => r.startsWith(' ')), 'a flow list: cut after commas');
    assert.equal(flow.join(','), `${values.join(', ')}]  # c\n\n`);
    for (const bad of ['"q"', '[1]', 'a: 1', '', '- 1', '1 2', '*a']) {
      assert.equal(runs(`  k: [${[...values.slice(0, 150), bad, ...values.slice(150)].join(', ')}]\n`, 2), undefined, `not cut around ${JSON.stringify(bad)}`);
    }
    assert.equal(runs(`  k: [${values.join(', ')}]\n  x: 1\n`, 2), undefined, 'a flow list followed by more than comments');
  });

  test('after random edits of long lists of every shape, version by version', () => {
    for (const [seed, start] of [[21, longListConfig(400)], [22, mixedLists()], [23, flowLists()]] as const) {
      const p = new IncrementalParser();
      const edit = edits(seed);
      let text = start;
      for (let n = 0; n < 60; n++) {
        const next = edit(text);
        const whole = parseYaml(next);
        assert.deepStrictEqual(p.parse(next), whole, `seed ${seed}, edit ${n}: ${JSON.stringify(next.slice(0, 80))}`);
        if (whole.problems.length === 0) text = next;
      }
      assert.ok(p.counts.reused > 40, `runs were reused (${p.counts.reused})`);
    }
  });

  test('an analysis after edits in the long list has the findings and candidates of a fresh one', () => {
    const a = newAnalyzer();
    let text = longListConfig(600);
    assertSameAsFresh(a.analyze(URI, 1, text), 'open');
    const steps: Array<[string, string]> = [
      ['\n      - 300\n', '\n      - 300x\n'],
      ['\n      - 300x\n', '\n      - 12345\n'],
      ['\n      - 12345\n', '\n      - 7\n'],
      ['\n      - 599\n', '\n      - hf_abcdefghijklmnopqrstuvwxyz\n'],
      ['search_space:\n      max_num_seqs:\n      - 1\n', 'search_space:\n      max_model_len:\n      - 1\n'],
    ];
    steps.forEach(([from, to], i) => {
      text = replaceOnce(text, from, to);
      assertSameAsFresh(a.analyze(URI, i + 2, text), `step ${i + 1}: ${JSON.stringify(to)}`);
    });
    assert.ok(a.parserFor(URI).counts.reused > 0);
  });
});

describe('incremental analysis gives the diagnostics of a fresh analysis', () => {
  test('through a sequence of typing, breaking and fixing edits on a shipped config', () => {
    const a = newAnalyzer();
    const steps: Array<[string, (t: string) => string]> = [
      ['type in model.tokenizer', (t) => replaceOnce(t, 'tokenizer: XiaomiMiMo/MiMo-V2-Flash\n  precision', 'tokenizer: XiaomiMiMo/MiMo-V2-Flashx\n  precision')],
      ['a typo in a vLLM flag', (t) => replaceOnce(t, '      max_num_batched_tokens:\n', '      max_num_batched_tokenz:\n')],
      ['a search value of SGLang', (t) => replaceOnce(t, '      - 48\n      - 64\n  vllm:', '      - 48\n      - 96\n  vllm:')],
      ['a broken line', (t) => replaceOnce(t, 'hardware:\n', 'hardware: [\n')],
      ['fixed again', (t) => replaceOnce(t, 'hardware: [\n', 'hardware:\n')],
      ['a repeated top-level key', (t) => `${t}model:\n  name: other\n`],
      ['removed again', (t) => t.replace(/model:\n {2}name: other\n$/, '')],
      ['the budget lowered', (t) => replaceOnce(t, 'max_candidates_per_framework: 10', 'max_candidates_per_framework: 3')],
      ['a dataset scenario too long', (t) => replaceOnce(t, '  - 8000\n', '  - 80000\n')],
      ['sections swapped', (t) => { const i = t.indexOf('search:\n'); const j = t.indexOf('frameworks:\n'); return t.slice(0, i) + t.slice(j) + t.slice(i, j); }],
    ];
    let text = MIMO;
    assertSameAsFresh(a.analyze(URI, 1, text), 'open');
    steps.forEach(([name, step], i) => {
      text = step(text);
      assertSameAsFresh(a.analyze(URI, i + 2, text), name);
    });
    assert.ok(a.parserFor(URI).counts.reused > 0);
  });

  test('after random edits of a shipped config and of a 1,000-line one', () => {
    for (const [seed, start, versions] of [[11, MIMO, 80], [12, largeConfig(1000), 25]] as const) {
      const a = newAnalyzer();
      const edit = edits(seed);
      let text = start;
      for (let v = 1; v <= versions; v++) {
        const next = edit(text);
        const fresh = assertSameAsFresh(a.analyze(URI, v, next), `seed ${seed}, version ${v}`);
        if (!fresh.findings.some((f) => f.code === 'yaml-syntax')) text = next;
      }
      assert.ok(a.parserFor(URI).counts.reused > 0);
    }
  });
});

describe('candidates: generated per distinct section, rendered when asked', () => {
  test('typing outside the framework sections generates nothing and renders nothing', () => {
    const a = newAnalyzer();
    const counts = a.candidates.counts;
    a.analyze(URI, 1, MIMO);
    assert.deepEqual(counts, { generated: 4, reused: 0, rendered: 0 });
    let text = MIMO;
    for (let v = 2; v < 12; v++) {
      text = text.replace('tokenizer: XiaomiMiMo/MiMo-V2-Flash\n  precision', `tokenizer: XiaomiMiMo/MiMo-V2-Flash${v}\n  precision`);
      a.analyze(URI, v, text);
    }
    assert.deepEqual(counts, { generated: 4, reused: 40, rendered: 0 });
    // An edit in vLLM's search space generates vLLM's list again, and only that one.
    a.analyze(URI, 12, replaceOnce(text, '      - 8192\n      - 16384\n      max_num_partial_prefills', '      - 8192\n      - 32768\n      max_num_partial_prefills'));
    assert.deepEqual(counts, { generated: 5, reused: 43, rendered: 0 });
  });

  test('a lens or the commands listing renders each list once, exactly as listCandidates does', () => {
    const a = newAnalyzer();
    const x = a.analyze(URI, 1, MIMO);
    const fresh = checkConfigText(MIMO, { kind: 'auto' });
    assert.deepEqual(lensesFor(x.result), lensesFor(fresh));
    assert.equal(commandsListing('doc.yaml', x.result, undefined), commandsListing('doc.yaml', fresh, undefined));
    assert.equal(a.candidates.counts.rendered, 4);
    commandsListing('doc.yaml', x.result, undefined);
    assert.equal(a.candidates.counts.rendered, 4, 'rendered once');
    for (const l of x.result.candidateLists) {
      assert.deepStrictEqual(l.candidates.map((c) => ({ ...c })), listCandidates(l.section, x.result.model).candidates);
    }
  });
});
