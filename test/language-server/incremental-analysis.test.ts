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
import { splitBody, splitSections } from '../../language-server/src/sections';
import { SnapshotCache } from '../../language-server/src/snapshot-cache';
import { largeConfig } from '../../bench/large-config';
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
