// The report's "Predicted vs measured" section: predict.json read in one place (predictRecordFacts), each candidate ×
// scenario's predicted SLA capacity beside the verdict's measured one with the error, why an unmeasured one was not
// measured, the predicted fronts; labelled the simulated model's; nothing for a run without predictions.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { predictRecordFacts } from '../../../src/core/results/predict-file';
import { buildReport } from '../../../src/core/results/report';
import type { ReportModel } from '../../../src/core/results/report-model';
import { renderReportMarkdown } from '../../../src/core/results/report-write';
import { errorText } from '../../../src/core/results/report/predictions';
import { readRows } from '../../../src/core/results/rows';
import type { RunFacts } from '../../../src/core/results/run-facts';

const MULTI = join(__dirname, 'fixtures', 'multi-framework.jsonl');

const cap = (chat: number, summarization?: number) => ({ rel_error: 0.3, capacity: { chat, ...(summarization !== undefined ? { summarization } : {}) } });
const PREDICT = {
  version: 1,
  simulated_model: true,
  note: 'predicted by the simulated engine model, not measured',
  strategy: 'adaptive',
  gpu: 'H100',
  calibrated: true,
  scenarios: ['chat', 'summarization'],
  candidates: {
    'sglang baseline': { framework: 'sglang', candidate: 'baseline', status: 'ok', gpus: 4, initial: cap(9, 3), final: cap(8.5, 3.1) },
    'sglang c1': { framework: 'sglang', candidate: 'c1', status: 'ok', gpus: 4, initial: cap(10, 3) },
    'vllm c1': { framework: 'vllm', candidate: 'c1', status: 'oom', reason: 'KV cache does not fit', gpus: 0, initial: cap(0, 0) },
    'vllm c9': { framework: 'vllm', candidate: 'c9', status: 'ok', gpus: 1, initial: cap(4.2, 1), final: cap(4, 1) },
    'vllm <b>x</b>': { framework: 'vllm', candidate: '<b>x</b>', status: 'ok', gpus: 1, initial: cap(1, 1) },
  },
  fronts: [
    { scenario: 'chat', leader: { framework: 'sglang', candidate: 'c1', capacity: 10 }, by_user_tps: [{ framework: 'sglang', candidate: 'c1', rate: 10, throughput_per_gpu: 2500, per_user_tps: 25, p50_ttft_ms: 300 }], by_ttft: [] },
  ],
};

function facts(json: unknown, skipped: Array<{ framework: string; candidate: string; reason: string }> = [], stopped: Array<{ framework: string; candidate: string; scenario: string; rate: number }> = []): RunFacts {
  const r = predictRecordFacts(json);
  return { scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: r.problems, ...(r.predictions ? { predictions: r.predictions } : {}), searchStrategy: { name: 'adaptive', source: 'option', measured: [], skipped, stopped } };
}

function report(f: RunFacts): ReportModel {
  const read = readRows(readFileSync(MULTI, 'utf8'), 'rows.jsonl');
  assert.ok(read.ok);
  return buildReport(read.rows, { rowsFile: 'rows.jsonl', runFacts: f });
}

describe('predicted vs measured', () => {
  test('predicted (initial, calibrated) beside the verdict capacity, with the errors; unmeasured ones say why', () => {
    const m = report(facts(PREDICT, [{ framework: 'vllm', candidate: 'c9', reason: 'predicted 60% behind the leader' }]));
    const p = m.predictions;
    assert.ok(p);
    assert.equal(p.calibrated, true);
    assert.match(p.note, /simulated engine model, not measured/);
    const row = (fw: string, c: string, sc: string) => p.rows.find((r) => r.framework === fw && r.candidate === c && r.scenario === sc);
    const base = row('sglang', 'baseline', 'chat');
    assert.deepEqual([base?.initialText, base?.calibratedText, base?.measuredText, base?.initialErrorText, base?.calibratedErrorText], ['9.00', '8.50', '8.10', '+11%', '+5%']);
    assert.match(row('sglang', 'c1', 'summarization')?.measuredText ?? '', /^not measured \(failed: /);
    assert.equal(row('vllm', 'c9', 'chat')?.measuredText, 'not measured (skipped: predicted 60% behind the leader)');
    assert.equal(row('vllm', 'c1', 'chat')?.initialText, 'oom: KV cache does not fit');
    assert.equal(row('vllm', 'c1', 'chat')?.initialErrorText, '');
    assert.equal(p.fronts[0]?.title, 'chat: Pareto front, predicted (simulated engine model)');
    assert.equal(p.fronts[0]?.leader, 'sglang c1 ≈ 10.00 req/s');
  });

  test('a search adaptive stopped at its floor says so, in that scenario only', () => {
    const p = report(facts(PREDICT, [], [{ framework: 'vllm', candidate: 'c9', scenario: 'chat', rate: 3.2 }])).predictions;
    const row = (sc: string) => p?.rows.find((r) => r.framework === 'vllm' && r.candidate === 'c9' && r.scenario === sc);
    assert.equal(row('chat')?.measuredText, 'stopped: fails the SLA at 3.2 req/s, under which it can neither win nor tie');
    assert.doesNotMatch(row('summarization')?.measuredText ?? '', /stopped/);
  });

  test('summary.md: the table, labelled the model\u2019s, row text escaped', () => {
    const md = renderReportMarkdown(report(facts(PREDICT)));
    assert.ok(md.includes('## Predicted vs measured'));
    assert.ok(md.includes('> **Simulated model:** the predictions are predicted by the simulated engine model, not measured.'));
    assert.ok(md.includes('| Scenario | Framework | Candidate | Predicted req/s | Calibrated req/s | Measured req/s | Error | Calibrated error |'));
    assert.ok(md.includes('| chat | `sglang` | baseline | 9.00 | 8.50 | 8.10 | +11% | +5% |'));
    assert.ok(md.includes('| chat | `vllm` | \\<b>x\\</b> |'), 'candidate text escaped');
    assert.ok(md.includes('- chat: predicted best sglang c1 ≈ 10.00 req/s (model)'));
    // predict.json's model_error (the model against published GPU data) is quoted under the note; an older file has none.
    assert.ok(!md.includes('model error on published'));
    const withError = renderReportMarkdown(report(facts({ ...PREDICT, model_error: 'model error on published GPU data (uncalibrated; 10 points from 2 sources, measured 2026-12-06): median 19%' })));
    assert.ok(withError.includes('>\n> model error on published GPU data (uncalibrated; 10 points from 2 sources, measured 2026-12-06): median 19%\n'));
  });

  test('no predict.json (an older run), or one that is not a model prediction: no section', () => {
    assert.equal(report(facts(undefined)).predictions, null);
    assert.doesNotMatch(renderReportMarkdown(report(facts(undefined))), /Predicted vs measured/);
    const bad = facts({ ...PREDICT, simulated_model: false });
    assert.equal(report(bad).predictions, null);
    assert.match(bad.problems[0] ?? '', /predict\.json: expected/);
  });

  test('errors as signed whole percentages', () => {
    assert.deepEqual([errorText(0.114), errorText(-0.031), errorText(0), errorText(null)], ['+11%', '-3%', '0%', '']);
  });
});
