// The layout's rules, read from the sources: no import loops, core imports only core, no runner -> webview arrow, nothing imports the front ends, functions that fit on a screen, a short run orchestrator.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { cycles, functionSpans, importGraph, importSpecifiers, REPO, rel, sourceFiles } from '../support/source-graph';

const SRC = sourceFiles('src', 'language-server/src');
/** Third-party packages core may use; node builtins are fine too (core reads files, never the network or processes). */
const CORE_PACKAGES = new Set(['yaml', 'ajv', 'ajv/dist/2020', '@huggingface/jinja', '@huggingface/tokenizers']);
const CORE_BUILTINS = new Set(['node:fs', 'node:path', 'node:crypto']);

function edges(from: string): Array<{ file: string; to: string }> {
  const out: Array<{ file: string; to: string }> = [];
  for (const f of sourceFiles(from)) for (const s of importSpecifiers(f)) if (s.startsWith('.')) out.push({ file: rel(f), to: rel(resolve(dirname(f), s)) });
  return out;
}

describe('architecture', () => {
  test('no import loops (type-only imports count)', () => {
    assert.deepEqual(cycles(importGraph(SRC)), []);
  });

  test('core imports only core, its data (schemas/*.json), a few packages and file-system builtins', () => {
    const bad: string[] = [];
    for (const f of sourceFiles('src/core')) {
      for (const s of importSpecifiers(f)) {
        if (s.startsWith('.')) {
          const to = rel(resolve(dirname(f), s));
          if (!to.startsWith('src/core/') && !/^schemas\/[\w-]+\.schema\.json$/.test(to)) bad.push(`${rel(f)} -> ${to}`);
        } else if (!CORE_PACKAGES.has(s) && !CORE_BUILTINS.has(s)) bad.push(`${rel(f)} -> ${s}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  test('the runner renders no HTML: no runner -> webview import (the renderer is passed in)', () => {
    assert.deepEqual(edges('src/runner').filter((e) => e.to.startsWith('src/webview')), []);
  });

  test('nothing imports the front ends (extension, cli, language server)', () => {
    const all = [...edges('src'), ...edges('language-server/src'), ...edges('bench')];
    const inside = (p: string, d: string): boolean => p === d || p.startsWith(`${d}/`);
    const front = (p: string, own: string) => ['src/extension', 'src/cli', 'language-server/src'].some((d) => inside(p, d) && !inside(own, d));
    assert.deepEqual(all.filter((e) => front(e.to, e.file)).map((e) => `${e.file} -> ${e.to}`), []);
  });

  test('predict imports only predict, core and sim (the engine model it runs on a virtual clock)', () => {
    const ok = (to: string): boolean => ['src/predict/', 'src/core/', 'src/sim/'].some((d) => to.startsWith(d));
    assert.deepEqual(edges('src/predict').filter((e) => !ok(e.to)).map((e) => `${e.file} -> ${e.to}`), []);
  });

  test('the extension reaches runs only through the runner (no exec import)', () => {
    assert.deepEqual(edges('src/extension').filter((e) => e.to.startsWith('src/exec')), []);
  });

  test('Workspace Trust is checked in one place: the command table (commands.ts guarded), no handler calls the guard', () => {
    const callers = sourceFiles('src/extension').filter((f) => /\brefuseUntrusted\(/.test(readFileSync(f, 'utf8'))).map(rel);
    assert.deepEqual(callers.sort(), ['src/extension/commands.ts', 'src/extension/trust.ts']);
  });

  test('bench/ uses test helpers from test/support only', () => {
    assert.deepEqual(edges('bench').filter((e) => e.to.startsWith('test/') && !e.to.startsWith('test/support/')).map((e) => `${e.file} -> ${e.to}`), []);
  });

  test('no function in src/ or language-server/src over 120 lines', () => {
    const long = SRC.flatMap((f) => functionSpans(f)).filter((s) => s.lines > 120);
    assert.deepEqual(long.map((s) => `${s.file}:${s.line} ${s.name} (${s.lines} lines)`), []);
  });

  test('src/runner/run.ts is orchestration only: under 300 lines', () => {
    const lines = readFileSync(join(REPO, 'src/runner/run.ts'), 'utf8').split('\n').length;
    assert.ok(lines < 300, `${lines} lines`);
  });

  test('the checker can fail: it finds a planted loop and a planted long function', () => {
    const a = join(REPO, 'test/architecture/fixtures/loop-a.ts');
    const b = join(REPO, 'test/architecture/fixtures/loop-b.ts');
    assert.deepEqual(cycles(importGraph([a, b])), [[rel(a), rel(b)].sort()]);
    assert.ok(functionSpans(join(REPO, 'test/architecture/fixtures/long-function.ts')).some((s) => s.name === 'tooLong' && s.lines > 120));
  });
});
