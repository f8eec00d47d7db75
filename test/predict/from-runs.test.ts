// Calibration from a run directory: a search measured on a perturbed engine (hidden factors) is read back, each
// candidate's factors recovered within 5%, and the model's SLA capacity moves closer to the measured verdict.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calibrateRun, readRunDir, runStoreKey } from '../../src/predict/from-runs';
import { writeSyntheticRun, VERSION, type SyntheticRun } from './synthetic-run';

describe('calibration from a run directory', () => {
  let root: string;
  let run: SyntheticRun;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'autobench-from-runs-'));
    run = writeSyntheticRun(join(root, 'run'), { manifest: false });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('recovers the hidden factors within 5%; the capacity error after the fit is below the one before', () => {
    const read = readRunDir(run.dir);
    assert.ok(read.ok, read.ok ? '' : read.problem);
    const r = calibrateRun(read.run);
    assert.equal(r.simulated, true);
    assert.equal(r.gpu, 'H100', 'from the rows (no manifest): the sim label stripped');
    assert.equal(r.frameworks.length, 1);
    const f = r.frameworks[0]!;
    assert.deepEqual(f.key, { gpu: 'H100', framework: 'vllm', version: VERSION, simulated: true });
    assert.deepEqual(f.candidates.map((c) => c.candidate), [...run.truth.keys()]);
    assert.deepEqual(f.unfitted, []);
    for (const c of f.candidates) {
      const hidden = run.truth.get(c.candidate)!;
      assert.ok(Math.abs(c.factors.prefill / hidden.prefill - 1) < 0.05, `${c.candidate}: prefill ${c.factors.prefill} vs ${hidden.prefill}`);
      assert.ok(Math.abs(c.factors.decode / hidden.decode - 1) < 0.05, `${c.candidate}: decode ${c.factors.decode} vs ${hidden.decode}`);
      assert.ok(c.observations > 0 && c.observations <= c.trials);
      assert.equal(c.scenarios.length, 2);
      for (const s of c.scenarios) assert.ok(s.measured !== null && s.measured > 0 && s.before !== null && s.after !== null, JSON.stringify(s));
    }
    assert.ok(f.medianBefore !== null && f.medianAfter !== null && f.medianLeaveOneOut !== null);
    assert.ok(f.medianAfter < f.medianBefore, `after ${f.medianAfter} < before ${f.medianBefore}`);
    assert.ok(f.medianAfter < 0.1, `after ${f.medianAfter}`);
    assert.equal(f.points.length, 3);
  });

  test('the store key comes from the manifest when there is one', () => {
    const withManifest = writeSyntheticRun(join(root, 'run-m'));
    const read = readRunDir(withManifest.dir);
    assert.ok(read.ok);
    assert.deepEqual(runStoreKey(read.run, 'vllm'), { gpu: 'H100', framework: 'vllm', version: VERSION, simulated: true });
  });

  test('a folder that is not a run directory names itself and the fix', () => {
    const missing = readRunDir(join(root, 'nope'));
    assert.ok(!missing.ok && /nope: no such folder; pass the folder `autobench run PLAN --out DIR` wrote/.test(missing.problem));
    const empty = join(root, 'empty');
    mkdirSync(empty);
    const noPlan = readRunDir(empty);
    assert.ok(!noPlan.ok && /empty: not a run directory \(no plan\.yaml\)/.test(noPlan.problem));
    writeFileSync(join(empty, 'plan.yaml'), 'x: 1\n');
    const noRows = readRunDir(empty);
    assert.ok(!noRows.ok && /empty: no rows\.jsonl/.test(noRows.problem));
  });
});
