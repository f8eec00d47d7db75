// Analyzer in-process: one analysis per (uri, version) shared by every feature, re-analysed on a new version, dropped on close; its snapshots and config detection.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { completeAt } from '../../src/core/editor/completion';
import { hoverAt } from '../../src/core/editor/hover';
import { outlineFor } from '../../src/core/editor/outline';
import { DEFAULT_SETTINGS, type ServerSettings } from '../../src/shared/protocol';
import { Analyzer, uriToPath } from '../../language-server/src/analysis';
import { SnapshotCache } from '../../language-server/src/snapshot-cache';
import { FIXTURES, HELP } from '../support/fixtures';
import { offsetAfter, readRepoFile, replaceOnce } from '../support/text-at';

const QWEN = readRepoFile('configs', 'cookbook-llm', 'qwen3-235b-a22b.yaml');
const BUILTIN = ['SGLang built-in table (main 2026-07-18)', 'vLLM built-in table (0.20.1)', 'TensorRT-LLM built-in table (main @ 00209af1)', 'TokenSpeed built-in table (0.1.0)'];
const LONG_PREFILL = "vllm: unknown or unsupported server flag 'long_prefill_token_threshold'";
const WS = mkdtempSync(join(tmpdir(), 'autobench-analysis-'));
after(() => rmSync(WS, { recursive: true, force: true }));
cpSync(join(HELP, 'vllm', 'v0.6.6'), join(WS, 'snapshots', 'v0.6.6'), { recursive: true });

let n = 0;
const uriOf = (name = `doc${++n}.yaml`) => pathToFileURL(join(WS, name)).toString();

function analyzer(settings: Partial<ServerSettings> = {}): { a: Analyzer; settings: ServerSettings; snapshots: SnapshotCache } {
  const s: ServerSettings = { ...DEFAULT_SETTINGS, ...settings };
  const snapshots = new SnapshotCache();
  return { a: new Analyzer(snapshots, () => s, () => [WS]), settings: s, snapshots };
}
const errors = (x: { result: { findings: Array<{ severity: string; message: string }> } }) => x.result.findings.filter((f) => f.severity === 'error').map((f) => f.message);

