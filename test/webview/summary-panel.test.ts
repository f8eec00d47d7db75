// The summary panel in headless Chromium (Debian's chromium via playwright-core): the page that
// `autobench report --html` writes, and the webview page driven through the ready/load handshake.
// Outside CI, AUTOBENCH_SKIP_BROWSER=1 skips it where no chromium is installed (npm test installs one).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { readRows } from '../../src/core/results/rows';
import { buildReport } from '../../src/core/results/report';
import { summaryPanelHtml } from '../../src/webview/panel-html';
import { createNonce } from '../../src/webview/nonce';
import { skipWhenMissing } from '../support/requirements';

const REPO = resolve(__dirname, '../..');
const CLI = join(REPO, 'dist', 'cli.js');
const BUNDLE = join(REPO, 'dist', 'webview');
const MULTI = join(REPO, 'test', 'core', 'results', 'fixtures', 'multi-framework.jsonl');
const ARTIFACTS = join(REPO, 'test-artifacts');
const CHROMIUM = process.env.AUTOBENCH_CHROMIUM ?? '/usr/bin/chromium';
const SKIP = process.env.AUTOBENCH_SKIP_BROWSER === '1';

const XSS_ID = '<img src=x onerror="window.__xss=1;alert(1)">';
const XSS_REASON = '<b onmouseover="window.__xss2=1">boom</b><script>window.__xss3=1</script>';

interface Watch {
  errors: string[];
  dialogs: string[];
}

/** Polls a condition a bounded number of times (each round waits for one browser round trip). */
async function until(cond: () => Promise<boolean>, rounds = 500): Promise<void> {
  for (let i = 0; i < rounds; i++) if (await cond()) return;
  throw new Error('condition not met');
}

function watch(page: Page): Watch {
  const w: Watch = { errors: [], dialogs: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') w.errors.push(m.text());
  });
  page.on('pageerror', (e) => w.errors.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  return w;
}

