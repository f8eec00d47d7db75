// The run's summary states its search strategy and GPU time: summary.ts reads them from the run directory's
// manifest.json (as the run last saved it) through the report's one reader; a run without them says nothing.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRunPlan } from '../../src/core/plan/build';
import type { ReportModel } from '../../src/core/results/report-model';
import { RunDir } from '../../src/runner/artifacts';
import { writeSummary } from '../../src/runner/summary';
import { planYaml } from '../support/runner';

const plan = readRunPlan({ text: planYaml({ frameworks: { vllm: 'enabled: true\nserver_command: vllm serve\nsearch_space:\n  max_num_seqs: [8, 64]' } }), path: '/tmp/x.plan.yaml' });
const ROW = { framework: 'vllm', candidate_id: 'baseline', status: 'ok', simulated: true, workload: { scenario: 'chat' }, sla: { passed: true }, metrics: { request_throughput: 4 } };
const GPU = { total: 412.4, by_purpose: { smoke: 40.2, search: 350, repeat: 22.2 }, by_candidate: { 'vllm baseline': 300, 'vllm c1': 112.4 } };
const STRATEGY = { name: 'adaptive', source: 'plan', measured: ['vllm baseline', 'vllm c1'], skipped: [{ framework: 'vllm', candidate: 'c2', reason: 'predicted below vllm baseline; token hf_SECRETSECRETSECRET1234' }], grid_gpu_seconds_predicted: 1790 };

describe('summary: GPU time and search strategy from the run manifest', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  function run(manifest: Record<string, unknown> | undefined): { dir: RunDir; md: string; model: ReportModel } {
    const root = mkdtempSync(join(tmpdir(), 'autobench-summary-'));
    dirs.push(root);
    const dir = new RunDir(root);
    writeFileSync(dir.rowsFile, `${JSON.stringify(ROW)}\n`);
    if (manifest) writeFileSync(dir.manifestFile, JSON.stringify({ run_id: 'r1', simulated: true, ...manifest }));
    let seen: ReportModel | undefined;
    const w = writeSummary({ dir, plan, runId: 'r1', versions: {}, renderHtml: (m) => ((seen = m), '<html></html>') });
    assert.ok(seen);
    return { dir, md: readFileSync(w.files.markdown, 'utf8'), model: seen };
  }

  test('manifest.json with gpu_seconds and search_strategy: summary.md and the panel model state them, modelled on the simulator', () => {
    const { md, model } = run({ gpu_seconds: GPU, search_strategy: STRATEGY });
    assert.equal(model.searchCost?.summary, 'adaptive spent 412 modelled GPU-s (simulated), 23% of the 1790 GPU-s the grid would have spent (predicted).');
    assert.ok(md.includes('## Search strategy and GPU time'));
    assert.ok(md.includes("Strategy: **adaptive** (from the plan's search.strategy)."));
    assert.ok(md.includes('| Purpose | Modelled GPU-seconds (simulated) |'));
    assert.ok(md.includes('| `vllm` | c1 | 112 | 27% |'));
    assert.ok(md.includes('| `vllm` | c2 | predicted below vllm baseline; token'));
    assert.doesNotMatch(md, /hf_SECRETSECRETSECRET1234/);
    assert.doesNotMatch(model.searchCost?.skipped[0]?.reason ?? 'missing', /hf_SECRETSECRETSECRET1234/, 'reasons are scrubbed like every other run fact (the HTML page too)');
  });

  test('a run whose manifest has neither (an older run), or no manifest: nothing about them', () => {
    for (const manifest of [{}, undefined]) {
      const { md, model } = run(manifest);
      assert.equal(model.searchCost, null);
      assert.doesNotMatch(md, /GPU-s|Search strategy/);
    }
  });

  test('a manifest the caller passes wins over the file', () => {
    const root = mkdtempSync(join(tmpdir(), 'autobench-summary-'));
    dirs.push(root);
    const dir = new RunDir(root);
    writeFileSync(dir.rowsFile, `${JSON.stringify(ROW)}\n`);
    writeFileSync(dir.manifestFile, '{ torn');
    const w = writeSummary({ dir, plan, runId: 'r1', versions: {}, manifest: { simulated: false, gpu_seconds: { ...GPU, total: 10 } } });
    assert.equal(w.model.searchCost?.total?.text, '10.0');
    // An unreadable manifest.json alone is no error: the report just says nothing about GPU time.
    const w2 = writeSummary({ dir, plan, runId: 'r1', versions: {} });
    assert.equal(w2.model.searchCost, null);
  });
});
