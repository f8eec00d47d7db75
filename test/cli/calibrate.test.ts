// `autobench calibrate` as a user runs it: the built CLI on a run directory (a search on a perturbed engine), the table,
// the store entry it writes under (GPU, framework, version, simulated), --dry-run, --json, and directories it cannot read.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CalibrationStore } from '../../src/predict/store';
import { REPO } from '../support/fixtures';
import { VERSION, writeSyntheticRun } from '../predict/synthetic-run';

const CLI = join(REPO, 'dist', 'cli.js');
const STACK = /\n\s+at .+:\d+/;

function run(args: string[], cwd = REPO): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', AUTOBENCH_DEBUG: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('autobench calibrate', () => {
  let dir: string;
  let runDir: string;
  before(() => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: run npm run build first');
    dir = mkdtempSync(join(tmpdir(), 'autobench-calibrate-'));
    runDir = writeSyntheticRun(join(dir, 'run')).dir;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the table per candidate and scenario, the medians, and the store entry written under its key', () => {
    const store = join(dir, 'store.json');
    const r = run(['calibrate', runDir, '--store', store]);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.startsWith(`CALIBRATION of the simulated engine model: ${runDir} (run synthetic-run-1), rows SIMULATED`), r.out.slice(0, 300));
    assert.match(r.out, /^vllm 0\.20\.1\+autobench\.sim: 3 measured candidates fitted$/m);
    assert.match(r.out, /^ {2}candidate\s+trials\s+prefill\s+decode\s+scenario\s+measured\s+before\s+after\s+leave-one-out$/m);
    for (const id of ['baseline', 'c1', 'c2']) assert.match(r.out, new RegExp(`^ {2}${id}\\s+\\d+/\\d+\\s+x\\d\\.\\d\\d\\s+x\\d\\.\\d\\d\\s+chat\\s+[\\d.]+\\s+[\\d.]+ \\([+-]\\d+%\\)\\s+[\\d.]+ \\([+-]\\d+%\\)\\s+[\\d.]+ \\([+-]\\d+%\\)$`, 'm'));
    assert.match(r.out, /^ {2}median \|error\|: before \d+%, after \d+%, leave-one-out \d+%$/m);
    assert.match(r.out, new RegExp(`^store ${store.replace(/[.]/g, '\\.')}: wrote\\n {2}H100 / vllm 0\\.20\\.1\\+autobench\\.sim / simulated: 3 candidates from these runs, 3 in the entry$`, 'm'));
    const s = JSON.parse(readFileSync(store, 'utf8')) as CalibrationStore;
    assert.equal(s.entries.length, 1);
    const e = s.entries[0]!;
    assert.deepEqual([e.gpu, e.framework, e.version, e.simulated], ['H100', 'vllm', VERSION, true]);
    assert.deepEqual(e.points.map((p) => p.candidate), ['baseline', 'c1', 'c2']);
    assert.deepEqual(e.sources, ['synthetic-run-1']);
  });

  test('--dry-run writes nothing (not even the default store in this folder); --json is one document', () => {
    const cwd = join(dir, 'workspace');
    mkdirSync(cwd);
    const r = run(['calibrate', runDir, '--dry-run'], cwd);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^store \.autobench\/calibration\.json: would write \(--dry-run: nothing written\)$/m);
    assert.ok(!existsSync(join(cwd, '.autobench')));
    const j = run(['calibrate', runDir, '--json'], cwd);
    assert.equal(j.code, 0, j.err);
    const doc = JSON.parse(j.out) as { simulated_model: boolean; store: string; runs: Array<{ simulated: boolean; frameworks: Array<{ candidates: unknown[]; medianAfter: number }> }>; written: Array<{ framework: string; total: number }>; errors: unknown[] };
    assert.equal(doc.simulated_model, true);
    assert.equal(doc.runs[0]?.simulated, true);
    assert.equal(doc.runs[0]?.frameworks[0]?.candidates.length, 3);
    assert.deepEqual(doc.written.map((w) => [w.framework, w.total]), [['vllm', 3]]);
    assert.deepEqual(doc.errors, []);
    assert.ok(existsSync(join(cwd, '.autobench', 'calibration.json')), 'the default store, in the current folder');
  });

  test('a directory that is not a run: named with the fix, exit 1, the others still calibrated and stored', () => {
    const store = join(dir, 'partial.json');
    const notRun = join(dir, 'not-a-run');
    mkdirSync(notRun);
    const r = run(['calibrate', notRun, runDir, join(dir, 'missing'), '--store', store]);
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`error: ${notRun.replace(/[.]/g, '\\.')}: not a run directory \\(no plan\\.yaml\\); pass the folder`));
    assert.match(r.err, /missing: no such folder/);
    assert.doesNotMatch(r.err, STACK);
    assert.match(r.out, /3 measured candidates fitted/);
    assert.ok(existsSync(store), 'the good directory is stored');
  });

  test('usage: --help, listed in the top-level help, no RUN_DIR is exit 2', () => {
    const h = run(['calibrate', '--help']);
    assert.equal(h.code, 0);
    assert.match(h.out, /^usage: autobench calibrate RUN_DIR\.\.\. \[--store FILE\] \[--dry-run\] \[--json\]/);
    assert.match(run(['--help']).out, /^ {2}calibrate RUN_DIR\.\.\. +fit/m);
    const none = run(['calibrate']);
    assert.equal(none.code, 2);
    assert.match(none.err, /calibrate needs at least one RUN_DIR/);
  });
});
