// Hostile or broken files end in findings, quickly, never in an exception.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { checkConfigText } from '../../../src/core/config/check';
import { LineIndex } from '../../../src/core/config/finding';
import { VALID } from '../../support/fixtures';

function assertBounded(text: string, expectCode: RegExp): void {
  // Bounded: a blow-up on these inputs would not finish at all (the suite would hang), so finishing is the check; no
  // wall-clock bound, since the machine is shared and its speed is no part of what is checked.
  const value = checkConfigText(text);
  const codes = value.findings.map((f) => f.code);
  assert.ok(codes.some((c) => expectCode.test(c)), `expected ${expectCode}, got ${codes.join(', ')}`);
}

describe('bad input', () => {
  test('binary file', () => {
    assertBounded(randomBytes(64 * 1024).toString('utf8'), /^binary$/);
    assertBounded('\u0000\u0001\u0002ELF', /^binary$/);
  });

  test('a 10 MB YAML file', () => {
    const line = 'key_0000000: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n';
    const text = line.repeat(Math.ceil((10 * 1024 * 1024) / line.length));
    assertBounded(text, /^too-large$/);
  });

  test('1,000-deep nesting, block and flow', () => {
    let block = '';
    for (let i = 0; i < 1000; i++) block += `${' '.repeat(i)}k${i}:\n`;
    assertBounded(block, /^too-deep$/);
    assertBounded(`${'['.repeat(1000)}${']'.repeat(1000)}\n`, /^too-deep$/);
    assertBounded(`a: ${'{b: '.repeat(1000)}1${'}'.repeat(1000)}\n`, /^too-deep$/);
  });

  test('alias bomb (billion laughs)', () => {
    const lines = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    const letters = 'bcdefghij';
    let prev = 'a';
    for (const l of letters) {
      lines.push(`${l}: &${l} [${Array(9).fill(`*${prev}`).join(', ')}]`);
      prev = l;
    }
    assertBounded(`${lines.join('\n')}\n`, /^alias-bomb$/);
  });

  test('syntax error points at its own line, not the end of the file', () => {
    const text = VALID.replace('  name: Qwen/Qwen3-32B\n', '  name: [Qwen/Qwen3-32B\n');
    const r = checkConfigText(text);
    const f = r.findings.find((x) => x.code === 'yaml-syntax');
    assert.ok(f);
    const line = new LineIndex(text).positionAt(f.range[0]).line;
    assert.ok(line < text.split('\n').length - 2, `syntax error reported at line ${line}`);
  });

  test('odd but valid YAML does not crash', () => {
    for (const t of ['---\n...\n', '!!binary aGVsbG8=\n', 'frameworks: !!set {a, b}\n', '? [a, b]\n: c\n', 'a: *missing\n', '- !!python/object:os.system echo\n']) {
      assert.doesNotThrow(() => checkConfigText(t), t);
    }
  });
});
