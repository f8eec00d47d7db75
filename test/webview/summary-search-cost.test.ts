// The summary panel's search strategy and GPU time section in headless Chromium: the strategy, the GPU-seconds per
// purpose and per candidate, adaptive's skipped candidates with their reasons (as text, never markup), and nothing at
// all for a run that recorded none. Outside CI, AUTOBENCH_SKIP_BROWSER=1 skips it where no chromium is installed.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildReport } from '../../src/core/results/report';
import { readRows } from '../../src/core/results/rows';
import { parseRunFacts } from '../../src/core/results/run-facts';
import { createNonce } from '../../src/webview/nonce';
import { standaloneReportHtml } from '../../src/webview/panel-html';
import { findPanelAssets } from '../../src/webview/report-page';
import { skipWhenMissing } from '../support/requirements';

const REPO = resolve(__dirname, '../..');
const MULTI = join(REPO, 'test', 'core', 'results', 'fixtures', 'multi-framework.jsonl');
const CHROMIUM = process.env.AUTOBENCH_CHROMIUM ?? '/usr/bin/chromium';
const SKIP = process.env.AUTOBENCH_SKIP_BROWSER === '1';

const XSS_ID = '<img src=x onerror="window.__xss=1">';
const XSS_REASON = '<b onmouseover="window.__xss2=1">boom</b><script>window.__xss3=1</script>';
const MANIFEST = {
  run_id: 'r1',
  simulated: true,
  gpu_seconds: { total: 412.4, by_purpose: { smoke: 40.2, search: 350, repeat: 22.2 }, by_candidate: { 'vllm baseline': 210.5, 'vllm c1': 160, 'sglang baseline': 41.9 } },
  search_strategy: {
    name: 'adaptive',
    source: 'option',
    measured: ['vllm baseline', 'vllm c1', 'sglang baseline'],
    skipped: [
      { framework: 'vllm', candidate: 'c2', reason: 'predicted 9.1 req/s at best, below vllm c1 measured 14.1' },
      { framework: 'sglang', candidate: XSS_ID, reason: XSS_REASON },
    ],
    grid_gpu_seconds_predicted: 1790,
  },
};

describe('summary panel: search strategy and GPU time', { skip: skipWhenMissing(SKIP ? 'AUTOBENCH_SKIP_BROWSER=1' : undefined) }, () => {
  let browser: Browser;
  let dir: string;

  /** The standalone page of the fixture's rows with these run facts (none: a run that recorded none). */
  function page(name: string, manifest: object | undefined): string {
    const assets = findPanelAssets();
    assert.ok(assets, 'dist/webview missing: run npm run build first');
    const read = readRows(readFileSync(MULTI, 'utf8'), 'rows.jsonl');
    assert.ok(read.ok);
    const model = buildReport(read.rows, { rowsFile: 'rows.jsonl', ...(manifest ? { manifestFile: 'manifest.json', runFacts: parseRunFacts(JSON.stringify(manifest), 'manifest.json') } : {}) });
    const file = join(dir, name);
    writeFileSync(file, standaloneReportHtml(model, assets, createNonce()));
    return file;
  }

  async function open(file: string): Promise<{ p: Page; errors: string[]; dialogs: string[] }> {
    const p = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    const dialogs: string[] = [];
    p.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    p.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await p.goto(pathToFileURL(file).href);
    await p.waitForSelector('body[data-state="ready"]', { timeout: 15_000 });
    return { p, errors, dialogs };
  }

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set AUTOBENCH_CHROMIUM`);
    dir = mkdtempSync(join(tmpdir(), 'autobench-panel-cost-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  });

  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the strategy, the sentence, GPU-seconds per purpose and per candidate (modelled), the skipped list as text', async () => {
    const { p, errors, dialogs } = await open(page('cost.html', MANIFEST));
    try {
      assert.equal((await p.textContent('#search-cost-title'))?.trim(), 'Search strategy and GPU time');
      assert.equal(await p.textContent('#strategy'), 'Strategy: adaptive (from --strategy).');
      assert.equal(await p.textContent('#gpu-summary'), 'Adaptive spent 412 modelled GPU-s (simulated), 23% of the 1790 GPU-s the grid would have spent (predicted).');
      const purposes = await p.locator('#gpu-purpose-table tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')?.textContent, r.querySelector('td')?.textContent]));
      assert.deepEqual(purposes, [['smoke', '40.2'], ['search', '350'], ['repeat', '22.2'], ['total', '412'], ['grid (predicted)', '1790']]);
      assert.equal(await p.locator('#gpu-candidate-table tbody tr').count(), 3);
      assert.deepEqual(await p.locator('#gpu-candidate-table thead th').allTextContents(), ['Framework', 'Candidate', 'Modelled GPU-seconds (simulated)', 'Share']);
      assert.deepEqual(await p.locator('#gpu-candidate-table tbody tr').first().locator('td').allTextContents(), ['vllm', 'baseline', '211', '51%']);
      // Sortable by seconds, like every other table.
      await p.locator('#gpu-candidate-table th[data-key="gpu-seconds"] button').click();
      assert.deepEqual(await p.locator('#gpu-candidate-table tbody tr').evaluateAll((rows) => rows.map((r) => r.querySelectorAll('td')[2]?.textContent)), ['211', '160', '41.9']);

      assert.equal(await p.locator('#skipped-table tbody tr').count(), 2);
      const cells = await p.locator('#skipped-table td').allTextContents();
      assert.ok(cells.includes(XSS_ID), 'the id is shown verbatim');
      assert.ok(cells.includes(XSS_REASON), 'the reason is shown verbatim');
      assert.ok(cells.includes('predicted 9.1 req/s at best, below vllm c1 measured 14.1'));
      const injected = await p.evaluate(() => ({
        imgs: document.querySelectorAll('#search-cost img').length,
        bold: document.querySelectorAll('#search-cost b').length,
        scripts: document.querySelectorAll('#search-cost script').length,
        globals: [(window as unknown as Record<string, unknown>).__xss, (window as unknown as Record<string, unknown>).__xss2, (window as unknown as Record<string, unknown>).__xss3],
      }));
      assert.deepEqual(injected, { imgs: 0, bold: 0, scripts: 0, globals: [undefined, undefined, undefined] });
      assert.deepEqual(errors, []);
      assert.deepEqual(dialogs, []);
    } finally {
      await p.close();
    }
  });

  test('a run that recorded neither: no section, no empty table', async () => {
    for (const [name, manifest] of [['none.html', undefined], ['old.html', { run_id: 'r0', simulated: false }]] as const) {
      const { p, errors } = await open(page(name, manifest));
      try {
        assert.equal(await p.locator('#search-cost').count(), 0, name);
        assert.equal(await p.locator('#gpu-candidate-table, #skipped-table, #gpu-purpose-table').count(), 0, name);
        assert.doesNotMatch((await p.textContent('#app')) ?? '', /GPU-s|GPU-seconds/, name);
        assert.deepEqual(errors, []);
      } finally {
        await p.close();
      }
    }
  });
});
