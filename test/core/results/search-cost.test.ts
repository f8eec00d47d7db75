// The run's search strategy and GPU time in the report: read from a run's manifest (gpu_seconds, search_strategy) in
// one place for `report --manifest` and the runner's summary, and stated in the Markdown; an older run's manifest
// (or a plan alone) says nothing about them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readRunPlan } from '../../../src/core/plan/build';
import { buildReport } from '../../../src/core/results/report';
import type { ReportModel } from '../../../src/core/results/report-model';
import { renderReportCsv, renderReportMarkdown } from '../../../src/core/results/report-write';
import { gpuSecondsText } from '../../../src/core/results/report/search-cost';
import { readRows } from '../../../src/core/results/rows';
import { parseRunFacts, runFactsFromPlan, runRecordFacts, type RunFacts } from '../../../src/core/results/run-facts';

const REPO = resolve(__dirname, '../../..');
const MULTI = join(__dirname, 'fixtures', 'multi-framework.jsonl');
const DEMO = join(REPO, 'configs', 'examples', 'demo.plan.yaml');

const GPU = { total: 412.4, by_purpose: { search: 350, smoke: 40.2, repeat: 22.2 }, by_candidate: { 'vllm baseline': 210.5, 'vllm c1': 160, 'sglang baseline': 41.9 } };
const ADAPTIVE = {
  name: 'adaptive',
  source: 'option',
  measured: ['vllm baseline', 'vllm c1', 'sglang baseline'],
  skipped: [
    { framework: 'vllm', candidate: 'c2', reason: 'predicted 9.1 req/s at best (8.2–10.0), below vllm c1 measured 14.1' },
    { framework: 'sglang', candidate: '<img src=x onerror=alert(1)>', reason: 'a|b <script>x</script>' },
  ],
  grid_gpu_seconds_predicted: 1790,
  calibration: [{ framework: 'vllm', before_median_error: 0.18, after_median_error: 0.061 }, { framework: 'sglang', before_median_error: null, after_median_error: 0.2 }],
};

/** A run's manifest.json as the runner writes it (the parts the report reads, and some it does not). */
function manifest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { run_id: 'r1', simulated: false, plan: { path: 'plan.yaml', sha256: 'x' }, sla: { max_p50_ttft_ms: 2000 }, tier: 2, frameworks: { vllm: { status: 'run', server_command: 'vllm serve', candidates: [], searches: {}, brackets: {} } }, resumes: [], live_servers: [], ...extra };
}

function reportWith(facts: RunFacts | undefined, rows = readFileSync(MULTI, 'utf8')): ReportModel {
  const read = readRows(rows, 'rows.jsonl');
  assert.ok(read.ok);
  return buildReport(read.rows, { rowsFile: 'rows.jsonl', ...(facts ? { manifestFile: 'manifest.json', runFacts: facts } : {}) });
}