describe('one analysis per (uri, version)', () => {
  test('completion, hover and the outline of one version all read the same analysis', () => {
    const { a } = analyzer();
    const uri = uriOf();
    const first = a.analyze(uri, 1, QWEN);
    // What the three handlers do for version 1: each asks the analyzer, each gets the first analysis.
    const forCompletion = a.analyze(uri, 1, QWEN);
    assert.equal(completeAt(forCompletion.text, offsetAfter(QWEN, '  multi_node: '), forCompletion.result.kind, forCompletion.snapshots).length, 2);
    const forHover = a.analyze(uri, 1, QWEN);
    assert.ok(hoverAt(forHover.result, 3, forHover.snapshots));
    const forOutline = a.analyze(uri, 1, QWEN);
    assert.equal(outlineFor(forOutline.result).length, 3);
    assert.equal(forCompletion, first);
    assert.equal(forHover, first);
    assert.equal(forOutline, first);
    assert.equal(a.peek(uri), first);
  });

  test('a new version is analysed again and replaces the old one', () => {
    const { a } = analyzer();
    const uri = uriOf();
    const v1 = a.analyze(uri, 1, QWEN);
    assert.deepEqual(errors(v1), []);
    const typo = replaceOnce(QWEN, '      enable_chunked_prefill: true\n', '      enable_chunked_prefil: true\n');
    const v2 = a.analyze(uri, 2, typo);
    assert.notEqual(v2, v1);
    assert.deepEqual([v2.version, v2.text === typo], [2, true]);
    assert.deepEqual(errors(v2), ["vllm: unknown or unsupported server flag 'enable_chunked_prefil'"]);
    assert.equal(a.peek(uri), v2);
    assert.equal(a.analyze(uri, 2, typo), v2);
    // Only the latest version is kept: going back analyses again.
    const back = a.analyze(uri, 1, QWEN);
    assert.notEqual(back, v1);
    assert.equal(a.peek(uri), back);
  });

  test('the same version with other text is analysed again (files read from disk all use version -1)', () => {
    const { a } = analyzer();
    const uri = uriOf();
    const one = a.analyze(uri, -1, QWEN);
    const other = a.analyze(uri, -1, replaceOnce(QWEN, 'gpu_count: 8', 'gpu_count: 4'));
    assert.notEqual(other, one);
    assert.equal(a.analyze(uri, -1, other.text), other);
  });

  test('documents are cached apart; close (forget) drops one, clear drops all', () => {
    const { a } = analyzer();
    const [u1, u2] = [uriOf(), uriOf()];
    const d1 = a.analyze(u1, 1, QWEN);
    const d2 = a.analyze(u2, 1, QWEN);
    assert.notEqual(d1, d2);
    a.forget(u1);
    assert.equal(a.peek(u1), undefined);
    assert.equal(a.peek(u2), d2);
    assert.notEqual(a.analyze(u1, 1, QWEN), d1, 'a reopened document is analysed afresh');
    a.clear();
    assert.equal(a.peek(u1), undefined);
    assert.equal(a.peek(u2), undefined);
    a.forget('file:///never/opened.yaml');
  });

  test('settings are read when analysing: a cached version keeps its snapshots until the cache is cleared', () => {
    const { a, settings } = analyzer();
    const uri = uriOf();
    const before = a.analyze(uri, 1, QWEN);
    assert.equal(before.builtinOnly, true);
    settings.helpDir = 'snapshots/v0.6.6';
    assert.equal(a.analyze(uri, 1, QWEN), before);
    a.clear();
    const after = a.analyze(uri, 1, QWEN);
    assert.equal(after.builtinOnly, false);
    assert.deepEqual(after.sources, ['SGLang built-in table (main 2026-07-18)', 'vLLM 0.6.6', 'TensorRT-LLM built-in table (main @ 00209af1)', 'TokenSpeed built-in table (0.1.0)']);
    assert.ok(errors(after).includes(LONG_PREFILL));
  });
});

