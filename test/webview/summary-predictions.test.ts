// The summary panel's "Predicted vs measured" section in headless Chromium: the table (predicted, calibrated, measured,
// error, why not measured), a predicted Pareto chart per scenario (SVG, every point labelled by its candidate, titled as
// the simulated model's), row text as text never markup, nothing for a run without predict.json, no CSP errors.
// Outside CI, AUTOBENCH_SKIP_BROWSER=1 skips it where no chromium is installed.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildReport } from '../../src/core/results/report';
import { readRows } from '../../src/core/results/rows';
import { predictRecordFacts } from '../../src/core/results/predict-file';
import type { RunFacts } from '../../src/core/results/run-facts';
import { createNonce } from '../../src/webview/nonce';
import { standaloneReportHtml } from '../../src/webview/panel-html';
import { findPanelAssets } from '../../src/webview/report-page';
import { skipWhenMissing } from '../support/requirements';

const REPO = resolve(__dirname, '../..');
const MULTI = join(REPO, 'test', 'core', 'results', 'fixtures', 'multi-framework.jsonl');
const CHROMIUM = process.env.AUTOBENCH_CHROMIUM ?? '/usr/bin/chromium';
const SKIP = process.env.AUTOBENCH_SKIP_BROWSER === '1';

const XSS_ID = '<img src=x onerror="window.__xss=1">';
const cap = (chat: number, summarization: number) => ({ rel_error: 0.3, capacity: { chat, summarization } });
const point = (candidate: string, tpg: number, tps: number) => ({ framework: 'sglang', candidate, rate: 5, throughput_per_gpu: tpg, per_user_tps: tps, p50_ttft_ms: 300 });
const PREDICT = {
  simulated_model: true,
  note: 'predicted by the simulated engine model, not measured',
  model_error: '<b>model error</b> on published GPU data: median 19%',
  strategy: 'adaptive',
  calibrated: true,
  candidates: {
    'sglang baseline': { framework: 'sglang', candidate: 'baseline', status: 'ok', gpus: 4, initial: cap(9, 3), final: cap(8.5, 3.1) },
    'sglang c1': { framework: 'sglang', candidate: 'c1', status: 'ok', gpus: 4, initial: cap(10, 3) },
    [`vllm ${XSS_ID}`]: { framework: 'vllm', candidate: XSS_ID, status: 'ok', gpus: 1, initial: cap(4, 1) },
  },
  fronts: [
    { scenario: 'chat', leader: { framework: 'sglang', candidate: 'c1', capacity: 10 }, by_user_tps: [point('baseline', 1800, 30), point('c1', 2500, 25), { ...point(XSS_ID, 2600, 12), framework: 'vllm' }] },
    { scenario: 'summarization', leader: null, by_user_tps: [] },
  ],
};

function facts(json: unknown): RunFacts {
  const r = predictRecordFacts(json);
  return { scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: [], ...(r.predictions ? { predictions: r.predictions } : {}), searchStrategy: { name: 'adaptive', source: 'option', measured: [], skipped: [{ framework: 'vllm', candidate: XSS_ID, reason: 'predicted far behind' }], stopped: [] } };
}