describe('run facts: gpu_seconds and search_strategy from a manifest', () => {
  test('read in one place: totals, purposes, candidates, the strategy and its skips', () => {
    const rec = runRecordFacts(manifest({ gpu_seconds: GPU, search_strategy: ADAPTIVE }));
    assert.deepEqual(rec.problems, []);
    assert.deepEqual(rec.gpuSeconds, { total: 412.4, byPurpose: GPU.by_purpose, byCandidate: GPU.by_candidate, modelled: false });
    assert.deepEqual(rec.searchStrategy, {
      name: 'adaptive',
      source: 'option',
      measured: ADAPTIVE.measured,
      skipped: ADAPTIVE.skipped,
      stopped: [],
      gridGpuSecondsPredicted: 1790,
      calibration: [
        { framework: 'vllm', beforeMedianError: 0.18, afterMedianError: 0.061 },
        { framework: 'sglang', beforeMedianError: null, afterMedianError: 0.2 },
      ],
    });
    assert.equal(runRecordFacts(manifest({ simulated: true, gpu_seconds: GPU })).gpuSeconds?.modelled, true);
  });

  test('an older manifest, a plan, or no manifest: neither, and no problem', () => {
    for (const m of [manifest(), {}, undefined, null, 'text']) {
      assert.deepEqual(runRecordFacts(m), { problems: [] });
    }
    const plan = parseRunFacts(readFileSync(DEMO, 'utf8'), 'demo.plan.yaml');
    assert.equal(plan.gpuSeconds, undefined);
    assert.equal(plan.searchStrategy, undefined, "a plan's search.strategy is what it asks, not what ran");
  });

  test('malformed parts are left out with a problem; stray entries are dropped', () => {
    const rec = runRecordFacts(manifest({ gpu_seconds: { total: 'lots' }, search_strategy: { name: 'random', source: 'option' } }));
    assert.equal(rec.gpuSeconds, undefined);
    assert.equal(rec.searchStrategy, undefined);
    assert.deepEqual(rec.problems, ['gpu_seconds: expected {total, by_purpose, by_candidate} with a number total; GPU time left out', 'search_strategy: expected {name: grid or adaptive, source, measured, skipped}; strategy left out']);
    const loose = runRecordFacts(manifest({ gpu_seconds: { total: 5, by_purpose: { search: 'x', smoke: 5 } }, search_strategy: { name: 'grid', source: 'somewhere', measured: ['a b', 3], skipped: [null, { framework: 'vllm' }, { framework: 'vllm', candidate: 'c1' }], stopped: [{ framework: 'vllm', candidate: 'c1', scenario: 'chat', rate: 'x' }, { framework: 'vllm', candidate: 'c1', scenario: 'chat', rate: 2.5 }] } }));
    assert.deepEqual(loose.gpuSeconds, { total: 5, byPurpose: { smoke: 5 }, byCandidate: {}, modelled: false });
    assert.deepEqual(loose.searchStrategy, { name: 'grid', source: 'default', measured: ['a b'], skipped: [{ framework: 'vllm', candidate: 'c1', reason: '' }], stopped: [{ framework: 'vllm', candidate: 'c1', scenario: 'chat', rate: 2.5 }] });
  });

  test('report --manifest manifest.json: the run facts carry them (its problems too)', () => {
    const facts = parseRunFacts(JSON.stringify(manifest({ simulated: true, gpu_seconds: GPU, search_strategy: ADAPTIVE })), 'manifest.json');
    assert.equal(facts.gpuSeconds?.total, 412.4);
    assert.equal(facts.gpuSeconds?.modelled, true);
    assert.equal(facts.searchStrategy?.name, 'adaptive');
    // A bare record (no frameworks) too.
    const bare = parseRunFacts(JSON.stringify({ model: 'm', gpu_seconds: GPU, search_strategy: { ...ADAPTIVE, name: 'grid', source: 'plan' } }), 'run.json');
    assert.equal(bare.gpuSeconds?.byCandidate['vllm c1'], 160);
    assert.deepEqual([bare.searchStrategy?.name, bare.searchStrategy?.source], ['grid', 'plan']);
    assert.deepEqual(parseRunFacts(JSON.stringify(manifest({ gpu_seconds: [] })), 'manifest.json').problems, ['gpu_seconds: expected {total, by_purpose, by_candidate} with a number total; GPU time left out']);
  });

  test('runFactsFromPlan: the plan in memory plus the run manifest the runner passes', () => {
    const plan = readRunPlan({ text: readFileSync(DEMO, 'utf8'), path: DEMO });
    assert.equal(runFactsFromPlan(plan).gpuSeconds, undefined);
    const facts = runFactsFromPlan(plan, manifest({ gpu_seconds: GPU, search_strategy: ADAPTIVE }));
    assert.equal(facts.model, 'Qwen/Qwen3-8B');
    assert.equal(facts.gpuSeconds?.total, 412.4);
    assert.equal(facts.searchStrategy?.skipped.length, 2);
  });
});