describe('summary panel in headless Chromium', { skip: skipWhenMissing(SKIP ? 'AUTOBENCH_SKIP_BROWSER=1' : undefined) }, () => {
  let browser: Browser;
  let dir: string;
  let html: string;
  let rowsFile: string;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set AUTOBENCH_CHROMIUM`);
    assert.ok(existsSync(CLI) && existsSync(join(BUNDLE, 'summary.js')), 'dist/ missing: run npm run build first');
    dir = mkdtempSync(join(tmpdir(), 'autobench-panel-'));
    rowsFile = join(dir, 'rows.jsonl');
    const hostile = { framework: 'vllm', candidate_id: XSS_ID, status: 'failed', failure_reason: XSS_REASON, workload: { scenario: 'chat' }, sla: { passed: false } };
    writeFileSync(rowsFile, `${readFileSync(MULTI, 'utf8')}${JSON.stringify(hostile)}\n`);
    html = join(dir, 'report.html');
    const r = spawnSync(process.execPath, [CLI, 'report', rowsFile, '--html', html], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });

  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(): Promise<{ page: Page; w: Watch }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const w = watch(page);
    await page.goto(pathToFileURL(html).href);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 15_000 });
    return { page, w };
  }

  test('renders every row, the badges, the charts, and logs no error (CSP included)', async () => {
    const { page, w } = await open();
    try {
      assert.equal(await page.getAttribute('body', 'data-rows'), '14');
      assert.equal(await page.locator('#candidates-table tbody tr').count(), 14);
      assert.equal(await page.locator('#cross-table tbody tr').count(), 6);
      assert.equal(await page.locator('#not-selected-table tbody tr').count(), 7);
      // The verdict per scenario, the same as the Markdown's: one article per scenario, decided or a tie.
      assert.equal(await page.locator('#verdict-list article.verdict').count(), await page.locator('#cross-table tbody tr').evaluateAll((rows) => new Set(rows.map((r) => r.querySelector('td')?.textContent)).size));
      assert.match((await page.locator('#verdict-list article.verdict').first().textContent()) ?? '', /^chat: (winner|equivalent|undecided)/);
      // Counts are per candidate, not per row, and trials apart: the same headline as the Markdown's Outcome.
      assert.equal((await page.textContent('#candidate-count'))?.trim(), '11');
      assert.match((await page.textContent('#trial-count')) ?? '', /^8 trials, 7 within the SLA$/);

      const badges = await page.locator('#candidates-table .badge').allTextContents();
      assert.equal(badges.filter((t) => t === 'SLA pass').length, 7);
      // Only a measured trial gets an SLA verdict; a skip or a server that never came up says what it is.
      assert.equal(badges.filter((t) => t === 'SLA fail').length, 1);
      assert.equal(badges.filter((t) => t === 'skipped').length, 2);
      const c2 = page.locator('#candidates-table tbody tr', { hasText: 'c2' }).filter({ hasText: 'chat' }).filter({ hasText: 'sglang' });
      assert.equal(await c2.locator('.badge-fail').getAttribute('title'), 'p50 TTFT 2140 ms > 2000 ms');
      assert.deepEqual(await page.locator('#cross-table tbody tr:first-child td').allTextContents().then((t) => t.slice(0, 5)), ['chat', '1 (tie)', 'vllm', 'c0', 'SLA pass']);

      // Two charts per scenario, each with pixels drawn on its canvas.
      const inked = await page.evaluate(() =>
        Array.from(document.querySelectorAll<HTMLCanvasElement>('#charts canvas')).map((c) => {
          const data = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? new Uint8ClampedArray();
          let n = 0;
          for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) n++;
          return n;
        }),
      );
      assert.equal(inked.length, 4, `canvases: ${inked.length}`);
      assert.ok(inked.every((n) => n > 500), `inked pixels per canvas: ${inked.join(', ')}`);

      assert.match((await page.textContent('#handoff-section')) ?? '', /prefill: 1000 → 1/);
      assert.equal(await page.locator('#handoff-section vscode-button').count(), 3);

      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'summary-panel.png'), fullPage: true });
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.dialogs, []);
    } finally {
      await page.close();
    }
  });

  test('Save as Markdown / CSV download the report files in a browser', async () => {
    const { page, w } = await open();
    try {
      for (const [id, name, head] of [
        ['#save-markdown', 'benchmark-report.md', /^# Benchmark report: Qwen\/Qwen3-32B\n/],
        ['#save-csv', 'benchmark-report.csv', /^line,framework,scenario,candidate_id,/],
      ] as const) {
        const [download] = await Promise.all([page.waitForEvent('download'), page.locator(id).click()]);
        assert.equal(download.suggestedFilename(), name);
        const path = await download.path();
        assert.match(readFileSync(path, 'utf8'), head);
      }
      assert.deepEqual(w.errors, []);
    } finally {
      await page.close();
    }
  });

  test('sorting by a column reorders the rows and survives a reload', async () => {
    const { page } = await open();
    try {
      const head = page.locator('#candidates-table th[data-key="request_throughput"]');
      const firstCells = async () => page.locator('#candidates-table tbody tr:visible').first().locator('td').allTextContents();
      await head.locator('button').click();
      assert.equal(await head.getAttribute('aria-sort'), 'descending');
      const top = await firstCells();
      assert.deepEqual([top[0], top[2], top[5]], ['vllm', 'c0', '12']);
      await head.locator('button').click();
      assert.equal(await head.getAttribute('aria-sort'), 'ascending');
      assert.equal((await firstCells())[5], '2.50');
      // Rows without a value stay last in both directions.
      const last = await page.locator('#candidates-table tbody tr').last().locator('td').nth(5).textContent();
      assert.equal(last, '');

      await page.reload();
      await page.waitForSelector('body[data-state="ready"]');
      assert.equal(await page.locator('#candidates-table th[data-key="request_throughput"]').getAttribute('aria-sort'), 'ascending');
      assert.equal((await firstCells())[5], '2.50');
    } finally {
      await page.close();
    }
  });

  test('a hostile candidate id and reason render as text and run nothing', async () => {
    const { page, w } = await open();
    try {
      const cells = await page.locator('#candidates-table td').allTextContents();
      assert.ok(cells.includes(XSS_ID), 'the id is shown verbatim');
      assert.ok((await page.locator('#not-selected-table td').allTextContents()).includes(XSS_REASON));
      const injected = await page.evaluate(() => ({
        imgs: document.querySelectorAll('#app img').length,
        bold: document.querySelectorAll('#app b').length,
        scripts: document.querySelectorAll('#app script').length,
        globals: [(window as unknown as Record<string, unknown>).__xss, (window as unknown as Record<string, unknown>).__xss2, (window as unknown as Record<string, unknown>).__xss3],
      }));
      assert.deepEqual(injected, { imgs: 0, bold: 0, scripts: 0, globals: [undefined, undefined, undefined] });
      await page.locator('#candidates-table td', { hasText: 'onerror' }).first().hover();
      assert.deepEqual(w.dialogs, []);
      assert.equal(await page.evaluate(() => (window as unknown as Record<string, unknown>).__xss2), undefined);
    } finally {
      await page.close();
    }
  });

  test('large runs page the table: 200 rows at a time, sorting and filtering across all of them', async () => {
    const many = join(dir, 'many.jsonl');
    const rows: string[] = [];
    for (let i = 0; i < 450; i++) {
      rows.push(JSON.stringify({ framework: ['sglang', 'vllm'][i % 2], candidate_id: `k${i}`, status: 'ok', workload: { scenario: 'chat' }, sla: { passed: true }, metrics: { request_throughput: i / 10 } }));
    }
    writeFileSync(many, `${rows.join('\n')}\n`);
    const manyHtml = join(dir, 'many.html');
    assert.equal(spawnSync(process.execPath, [CLI, 'report', many, '--html', manyHtml], { encoding: 'utf8' }).status, 0);
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const w = watch(page);
    try {
      await page.goto(pathToFileURL(manyHtml).href);
      await page.waitForSelector('body[data-state="ready"]');
      const table = page.locator('#candidates-table');
      const status = page.locator('#candidates .pager-status');
      assert.equal(await table.locator('tbody tr').count(), 200);
      assert.equal(await status.textContent(), 'Rows 1–200 of 450');
      await page.locator('#candidates .pager-next').click();
      assert.equal(await status.textContent(), 'Rows 201–400 of 450');
      assert.equal(await table.locator('tbody tr').first().locator('td').nth(2).textContent(), 'k200');
      // Sorting orders all 450 rows and goes back to the first page.
      await table.locator('th[data-key="request_throughput"] button').click();
      assert.equal(await status.textContent(), 'Rows 1–200 of 450');
      assert.equal(await table.locator('tbody tr').first().locator('td').nth(2).textContent(), 'k449');
      await page.locator('#filter').locator('input').fill('k44');
      assert.equal(await page.textContent('#shown-count'), '11 of 450 shown');
      assert.equal(await table.locator('tbody tr').count(), 11);
      assert.deepEqual(w.errors, []);
    } finally {
      await page.close();
    }
  });

  test('in a webview: says ready, renders what the host sends, keeps state through vscode.setState', async () => {
    const read = readRows(readFileSync(rowsFile, 'utf8'), rowsFile);
    assert.ok(read.ok);
    const model = buildReport(read.rows, { rowsFile });
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const w = watch(page);
    try {
      // The stub stands in for VS Code's acquireVsCodeApi; the page itself is summaryPanelHtml.
      // A string, not a function: the test transpiler would wrap a function in helpers the page lacks.
      await page.addInitScript(`
        window.__posted = [];
        window.acquireVsCodeApi = () => ({
          postMessage: (m) => window.__posted.push(m),
          getState: () => window.__state,
          setState: (s) => { window.__state = s; },
        });`);
      const nonce = createNonce();
      const page0 = join(dir, 'webview.html');
      writeFileSync(page0, summaryPanelHtml({ nonce, cspSource: 'file:', scriptUri: pathToFileURL(join(BUNDLE, 'summary.js')).href, styleUri: pathToFileURL(join(BUNDLE, 'summary.css')).href }));
      await page.goto(pathToFileURL(page0).href);
      // Polled with evaluate: waitForFunction compiles its predicate in the page, which the CSP forbids.
      await until(async () => (await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted.length)) > 0);
      assert.deepEqual(await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted), [{ type: 'ready' }]);

      await page.evaluate((m) => window.postMessage({ type: 'load', model: m }, '*'), model as unknown as Record<string, unknown>);
      await page.waitForSelector('body[data-state="ready"]');
      const posted = await page.evaluate(() => (window as unknown as { __posted: Array<{ type: string; rowCount?: number }> }).__posted);
      assert.equal(posted[1]?.type, 'rendered');
      assert.equal(posted[1]?.rowCount, 14);

      await page.locator('#candidates-table th[data-key="p50_ttft_ms"] button').click();
      // The click may scroll the page, and the scroll position is saved too (after 200 ms: on a busy machine it can be there already).
      const state = await page.evaluate(() => (window as unknown as { __state: Record<string, unknown> }).__state);
      const { scrollY, ...rest } = state;
      assert.ok(scrollY === undefined || typeof scrollY === 'number', `scrollY: ${String(scrollY)}`);
      assert.deepEqual(rest, { sort: { key: 'p50_ttft_ms', dir: 'desc' } });

      await page.locator('#save-csv').click();
      const save = await page.evaluate(() => (window as unknown as { __posted: Array<{ type: string; format?: string; content?: string }> }).__posted.find((m) => m.type === 'save'));
      assert.equal(save?.format, 'csv');
      assert.match(save?.content ?? '', /^line,framework,scenario,/);

      // A reloaded panel gets its state back from the host and re-applies it.
      await page.evaluate((m) => window.postMessage({ type: 'load', model: m, state: { sort: { key: 'candidate', dir: 'asc' } } }, '*'), model as unknown as Record<string, unknown>);
      assert.equal(await page.locator('#candidates-table th[data-key="candidate"]').getAttribute('aria-sort'), 'ascending');
      // Anything that is not a typed host message is ignored.
      await page.evaluate(() => window.postMessage({ type: 'load', model: '<img src=x onerror=alert(1)>' }, '*'));
      assert.equal(await page.locator('#candidates-table tbody tr').count(), 14);
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.dialogs, []);
    } finally {
      await page.close();
    }
  });
});
