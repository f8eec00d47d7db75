// The one SLA reader: key names live in one module; a plan's limits (legacy spellings included) read the same for the runner and the report, and both judge rows alike.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readRunPlan } from '../../../src/core/plan/build';
import { runFactsFromPlan, parseRunFacts } from '../../../src/core/results/run-facts';
import { buildReport } from '../../../src/core/results/report';
import { readRows, type ResultRow } from '../../../src/core/results/rows';
import { readSlaLimits } from '../../../src/core/sla/limits';
import { judge } from '../../../src/runner/row-builder';
import { planYaml } from '../../support/runner';
import { rel, sourceFiles } from '../../support/source-graph';

const KEY_NAME = /\b(?:max|min)_(?:p50_|p99_)?(?:ttft|tpot|e2e)_ms\b|\bmin_success_rate\b/;

/** A plan whose SLA uses a legacy un-prefixed name and a deprecated tail limit beside a current key. */
const LEGACY = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' }, sla: 'max_ttft_ms: 200\nmax_p99_tpot_ms: 40\nmin_success_rate: 0.9' });

function row(p50Ttft: number, p99Tpot: number, success: number, status: ResultRow['status'] = 'ok'): ResultRow {
  return {
    framework: 'vllm',
    status,
    scenario: 'chat',
    candidate_id: 'baseline',
    metrics: { p50_ttft_ms: p50Ttft, p50_tpot_ms: 10, p99_tpot_ms: p99Tpot, success_rate: success, request_throughput: 3, output_token_throughput: 90 },
    sla: { passed: true },
  };
}

describe('one SLA reader', () => {
  test('SLA key names appear in src/core/sla/limits.ts only', () => {
    const hits: string[] = [];
    for (const f of sourceFiles('src', 'language-server/src')) {
      if (rel(f) === 'src/core/sla/limits.ts') continue;
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (KEY_NAME.test(line)) hits.push(`${rel(f)}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(hits, []);
  });

  test('legacy and deprecated keys: the plan, a report manifest and the reader agree', () => {
    const plan = readRunPlan({ text: LEGACY, path: '/tmp/legacy.plan.yaml' });
    const expected = { limits: { max_p50_ttft_ms: 200, max_p99_tpot_ms: 40, min_success_rate: 0.9 }, deprecated: ['max_ttft_ms', 'max_p99_tpot_ms'] };
    assert.deepEqual(plan.sla, expected);
    assert.deepEqual(parseRunFacts(LEGACY, 'legacy.plan.yaml').sla, expected);
    assert.deepEqual(runFactsFromPlan(plan).sla, expected);
    assert.deepEqual(readSlaLimits(new Map<string, unknown>([['max_ttft_ms', 200], ['max_p99_tpot_ms', 40], ['min_success_rate', 0.9]])), expected);
    // The playbook rejects the deprecated names: such a plan cannot run, and says why.
    assert.ok(plan.problems.some((p) => /is deprecated; use 'max_p50_ttft_ms'/.test(p)));
  });

  test('the runner and the report judge the same rows the same way', () => {
    const plan = readRunPlan({ text: LEGACY, path: '/tmp/legacy.plan.yaml' });
    const rows = [row(150, 30, 1), row(250, 30, 1), row(150, 50, 1), row(150, 30, 0.5), row(150, 30, 1, 'failed')];
    const read = readRows(rows.map((r) => JSON.stringify(r)).join('\n'), 'rows.jsonl');
    assert.ok(read.ok);
    const report = buildReport(read.rows, { rowsFile: 'rows.jsonl', manifestFile: 'plan.yaml', runFacts: runFactsFromPlan(plan), issues: [] });
    const runner = rows.map((r) => judge(r, plan.sla));
    assert.deepEqual(
      report.candidates.map((c) => [c.sla === 'pass', c.slaReasons]),
      runner.map((v) => [v.passed, v.reasons]),
    );
    assert.deepEqual(
      runner.map((v) => v.passed),
      [true, false, false, false, false],
    );
    assert.deepEqual(runner[1]?.reasons, ['p50 TTFT 250 ms > 200 ms']);
    assert.deepEqual(runner[2]?.reasons, ['p99 TPOT 50 ms > 40 ms']);
  });
});