describe('report: search strategy and GPU time', () => {
  test('the model: strategy and its source, GPU-seconds by purpose (smoke, search, repeat) and candidate, the grid share', () => {
    const cost = reportWith(parseRunFacts(JSON.stringify(manifest({ gpu_seconds: GPU, search_strategy: ADAPTIVE })), 'manifest.json')).searchCost;
    assert.ok(cost);
    assert.deepEqual(cost.strategy, { name: 'adaptive', source: 'option', from: 'from --strategy' });
    assert.equal(cost.unit, 'GPU-seconds', 'the fixture rows are not simulated');
    assert.deepEqual(cost.total, { gpuSeconds: 412.4, text: '412' });
    assert.deepEqual(cost.byPurpose.map((p) => [p.purpose, p.text]), [['smoke', '40.2'], ['search', '350'], ['repeat', '22.2']]);
    assert.deepEqual(cost.byCandidate.map((c) => [c.framework, c.candidate, c.text, c.share]), [['vllm', 'baseline', '211', '51%'], ['vllm', 'c1', '160', '39%'], ['sglang', 'baseline', '41.9', '10%']]);
    assert.deepEqual(cost.gridPredicted, { gpuSeconds: 1790, text: '1790' });
    assert.equal(cost.gridShare, '23%');
    assert.equal(cost.summary, 'adaptive spent 412 GPU-s, 23% of the 1790 GPU-s the grid would have spent (predicted).');
    assert.deepEqual(cost.skipped.map((s) => s.framework), ['sglang', 'vllm'], 'framework order');
    assert.deepEqual(cost.calibration, [{ framework: 'vllm', before: '18%', after: '6%' }, { framework: 'sglang', before: '', after: '20%' }]);
  });

  test('grid: what it spent per purpose, no grid comparison; the source in words', () => {
    const cost = reportWith(parseRunFacts(JSON.stringify(manifest({ gpu_seconds: GPU, search_strategy: { name: 'grid', source: 'default', measured: [], skipped: [] } })), 'manifest.json')).searchCost;
    assert.equal(cost?.summary, 'grid spent 412 GPU-s: smoke 40.2, search 350, repeat 22.2.');
    assert.equal(cost?.strategy?.from, 'the default');
    assert.equal(cost?.gridPredicted, null);
    // GPU time without a recorded strategy (a run from before strategies were recorded).
    const only = reportWith(parseRunFacts(JSON.stringify(manifest({ gpu_seconds: GPU })), 'manifest.json')).searchCost;
    assert.equal(only?.strategy, null);
    assert.match(only?.summary ?? '', /^the run spent 412 GPU-s: /);
  });

  test('on the simulator the seconds are labelled modelled', () => {
    const cost = reportWith(parseRunFacts(JSON.stringify(manifest({ simulated: true, gpu_seconds: GPU, search_strategy: ADAPTIVE })), 'manifest.json')).searchCost;
    assert.equal(cost?.unit, 'modelled GPU-seconds (simulated)');
    assert.equal(cost?.summary, 'adaptive spent 412 modelled GPU-s (simulated), 23% of the 1790 GPU-s the grid would have spent (predicted).');
    // Simulated rows alone make them modelled too.
    const simRows = JSON.stringify({ framework: 'vllm', candidate_id: 'baseline', status: 'ok', simulated: true, workload: { scenario: 'chat' }, metrics: { request_throughput: 3 } });
    assert.equal(reportWith(parseRunFacts(JSON.stringify(manifest({ gpu_seconds: GPU })), 'manifest.json'), simRows).searchCost?.modelled, true);
  });

  test('Markdown: the section with the strategy, the sentence, both tables and the skipped list, escaped', () => {
    const md = renderReportMarkdown(reportWith(parseRunFacts(JSON.stringify(manifest({ simulated: true, gpu_seconds: GPU, search_strategy: ADAPTIVE })), 'manifest.json')));
    const start = md.indexOf('## Search strategy and GPU time');
    assert.ok(start > md.indexOf('## Hardware and versions') && start < md.indexOf('## Best command per framework and scenario'), 'after hardware, before the best commands');
    const section = md.slice(start, md.indexOf('## Best command'));
    assert.ok(section.includes('Strategy: **adaptive** (from --strategy).'));
    assert.ok(section.includes('Adaptive spent 412 modelled GPU-s (simulated), 23% of the 1790 GPU-s the grid would have spent (predicted).'));
    assert.ok(section.includes('| Purpose | Modelled GPU-seconds (simulated) |\n| --- | ---: |\n| smoke | 40.2 |\n| search | 350 |\n| repeat | 22.2 |\n| **total** | **412** |\n| grid (predicted) | 1790 |'));
    assert.ok(section.includes('| `vllm` | baseline | 211 | 51% |'));
    assert.ok(section.includes('**Skipped by adaptive** (2)'));
    assert.ok(section.includes('| `vllm` | c2 | predicted 9.1 req/s at best (8.2–10.0), below vllm c1 measured 14.1 |'));
    assert.ok(section.includes('| `sglang` | \\<img src=x onerror=alert(1)> | a\\|b \\<script>x\\</script> |'), 'row text never becomes HTML');
    assert.doesNotMatch(section, /(?:^|[^\\])<(img|script)/m);
    assert.ok(section.includes('| `vllm` | 18% | 6% |'));
  });

  test('an older run (no gpu_seconds, no search_strategy) or no manifest: nothing about it, no empty table', () => {
    for (const facts of [parseRunFacts(JSON.stringify(manifest()), 'manifest.json'), undefined]) {
      const m = reportWith(facts);
      assert.equal(m.searchCost, null);
      const md = renderReportMarkdown(m);
      assert.doesNotMatch(md, /GPU-s|GPU time|Search strategy|Skipped by adaptive/);
    }
  });

  test('a strategy without GPU time says so; the CSV (rows only) is the same either way', () => {
    const facts = parseRunFacts(JSON.stringify(manifest({ search_strategy: { name: 'adaptive', source: 'plan', measured: [], skipped: [] } })), 'manifest.json');
    const m = reportWith(facts);
    assert.equal(m.searchCost?.summary, 'adaptive ran; its GPU time was not recorded.');
    const md = renderReportMarkdown(m);
    assert.ok(md.includes("Strategy: **adaptive** (from the plan's search.strategy)."));
    assert.doesNotMatch(md, /\| Purpose \|/);
    assert.equal(renderReportCsv(m), renderReportCsv(reportWith(undefined)));
  });

  test('GPU-seconds as written: whole seconds from 100, one decimal below', () => {
    assert.deepEqual([0, 0.04, 9.96, 99.94, 100, 1790.4, 1790.5].map(gpuSecondsText), ['0.0', '0.0', '10.0', '99.9', '100', '1790', '1791']);
  });
});
