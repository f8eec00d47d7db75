// Shell quoting and splitting match Python's shlex, and quoted commands survive a real sh.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ShellSyntaxError, shlexJoin, shlexQuote, shlexSplit } from '../../../src/core/candidates/shell';

void describe('shlexQuote (outputs recorded from Python 3.11 shlex.quote)', () => {
  const table: Array<[string, string]> = [
    ['', "''"],
    ["it's", `'it'"'"'s'`],
    ['a b', "'a b'"],
    ['é', "'é'"],
    ['日本', "'日本'"],
    ['--x=1,2', '--x=1,2'],
    ['@%+=:,./-_', '@%+=:,./-_'],
    ['meta-llama/Llama-3.1-8B-Instruct', 'meta-llama/Llama-3.1-8B-Instruct'],
    ['$HOME', "'$HOME'"],
    ['a"b', `'a"b'`],
    ['~', "'~'"],
    ['*', "'*'"],
    ['x;y', "'x;y'"],
    ['tab\there', "'tab\there'"],
    ['\n', "'\n'"],
    ["'", `''"'"''`],
    ['{"a": 1}', `'{"a": 1}'`],
  ];
  for (const [input, want] of table) {
    void test(JSON.stringify(input), () => assert.equal(shlexQuote(input), want));
  }
});

void describe('shlexSplit (outputs recorded from Python 3.11 shlex.split)', () => {
  const table: Array<[string, string[]]> = [
    ['python3 -m sglang.launch_server', ['python3', '-m', 'sglang.launch_server']],
    ['a\\ b c', ['a b', 'c']],
    ['"a\\"b" c', ['a"b', 'c']],
    // Inside double quotes Python escapes only `"` and `\`; the backslash before `$` stays.
    ['"a\\$b"', ['a\\$b']],
    ['"a\\\\b"', ['a\\b']],
    ['"\\n"', ['\\n']],
    ["'a\\b'", ['a\\b']],
    ['a\\\\b', ['a\\b']],
    ['a"b c"d', ['ab cd']],
    ["''", ['']],
    ['""', ['']],
    ["a'' b", ['a', 'b']],
    ['x\\\ny', ['x\ny']],
    ['  lead  trail  ', ['lead', 'trail']],
    ['a\tb\rc\nd', ['a', 'b', 'c', 'd']],
    [`"a'b"`, ["a'b"]],
    [`'a"b'`, ['a"b']],
    ['', []],
    ['# not a comment', ['#', 'not', 'a', 'comment']],
  ];
  for (const [input, want] of table) {
    void test(JSON.stringify(input), () => assert.deepEqual(shlexSplit(input), want));
  }

  void test('an unbalanced quote is a typed error, not a crash', () => {
    for (const bad of ['vllm serve "abc', "vllm serve 'abc", 'a"b\'']) {
      assert.throws(() => shlexSplit(bad), (e: unknown) => e instanceof ShellSyntaxError && e.message === 'No closing quotation');
    }
  });

  void test('a trailing backslash is a typed error', () => {
    for (const bad of ['abc\\', '"abc\\']) {
      assert.throws(() => shlexSplit(bad), (e: unknown) => e instanceof ShellSyntaxError && e.message === 'No escaped character');
    }
  });
});

/** Small seeded PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ["'", '"', '$', '`', '\\', '\n', '\t', ' ', 'é', '日', '😀', '*', '~', ';', '|', '&', '$(id)', '--tp-size', '=', 'a', 'Z', '0', '{"k": [1]}', '#', '!', '?', '\r'];

function randomArgv(next: () => number): string[] {
  const argc = 1 + Math.floor(next() * 6);
  return Array.from({ length: argc }, () => {
    if (next() < 0.1) return '';
    const len = 1 + Math.floor(next() * 8);
    return Array.from({ length: len }, () => PIECES[Math.floor(next() * PIECES.length)] as string).join('');
  });
}

void describe('quoting round trip', () => {
  const next = rng(20240611);
  const cases = Array.from({ length: 320 }, () => randomArgv(next));

  void test('sh receives exactly the original arguments', () => {
    // One sh per case keeps a failure pointing at its argv; 320 spawns take well under a few seconds.
    for (const argv of cases) {
      const r = spawnSync('sh', ['-c', `printf '%s\\0' ${shlexJoin(argv)}`], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const got = r.stdout.split('\0').slice(0, -1);
      assert.deepEqual(got, argv, `rendered: ${shlexJoin(argv)}`);
    }
  });

  void test('shlexSplit(shlexJoin(argv)) gives argv back', () => {
    for (const argv of cases) assert.deepEqual(shlexSplit(shlexJoin(argv)), argv);
  });
});
