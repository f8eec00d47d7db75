// snapshot-label in-process: the short names of flag sources shown in completion, hover and the status ("vLLM 0.6.6", "SGLang main 2026-07-18", "vLLM built-in table (0.20.1)"), and the status bar's label.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { builtinKnownFlags, type KnownFlags } from '../../src/core/config/known-flags';
import { loadSnapshotFlags } from '../../src/core/config/snapshot-flags';
import { checkConfigText } from '../../src/core/config/check';
import { configFlagSourcesLabel, flagSourcesLabel, sourceDetail, sourceLabel, versionFromFolder } from '../../src/core/editor/snapshot-label';
import type { FrameworkKey } from '../../src/core/frameworks/types';
import { HELP, mutate, VALID } from '../support/fixtures';

function snapshot(fw: FrameworkKey, ...folder: string[]): KnownFlags {
  const known = loadSnapshotFlags(join(HELP, ...folder)).flags[fw];
  assert.ok(known, `no ${fw} snapshot in ${folder.join('/')}`);
  return known;
}

describe('versionFromFolder', () => {
  test('release folders lose their v; main and initial-release snapshots keep their date', () => {
    assert.equal(versionFromFolder('v0.20.1'), '0.20.1');
    assert.equal(versionFromFolder('0.20.1'), '0.20.1');
    assert.equal(versionFromFolder('v0.5.6.post2'), '0.5.6.post2');
    assert.equal(versionFromFolder('main-2026-07-18-ece02ffc9'), 'main 2026-07-18');
    assert.equal(versionFromFolder('initial-release-2026-01-02-abc'), 'initial-release 2026-01-02');
  });

  test('anything else is shown as the folder name', () => {
    for (const name of ['help', 'v1', 'main', 'initial-release-205c53c4', 'main-serve.py-00209af1']) assert.equal(versionFromFolder(name), name);
  });
});

describe('sourceLabel and sourceDetail', () => {
  test('the built-in table, per framework, with the version whose --help it follows', () => {
    assert.deepEqual(
      (['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed'] as const).map((fw) => sourceLabel(builtinKnownFlags(fw))),
      ['SGLang built-in table (main 2026-07-18)', 'vLLM built-in table (0.20.1)', 'TensorRT-LLM built-in table (main @ 00209af1)', 'TokenSpeed built-in table (0.1.0)'],
    );
    assert.equal(
      sourceDetail(builtinKnownFlags('vllm')),
      'from the built-in flag table (vLLM 0.20.1): no `--help` snapshot applies (set `autobench.snapshots.helpDir`, a `# autobench: help-dir=` modeline, or `version_manifest` help paths)',
    );
  });

  test('a snapshot: the framework and the version read off its folder, and its files', () => {
    const vllm = snapshot('vllm', 'vllm', 'v0.6.6');
    assert.equal(sourceLabel(vllm), 'vLLM 0.6.6');
    assert.equal(sourceDetail(vllm), 'from vLLM 0.6.6 (`vllm_serve_help.txt`)');
    const sglang = snapshot('sglang', 'sglang', 'main-2026-07-18-ece02ffc9');
    assert.equal(sourceLabel(sglang), 'SGLang main 2026-07-18');
  });

  test('a snapshot made of two files names both, in order', () => {
    const ts = snapshot('tokenspeed', 'tokenspeed', 'main-2026-08-22-f4d8ec6e');
    assert.equal(sourceDetail(ts), 'from TokenSpeed main 2026-08-22 (`tokenspeed_serve.txt`, `tokenspeed_serve_engine_args.txt`)');
  });

  test('a snapshot without files is labelled as the built-in table', () => {
    const empty: KnownFlags = { ...snapshot('vllm', 'vllm', 'v0.6.6'), files: [] };
    assert.equal(sourceLabel(empty), 'vLLM built-in table (0.20.1)');
  });
});

describe('the status bar label', () => {
  const ALL_BUILTIN = 'flags: built-in table (SGLang main 2026-07-18, vLLM 0.20.1, TensorRT-LLM main @ 00209af1, TokenSpeed 0.1.0)';

  test('on the built-in table: the versions each framework\'s table follows', () => {
    assert.equal(flagSourcesLabel((['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed'] as const).map((fw) => builtinKnownFlags(fw))), ALL_BUILTIN);
  });

  test('a snapshot by its version first, then the frameworks left on the built-in table', () => {
    assert.equal(flagSourcesLabel([builtinKnownFlags('sglang'), snapshot('vllm', 'vllm', 'v0.6.6')]), 'flags: vLLM 0.6.6 · built-in table (SGLang main 2026-07-18)');
    assert.equal(flagSourcesLabel([snapshot('vllm', 'vllm', 'v0.6.6')]), 'flags: vLLM 0.6.6');
  });

  test('a config: only the frameworks it runs; a config that runs none names all four', () => {
    // VALID enables SGLang and vLLM.
    assert.equal(configFlagSourcesLabel(checkConfigText(VALID).model, undefined), 'flags: built-in table (SGLang main 2026-07-18, vLLM 0.20.1)');
    const snap = loadSnapshotFlags(join(HELP, 'vllm', 'v0.6.6')).flags;
    assert.equal(configFlagSourcesLabel(checkConfigText(VALID, { snapshots: snap }).model, snap), 'flags: vLLM 0.6.6 · built-in table (SGLang main 2026-07-18)');
    const vllmOnly = mutate('  sglang:\n    enabled: true', '  sglang:\n    enabled: false');
    assert.equal(configFlagSourcesLabel(checkConfigText(vllmOnly, { snapshots: snap }).model, snap), 'flags: vLLM 0.6.6');
    const none = mutate('  vllm:\n    enabled: true', '  vllm:\n    enabled: false', vllmOnly);
    assert.equal(configFlagSourcesLabel(checkConfigText(none).model, undefined), ALL_BUILTIN);
  });
});