describe('summary panel: predicted vs measured', { skip: skipWhenMissing(SKIP ? 'AUTOBENCH_SKIP_BROWSER=1' : undefined) }, () => {
  let browser: Browser;
  let dir: string;

  function page(name: string, predict: object | undefined, extraRows = ''): string {
    const assets = findPanelAssets();
    assert.ok(assets, 'dist/webview missing: run npm run build first');
    const read = readRows(readFileSync(MULTI, 'utf8') + extraRows, 'rows.jsonl');
    assert.ok(read.ok);
    const model = buildReport(read.rows, { rowsFile: 'rows.jsonl', runFacts: facts(predict) });
    const file = join(dir, name);
    writeFileSync(file, standaloneReportHtml(model, assets, createNonce()));
    return file;
  }

  async function open(file: string): Promise<{ p: Page; errors: string[] }> {
    const p = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    p.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await p.goto(pathToFileURL(file).href);
    await p.waitForSelector('body[data-state="ready"]', { timeout: 15_000 });
    return { p, errors };
  }

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set AUTOBENCH_CHROMIUM`);
    dir = mkdtempSync(join(tmpdir(), 'autobench-panel-predict-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  });

  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the table, a labelled Pareto chart per scenario with a front, row text as text', async () => {
    const { p, errors } = await open(page('predict.html', PREDICT));
    try {
      assert.equal((await p.textContent('#predictions-title'))?.trim(), 'Predicted vs measured');
      assert.match((await p.textContent('#predictions-note')) ?? '', /predicted by the simulated engine model, not measured/);
      // predict.json's model_error, as text (never markup).
      assert.equal(await p.textContent('#predictions-model-error'), '<b>model error</b> on published GPU data: median 19%');
      assert.equal(await p.locator('#predictions-model-error b').count(), 0);
      assert.deepEqual(await p.locator('#predictions-table thead th').allTextContents(), ['Scenario', 'Framework', 'Candidate', 'Predicted req/s', 'Calibrated req/s', 'Measured req/s', 'Error', 'Calibrated error']);
      assert.deepEqual(await p.locator('#predictions-table tbody tr').first().locator('td').allTextContents(), ['chat', 'sglang', 'baseline', '9.00', '8.50', '8.10', '+11%', '+5%']);
      const cells = await p.locator('#predictions-table td').allTextContents();
      assert.ok(cells.includes(XSS_ID), 'the id is shown verbatim');
      assert.ok(cells.includes('not measured (skipped: predicted far behind)'));
      assert.equal(await p.locator('#predictions svg.pareto-chart').count(), 1, 'a chart only for a scenario with a front');
      assert.equal(await p.locator('#predictions svg.pareto-chart .pareto-title').textContent(), 'chat: Pareto front, predicted (simulated engine model)');
      assert.deepEqual(await p.locator('#predictions svg.pareto-chart .pareto-label').allTextContents(), ['sglang baseline', 'sglang c1', `vllm ${XSS_ID}`]);
      assert.equal(await p.locator('#predictions svg.pareto-chart polyline.pareto-front').count(), 1);
      assert.equal((await p.locator('#predictions svg.pareto-chart polyline').getAttribute('points'))?.split(' ').length, 3);
      assert.match((await p.textContent('#pareto-charts figcaption')) ?? '', /Predicted best: sglang c1 ≈ 10\.00 req\/s \(model\)/);
      const injected = await p.evaluate(() => ({ imgs: document.querySelectorAll('#predictions img').length, xss: (window as unknown as Record<string, unknown>).__xss }));
      assert.deepEqual(injected, { imgs: 0, xss: undefined });
      assert.deepEqual(errors, [], 'no CSP or script errors');
    } finally {
      await p.close();
    }
  });

  test('the measured view: every SLA-passing trial per GPU against per user, a P/D unit as a square, its front joined', async () => {
    // A 3-GPU unit beside the fixture's 4-GPU servers: 9000 output tok/s on 3 GPUs, 30 ms p50 TPOT.
    const first = JSON.parse(readFileSync(MULTI, 'utf8').split('\n')[0] as string) as Record<string, unknown>;
    const unit = { ...first, candidate_id: 'pd1', pd_unit: { transfer_backend: 'mooncake', prefill_workers: 2, decode_workers: 1, gpus: 3 }, hardware: { gpu_model: 'NVIDIA H100 80GB HBM3', gpu_count: 3 }, metrics: { ...(first.metrics as object), output_token_throughput: 9000, p50_tpot_ms: 30 } };
    const { p, errors } = await open(page('measured.html', undefined, `\n${JSON.stringify(unit)}\n`));
    try {
      assert.equal((await p.textContent('#measured-pareto-title'))?.trim(), 'Per GPU against per user (measured)');
      const chat = p.locator('#measured-pareto svg.pareto-chart[data-scenario="chat"]');
      assert.equal(await chat.count(), 1);
      assert.match((await chat.locator('.pareto-title').textContent()) ?? '', /^chat: SLA-passing trials, per GPU against per user, measured, P\/D units as squares$/);
      assert.equal(await chat.locator('rect.pareto-unit').count(), 1);
      // The unit leads per GPU (3000 tok/s on 3 GPUs); vllm c0 per user: the front is those two, joined and labelled.
      assert.deepEqual(await chat.locator('.pareto-label').allTextContents(), ['vllm c0', 'sglang pd1']);
      assert.equal((await chat.locator('polyline.pareto-front').getAttribute('points'))?.split(' ').length, 2);
      assert.deepEqual(errors, []);
    } finally {
      await p.close();
    }
  });

  test('a run without predict.json: no section', async () => {
    const { p, errors } = await open(page('none.html', undefined));
    try {
      assert.equal(await p.locator('#predictions, #predictions-table, #predictions svg.pareto-chart').count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await p.close();
    }
  });
});
