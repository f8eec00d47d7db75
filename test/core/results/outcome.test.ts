// A run's outcome per candidate, not per row: measured / skipped / failed with the first reason, trials counted apart, frameworks left out "not in this run" (never fails), one vocabulary for the report, the CLI and the notification.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildReport } from '../../../src/core/results/report';
import { runNotice } from '../../../src/core/results/outcome-text';
import { renderReportMarkdown } from '../../../src/core/results/report-write';
import { readRows } from '../../../src/core/results/rows';
import { reportOf, searchRow, type Row } from '../../support/report-rows';

const SKIP = "unknown flag 'totally_bogus_flag' (not in the captured vllm_serve_all.txt); never passed to the server";

const trial = (fw: string, cand: string, rate: number, passed: boolean, scenario = 'chat') => searchRow(fw, cand, rate, passed, 'search', scenario);

/** A framework the caller left out: one placeholder row per scenario, as the runner writes them. */
function leftOut(fw: string, scenario: string): Row {
  return { framework: fw, candidate_id: null, status: 'user_excluded', scenario, failure_reason: 'left out by --frameworks', trial: { mode: 'candidate' }, sla: { passed: false } };
}

const model = reportOf;

const excluded = ['vllm', 'tensorrt_llm', 'tokenspeed'].flatMap((fw) => [leftOut(fw, 'chat'), leftOut(fw, 'summarization')]);

describe('run outcome', () => {
  test('one baseline with 7 trials (4 within the SLA) and six placeholder rows: 1 candidate, 7 trials, three frameworks not in this run, none a fail', () => {
    const rates = [1, 16, 8, 12, 10, 9, 11];
    const rows = [...rates.map((r) => trial('sglang', 'baseline', r, r <= 10)), ...excluded];
    const m = model(rows);
    assert.deepEqual(m.outcome.counts, { candidates: 1, measured: 1, skipped: 0, failed: 0, passing: 1, trials: 7, trialsWithinSla: 4 });
    assert.equal(m.outcome.headline, '1 candidate: 1 measured · 1 met the SLA · 7 trials, 4 within the SLA · not in this run: vllm, tensorrt_llm, tokenspeed');
    assert.deepEqual(m.outcome.frameworks.map((f) => [f.framework, f.notInRun]), [['vllm', true], ['tensorrt_llm', true], ['tokenspeed', true]]);
    // The left-out frameworks are in no section as if they had run.
    assert.deepEqual(m.frameworks, ['sglang']);
    assert.deepEqual([...new Set(m.throughput.map((t) => t.framework))], ['sglang']);
    assert.ok(m.candidates.filter((c) => c.status === 'user_excluded').every((c) => !c.measured));
    // With nothing to compare with, neither a "wins" nor a "no handoff needed".
    assert.match(m.verdicts[0]?.summary ?? '', /^chat: sglang baseline meets the SLA up to .*; the only candidate measured, so there is nothing to compare it with$/);
    assert.equal(m.handoffAbsent, 'Only SGLang was measured: there is nothing to compare it with, so no profiler handoff.');
    const md = renderReportMarkdown(m);
    assert.match(md, /## Outcome\n\n\*\*1 candidate: 1 measured/);
    assert.match(md, /- `vllm`: not in this run \(left out by --frameworks\)/);
    assert.doesNotMatch(md, /### `vllm`/);
    const n = runNotice('completed', undefined, m.outcome, true);
    assert.deepEqual([n.level, n.problem], ['info', null]);
    assert.equal(n.text, `Autobench: ${m.outcome.headline} (simulated).`);
  });

  test('a framework the plan enables but the run left out (a lens, --frameworks) is not in the run either; one the plan enables with no row at all is', () => {
    const read = readRows([...[1, 8].map((r) => trial('sglang', 'baseline', r, r <= 4)), ...excluded].map((r) => JSON.stringify(r)).join('\n'), 'rows.jsonl');
    assert.ok(read.ok);
    const fw = (framework: string) => ({ framework, enabled: true, userExcluded: false, candidates: 3, totalCombinations: 3, untried: [] });
    const runFacts = { scenarios: [], versions: {}, frameworks: [fw('sglang'), fw('vllm'), fw('tokenspeed')], substitutions: [], problems: [] };
    const m = buildReport(read.rows, { rowsFile: 'rows.jsonl', runFacts });
    assert.deepEqual(m.frameworks, ['sglang']);
    const none = buildReport(read.rows.filter((r) => r.data.get('framework') !== 'tokenspeed'), { rowsFile: 'rows.jsonl', runFacts });
    assert.deepEqual(none.frameworks, ['sglang', 'tokenspeed']);
  });

  test('a candidate skipped for an unknown flag and nothing else: a warning that names the flag, and the first problem to jump to', () => {
    const skipped = (scenario: string): Row => ({ framework: 'vllm', candidate_id: 'baseline', status: 'skipped', scenario, failure_reason: SKIP, trial: { mode: 'candidate' }, sla: { passed: false } });
    const m = model([leftOut('sglang', 'chat'), skipped('chat'), skipped('summarization')]);
    assert.deepEqual(m.outcome.counts, { candidates: 1, measured: 0, skipped: 1, failed: 0, passing: 0, trials: 0, trialsWithinSla: 0 });
    assert.deepEqual(m.outcome.firstProblem, { framework: 'vllm', candidate: 'baseline', kind: 'skipped', reason: SKIP });
    assert.equal(m.verdicts[0]?.summary, 'chat: nothing was measured');
    const n = runNotice('completed', undefined, m.outcome, false);
    assert.equal(n.level, 'warning');
    assert.match(n.text, /^Autobench: nothing was measured\. vllm baseline was skipped: unknown flag 'totally_bogus_flag'/);
    assert.equal(n.problem?.framework, 'vllm');
    assert.match(renderReportMarkdown(m), /> \*\*Nothing was measured\.\*\* vllm baseline was skipped: unknown flag 'totally_bogus_flag'/);
  });

  test('a server that never came up is a failed candidate with its reason, not a measured one; a cancelled run says so first', () => {
    const failed: Row = { framework: 'vllm', candidate_id: 'c1', status: 'oom', scenario: 'chat', failure_reason: 'CUDA out of memory', trial: { mode: 'candidate' }, sla: { passed: false } };
    const m = model([trial('vllm', 'baseline', 4, true), trial('vllm', 'baseline', 8, false), failed]);
    assert.deepEqual(m.outcome.candidates.map((c) => [c.candidate, c.kind, c.trials, c.reason]), [
      ['baseline', 'measured', 2, ''],
      ['c1', 'failed', 0, 'CUDA out of memory'],
    ]);
    assert.equal(runNotice('completed', undefined, m.outcome, false).level, 'warning', 'a failed candidate is worth a look');
    assert.match(runNotice('cancelled', undefined, m.outcome, false).text, /^Autobench: run cancelled: 2 candidates: 1 measured, 1 failed/);
  });
});