describe('snapshots in an analysis', () => {
  test('no snapshot: every framework from the built-in table, a shipped config without errors', () => {
    const { a } = analyzer();
    const x = a.analyze(uriOf(), 1, QWEN);
    assert.deepEqual(x.sources, BUILTIN);
    assert.equal(x.sourcesLabel, 'flags: built-in table (SGLang main 2026-07-18, vLLM 0.20.1, TensorRT-LLM main @ 00209af1, TokenSpeed 0.1.0)');
    assert.equal(x.builtinOnly, true);
    assert.equal(x.snapshots, undefined);
    assert.equal(x.snapshotProblem, undefined);
    assert.equal(x.result.kind, 'cookbook');
    assert.deepEqual(errors(x), []);
  });

  test('a help-dir modeline checks vLLM against 0.6.6; documents naming the same folder share its flags', () => {
    const { a } = analyzer();
    const text = `# autobench: help-dir=snapshots/v0.6.6\n${QWEN}`;
    const x = a.analyze(uriOf(), 1, text);
    assert.deepEqual(x.sources, ['SGLang built-in table (main 2026-07-18)', 'vLLM 0.6.6', 'TensorRT-LLM built-in table (main @ 00209af1)', 'TokenSpeed built-in table (0.1.0)']);
    assert.equal(x.sourcesLabel, 'flags: vLLM 0.6.6 · built-in table (SGLang main 2026-07-18, TensorRT-LLM main @ 00209af1, TokenSpeed 0.1.0)');
    assert.equal(x.builtinOnly, false);
    assert.ok(errors(x).includes(LONG_PREFILL), JSON.stringify(errors(x)));
    const y = a.analyze(uriOf(), 1, text);
    assert.notEqual(y, x);
    assert.ok(x.snapshots !== undefined && y.snapshots === x.snapshots, 'loaded once by the shared snapshot cache');
  });

  test('a modeline naming a missing folder says so and falls back to the built-in table', () => {
    const { a } = analyzer();
    const x = a.analyze(uriOf(), 1, `# autobench: help-dir=nowhere\n${QWEN}`);
    assert.equal(x.snapshotProblem, `help folder ${join(WS, 'nowhere')} does not exist; using the built-in flag table`);
    assert.equal(x.builtinOnly, true);
    assert.deepEqual(x.sources, BUILTIN);
  });

  test('a plan\'s version_manifest points at its server_help files, relative to the plan', () => {
    const dir = mkdtempSync(join(WS, 'plan-'));
    mkdirSync(join(dir, 'artifacts', 'help'), { recursive: true });
    cpSync(join(HELP, 'vllm', 'v0.6.6', 'vllm_serve_help.txt'), join(dir, 'artifacts', 'help', 'vllm_serve_all.txt'));
    const plan = readFileSync(join(FIXTURES, 'plans', 'example-plan.yaml'), 'utf8');
    const { a } = analyzer({ helpDir: 'snapshots/v0.6.6' });
    const x = a.analyze(pathToFileURL(join(dir, 'plan.yaml')).toString(), 1, plan);
    assert.equal(x.result.kind, 'plan');
    // The manifest wins over the setting; the label is the file's folder name.
    assert.deepEqual(x.sources, ['SGLang built-in table (main 2026-07-18)', 'vLLM help', 'TensorRT-LLM built-in table (main @ 00209af1)', 'TokenSpeed built-in table (0.1.0)']);
    assert.ok(errors(x).includes(LONG_PREFILL), JSON.stringify(errors(x)));
  });

  test('a changed snapshot re-validates once the server invalidates the cache and clears the analyses', () => {
    const dir = mkdtempSync(join(WS, 'snap-'));
    cpSync(join(HELP, 'vllm', 'v0.6.6'), dir, { recursive: true });
    const { a, snapshots } = analyzer({ helpDir: dir });
    const uri = uriOf();
    assert.ok(errors(a.analyze(uri, 1, QWEN)).includes(LONG_PREFILL));
    cpSync(join(HELP, 'vllm', 'v0.20.1', 'vllm_serve_all.txt'), join(dir, 'vllm_serve_help.txt'));
    assert.equal(snapshots.invalidate([join(dir, 'vllm_serve_help.txt')]), true);
    a.clear();
    assert.deepEqual(errors(a.analyze(uri, 1, QWEN)), []);
  });
});

describe('which documents are configs', () => {
  test('by shape, whatever the uri', () => {
    const { a } = analyzer();
    assert.equal(a.isConfig('untitled:Untitled-1', QWEN), true);
    assert.equal(a.isConfig('untitled:Untitled-1', 'name: ci\non: push\njobs: {}\n'), false);
    assert.equal(a.isConfig(uriOf('ci.yaml'), 'name: ci\non: push\njobs: {}\n'), false);
  });

  test('by the include globs, relative to a workspace folder', () => {
    const { a } = analyzer();
    assert.equal(a.isConfig(uriOf('cookbook-llm/new.yaml'), 'model: {}\n'), true);
    assert.equal(a.isConfig(uriOf('deep/er/cookbook-llm/new.yaml'), 'model: {}\n'), true);
    assert.equal(a.isConfig(uriOf('x.autobench.yaml'), 'model: {}\n'), true);
    assert.equal(a.isConfig(uriOf('other/new.yaml'), 'model: {}\n'), false);
    const custom = analyzer({ include: ['special/*.yaml'] }).a;
    assert.equal(custom.isConfig(uriOf('special/x.yaml'), 'model: {}\n'), true);
    assert.equal(custom.isConfig(uriOf('cookbook-llm/new.yaml'), 'model: {}\n'), false);
    // Outside every workspace folder the globs do not apply.
    assert.equal(a.isConfig(pathToFileURL(join(tmpdir(), 'cookbook-llm', 'x.yaml')).toString(), 'model: {}\n'), false);
  });

  test('uriToPath: file uris only', () => {
    assert.equal(uriToPath(pathToFileURL(join(WS, 'a b.yaml')).toString()), join(WS, 'a b.yaml'));
    assert.equal(uriToPath('untitled:Untitled-1'), undefined);
    assert.equal(uriToPath('autobench-commands:/x'), undefined);
  });
});
