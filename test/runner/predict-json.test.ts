// predict.json in the run directory: a grid run writes the plan's (uncalibrated) predictions and fronts; an adaptive run
// writes per candidate the initial and the final (calibrated) prediction. Always labelled the simulated model's, small,
// and read back by the summary (summary.md's "Predicted vs measured" table).
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { PredictFile } from '../../src/core/results/predict-file';
import { cleanup, planYaml, runOnSim, tempDir } from '../support/runner';

const text = planYaml({
  frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [2]' },
  dataset: 'num_prompts: 32\nscenario_names: [chat]\ninput_len: [512]\noutput_len: [64]',
  benchmark: 'request_rates: null\nqps: {lower: 0.5, upper: 32, tolerance: 1, max_rounds: 4}',
  sla: 'max_p50_ttft_ms: 300\nmax_p50_tpot_ms: 40',
});

function readPredict(outDir: string): PredictFile {
  const file = path.join(outDir, 'predict.json');
  assert.ok(statSync(file).size < 20_000, 'small: capacities and fronts, no curves');
  return JSON.parse(readFileSync(file, 'utf8')) as PredictFile;
}

describe('predict.json', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanup));

  test('grid: every candidate predicted once (uncalibrated), with the fronts; summary.md compares them with the measurements', { timeout: 400_000 }, async () => {
    const d = tempDir();
    dirs.push(d);
    const { result } = await runOnSim(text, { outDir: path.join(d, 'grid'), strategy: 'grid', skipSmoke: true, repeats: 0 });
    const p = readPredict(result.outDir);
    assert.equal(p.simulated_model, true);
    assert.equal(p.strategy, 'grid');
    assert.equal(p.calibrated, false);
    assert.match(p.note, /simulated engine model, not measured/);
    assert.deepEqual(Object.keys(p.candidates).sort(), ['vllm baseline', 'vllm c1']);
    const base = p.candidates['vllm baseline']!;
    assert.equal(base.status, 'ok');
    assert.ok((base.initial.capacity.chat ?? 0) > 0, 'a predicted capacity');
    assert.ok(base.initial.rel_error > 0);
    assert.equal(base.final, undefined, 'grid: no calibrated prediction');
    assert.equal(p.fronts.length, 1);
    assert.equal(p.fronts[0]!.scenario, 'chat');
    assert.ok(p.fronts[0]!.by_user_tps.length > 0);
    assert.equal(p.fronts[0]!.leader?.candidate, 'baseline', 'max_num_seqs 2 is predicted behind the baseline');
    const md = readFileSync(path.join(result.outDir, 'summary.md'), 'utf8');
    assert.ok(md.includes('## Predicted vs measured'));
    assert.match(md, /\| chat \| `vllm` \| baseline \| \d+\.\d\d \| \d+\.\d\d \| [+-]?\d+% \|/);
    assert.equal(result.report?.predictions?.rows.length, 2);
  });

  test('adaptive: the initial and the final (calibrated) prediction per candidate; the skipped one says why in the table', { timeout: 400_000 }, async () => {
    const d = tempDir();
    dirs.push(d);
    const { result } = await runOnSim(text, { outDir: path.join(d, 'adaptive'), strategy: 'adaptive', skipSmoke: true, repeats: 0 });
    const p = readPredict(result.outDir);
    assert.equal(p.simulated_model, true);
    assert.equal(p.strategy, 'adaptive');
    const base = p.candidates['vllm baseline']!;
    const c1 = p.candidates['vllm c1']!;
    assert.ok(base.final && c1.final, 'a final prediction for every candidate');
    assert.ok((base.initial.capacity.chat ?? 0) > 0 && (base.final.capacity.chat ?? 0) > 0);
    const rows = result.report?.predictions?.rows ?? [];
    const skipped = rows.find((r) => r.candidate === 'c1');
    assert.match(skipped?.measuredText ?? '', /^not measured \(skipped: not measured: predicted \d+% behind the leader/);
    const measured = rows.find((r) => r.candidate === 'baseline');
    assert.ok(measured?.measured && measured.initialErrorText && measured.calibratedErrorText, 'measured: both errors');
    const md = readFileSync(path.join(result.outDir, 'summary.md'), 'utf8');
    assert.ok(md.includes('| Calibrated req/s |'));
  });
});
