// The Runs view's data and Compare runs: run folders read from their own manifest and summary.json, newest first; two runs' verdicts side by side, a change called only outside the noise.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { compareRunReports, comparisonMarkdown } from '../../../src/core/results/run-compare';
import { listRuns } from '../../../src/core/results/run-list';
import { reportOf, search } from '../../support/report-rows';

const model = reportOf;

describe('runs list', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'autobench-runs-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  test('each run folder from its manifest and summary.json, newest first; a folder without a manifest is not a run', () => {
    const run = (name: string, created: string, summary: unknown) => {
      const dir = path.join(root, name);
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ run_id: name, created_at: created, status: 'completed', simulated: true, plan: { path: '/w/plans/demo.plan.yaml' }, target: { spec: 'sim' }, frameworks: { sglang: { status: 'run', candidates: [{ id: 'baseline' }] }, vllm: { status: 'user_excluded', candidates: [] } } }));
      if (summary) writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
    };
    run('old', '2026-12-01T10:00:00.000Z', { scenarios: [{ scenario: 'chat', decided: true, winner: { framework: 'vllm', candidate: 'c2' }, ties: [] }] });
    run('new', '2026-12-02T04:02:13.612Z', { scenarios: [{ scenario: 'chat', decided: false, winner: { framework: 'vllm', candidate: 'c2' }, ties: [{ framework: 'sglang', candidate: 'baseline' }] }, { scenario: 'long', decided: false, winner: null, ties: [] }] });
    mkdirSync(path.join(root, 'not-a-run'));
    const runs = listRuns(root);
    assert.deepEqual(runs.map((r) => [r.runId, r.label, r.target, r.simulated]), [
      ['new', 'demo.plan · 2026-12-02 04:02:13', 'sim', true],
      ['old', 'demo.plan · 2026-12-01 10:00:00', 'sim', true],
    ]);
    assert.deepEqual(runs[0]?.winners, ['chat: tie (vllm c2, sglang baseline)', 'long: none']);
    assert.deepEqual(runs[1]?.winners, ['chat: vllm c2']);
    // What Rerun and Resume run: the frameworks it ran and the candidates they listed, not the ones left out.
    assert.deepEqual(runs[0]?.scope, { frameworks: ['sglang'], candidates: ['baseline'] });
    assert.deepEqual(listRuns(path.join(root, 'missing')), []);
  });
});

describe('compare runs', () => {
  test('per scenario both winners; each candidate in both runs with its change, called faster only when the change is significant and at least the minimum effect', () => {
    const a = model([...search('vllm', 'c1', 8, [1, 16, 8, 12, 10, 9]), ...search('sglang', 'baseline', 9, [1, 16, 8, 12, 10, 9])]);
    const b = model([...search('vllm', 'c1', 14, [1, 16, 8, 12, 14, 15]), ...search('sglang', 'baseline', 9.5, [1, 16, 8, 12, 10, 9.5])]);
    const c = compareRunReports(a, b, { a: 'before', b: 'after' });
    const chat = c.scenarios[0];
    assert.equal(chat?.winnerA, 'undecided: sglang baseline, vllm c1');
    assert.equal(chat?.winnerB, 'vllm c1');
    const by = (k: string) => chat?.candidates.find((x) => `${x.framework} ${x.candidate}` === k);
    // Each run's capacity is read between its search's last pass and first fail (8..9, 14..15).
    const v = by('vllm c1');
    assert.ok(v && v.a !== null && v.b !== null && v.a > 8 && v.a < 9 && v.b > 14 && v.b < 15, JSON.stringify(v));
    assert.equal(v?.call, 'faster');
    assert.equal(by('sglang baseline')?.call, 'within the noise');
    const md = comparisonMarkdown(c);
    assert.match(md, /\| `vllm` \| c1 \| 8\.\d\d \| 14\.\d\d \| \+\d\d\.\d% \| faster \|/);
    assert.match(md, /Winner: A undecided: sglang baseline, vllm c1 · B vllm c1/);
    assert.doesNotMatch(md, /not comparable/);
    assert.doesNotMatch(md, /Simulated/, 'rows that do not say simulated are not labelled so');
    const sim = (rows: ReturnType<typeof search>) => rows.map((r) => ({ ...r, simulated: true }));
    assert.match(comparisonMarkdown(compareRunReports(model(sim(search('vllm', 'c1', 8, [1, 8, 9]))), model(sim(search('vllm', 'c1', 9, [1, 9, 10]))), { a: 'A', b: 'B' })), /> \*\*Simulated:\*\* both runs are from the built-in simulated engine/);
  });

  test('a candidate that met the SLA in one run only says which', () => {
    const a = model(search('vllm', 'c1', 8, [1, 16, 8, 12, 10, 9]));
    const b = model(search('sglang', 'baseline', 9, [1, 16, 8, 12, 10, 9]));
    const calls = compareRunReports(a, b, { a: 'A', b: 'B' }).scenarios[0]?.candidates.map((x) => `${x.framework} ${x.call}`);
    assert.deepEqual(calls, ['vllm only in A', 'sglang only in B']);
  });
});
