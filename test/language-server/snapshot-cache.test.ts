// SnapshotCache in-process: each snapshot source is loaded once and kept until a file or folder it came from changes.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFlag } from '../../src/core/config/known-flags';
import { SnapshotCache } from '../../language-server/src/snapshot-cache';
import { HELP } from '../support/fixtures';

const TMP = mkdtempSync(join(tmpdir(), 'autobench-snapcache-'));
after(() => rmSync(TMP, { recursive: true, force: true }));
const scratch = () => mkdtempSync(join(TMP, 'case-'));

/** A temp folder holding a copy of vLLM 0.6.6's captured help (it predates `--long-prefill-token-threshold`). */
function vllm066(): string {
  const dir = join(scratch(), 'v0.6.6');
  cpSync(join(HELP, 'vllm', 'v0.6.6'), dir, { recursive: true });
  return dir;
}
const knows = (flags: ReturnType<SnapshotCache['get']>['flags'], key: string) => (flags?.vllm ? findFlag(flags.vllm, key) !== undefined : false);

describe('SnapshotCache.get', () => {
  test('the built-in table: no flags, nothing watched, one entry', () => {
    const cache = new SnapshotCache();
    const e = cache.get({ kind: 'builtin' });
    assert.deepEqual(e, { flags: undefined, watched: [] });
    assert.equal(cache.get({ kind: 'builtin' }), e);
  });

  test('a folder is loaded once; the same folder spelled differently is the same entry', () => {
    const cache = new SnapshotCache();
    const dir = vllm066();
    const e = cache.get({ kind: 'dir', dir, from: 'modeline' });
    assert.deepEqual(Object.keys(e.flags ?? {}), ['vllm']);
    assert.ok(knows(e.flags, 'max_num_seqs'));
    assert.ok(!knows(e.flags, 'long_prefill_token_threshold'));
    assert.deepEqual(e.watched, [dir]);
    assert.equal(e.problem, undefined);
    assert.equal(cache.get({ kind: 'dir', dir: `${dir}/./`, from: 'setting' }), e);
  });

  test('a missing folder is a problem, and the built-in table stands in', () => {
    const dir = join(scratch(), 'absent');
    assert.deepEqual(new SnapshotCache().get({ kind: 'dir', dir, from: 'setting' }), {
      flags: undefined,
      watched: [dir],
      problem: `help folder ${dir} does not exist; using the built-in flag table`,
    });
  });

  test('manifest files: each file is watched; an unreadable one is a problem', () => {
    const dir = scratch();
    const help = join(dir, 'vllm_serve_all.txt');
    copyFileSync(join(HELP, 'vllm', 'v0.20.1', 'vllm_serve_all.txt'), help);
    const cache = new SnapshotCache();
    const ok = cache.get({ kind: 'files', files: { vllm: [help] }, from: 'version_manifest' });
    assert.ok(knows(ok.flags, 'long_prefill_token_threshold'));
    assert.deepEqual(ok.watched, [help]);
    assert.equal(ok.problem, undefined);
    const gone = join(dir, 'sglang_launch_server.txt');
    const bad = cache.get({ kind: 'files', files: { sglang: [gone] }, from: 'version_manifest' });
    assert.equal(bad.problem, `cannot read ${gone}`);
    assert.equal(bad.flags?.sglang, undefined);
    assert.deepEqual(bad.watched, [gone]);
  });
});

describe('SnapshotCache.invalidate', () => {
  test('an edited help file is not re-read until a change inside its folder is reported', () => {
    const cache = new SnapshotCache();
    const dir = vllm066();
    const src = { kind: 'dir', dir, from: 'modeline' } as const;
    const before = cache.get(src);
    writeFileSync(join(dir, 'vllm_serve_help.txt'), readFileSync(join(HELP, 'vllm', 'v0.20.1', 'vllm_serve_all.txt')));
    assert.equal(cache.get(src), before, 'kept until told');
    assert.equal(cache.invalidate([join(dir, 'vllm_serve_help.txt')]), true);
    const after = cache.get(src);
    assert.notEqual(after, before);
    assert.ok(knows(after.flags, 'long_prefill_token_threshold'));
  });

  test('unrelated paths, and a sibling folder sharing the name\'s prefix, drop nothing', () => {
    const cache = new SnapshotCache();
    const dir = vllm066();
    const src = { kind: 'dir', dir, from: 'modeline' } as const;
    const e = cache.get(src);
    const builtin = cache.get({ kind: 'builtin' });
    assert.equal(cache.invalidate([`${dir}-old/vllm_serve_help.txt`, join(TMP, 'elsewhere.txt')]), false);
    assert.equal(cache.get(src), e);
    assert.equal(cache.invalidate([dir]), true, 'the folder itself');
    assert.notEqual(cache.get(src), e);
    assert.equal(cache.get({ kind: 'builtin' }), builtin, 'entries that watch nothing stay');
  });

  test('a folder that did not exist is picked up once its creation is reported', () => {
    const cache = new SnapshotCache();
    const parent = scratch();
    const dir = join(parent, 'v0.6.6');
    const src = { kind: 'dir', dir, from: 'setting' } as const;
    assert.ok(cache.get(src).problem);
    cpSync(join(HELP, 'vllm', 'v0.6.6'), dir, { recursive: true });
    assert.ok(cache.get(src).problem, 'still the cached miss');
    assert.equal(cache.invalidate([dir]), true);
    const e = cache.get(src);
    assert.equal(e.problem, undefined);
    assert.ok(knows(e.flags, 'max_num_seqs'));
  });

  test('a changed manifest file drops only the entries that read it', () => {
    const dir = scratch();
    const a = join(dir, 'a', 'vllm_serve_all.txt');
    const b = join(dir, 'b', 'vllm_serve_all.txt');
    cpSync(join(HELP, 'vllm', 'v0.20.1', 'vllm_serve_all.txt'), a);
    cpSync(join(HELP, 'vllm', 'v0.20.1', 'vllm_serve_all.txt'), b);
    const cache = new SnapshotCache();
    const ea = cache.get({ kind: 'files', files: { vllm: [a] }, from: 'version_manifest' });
    const eb = cache.get({ kind: 'files', files: { vllm: [b] }, from: 'version_manifest' });
    assert.ok(knows(ea.flags, 'max_num_seqs') && knows(eb.flags, 'max_num_seqs'));
    assert.equal(cache.invalidate([a]), true);
    assert.notEqual(cache.get({ kind: 'files', files: { vllm: [a] }, from: 'version_manifest' }), ea);
    assert.equal(cache.get({ kind: 'files', files: { vllm: [b] }, from: 'version_manifest' }), eb);
  });
});
