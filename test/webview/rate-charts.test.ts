// `autobench report --html` in headless Chromium: per scenario, latency against the offered rate with one series per candidate and the SLA line drawn, achieved against offered, and hostile candidate ids inert in the legend.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { skipWhenMissing } from '../support/requirements';

const REPO = resolve(__dirname, '../..');
const CLI = join(REPO, 'dist', 'cli.js');
const ARTIFACTS = join(REPO, 'test-artifacts');
const CHROMIUM = process.env.AUTOBENCH_CHROMIUM ?? '/usr/bin/chromium';
const SKIP = process.env.AUTOBENCH_SKIP_BROWSER === '1';
const XSS_ID = '<img src=x onerror="window.__xss=1;alert(1)">';

/** A searched candidate: TTFT grows with the offered rate and crosses the 300 ms limit above `knee`. */
function search(fw: string, cand: string, knee: number, rates: number[]): Array<Record<string, unknown>> {
  return rates.map((rate, round) => {
    const ttft = 80 + 200 * (rate / knee) ** 3;
    return {
      framework: fw,
      candidate_id: cand,
      status: 'ok',
      workload: { scenario: 'chat', input_len: 512, output_len: 128, num_prompts: 40 },
      trial: { mode: 'search', rate, concurrency: null, round: round + 1 },
      metrics: { request_throughput: Math.min(rate, knee * 1.1) * 0.98, output_token_throughput: rate * 120, p50_ttft_ms: ttft, p50_tpot_ms: 8 + rate / 4, success_rate: 1 },
      sla: { max_p50_ttft_ms: 300, max_p50_tpot_ms: 20, passed: ttft <= 300 },
      simulated: true,
    };
  });
}

describe('latency against offered rate in the HTML report', { skip: skipWhenMissing(SKIP ? 'AUTOBENCH_SKIP_BROWSER=1' : undefined) }, () => {
  let browser: Browser;
  let dir: string;
  let html: string;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: install Debian's chromium or set AUTOBENCH_CHROMIUM`);
    dir = mkdtempSync(join(tmpdir(), 'autobench-rate-charts-'));
    const rows = [...search('vllm', 'c1', 10, [1, 16, 8, 12, 10, 11]), ...search('sglang', XSS_ID, 6, [1, 16, 8, 4, 6, 7])];
    writeFileSync(join(dir, 'rows.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    html = join(dir, 'report.html');
    const r = spawnSync(process.execPath, [CLI, 'report', join(dir, 'rows.jsonl'), '--html', html], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });

  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('one series per candidate, the SLA line drawn where it says, offered vs achieved, and a hostile id only as text', async () => {
    const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
    const errors: string[] = [];
    const dialogs: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(pathToFileURL(html).href);
      await page.waitForSelector('body[data-state="ready"]', { timeout: 15_000 });
      const ttft = page.locator('.rate-charts[data-scenario="chat"] .rate-chart[data-metric="ttft"]');
      assert.equal(await ttft.getAttribute('data-series'), '2');
      assert.equal(await ttft.getAttribute('data-sla'), '300');
      // The legend: the x (offered req/s), then one entry per candidate, the hostile id as its literal text.
      const legend = await ttft.locator('.u-legend .u-series th').allTextContents();
      assert.deepEqual(legend.map((t) => t.trim()), ['offered req/s', `sglang ${XSS_ID}`, 'vllm c1']);
      assert.deepEqual(await page.locator('.rate-charts[data-scenario="chat"] .rate-chart').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.metric)), ['ttft', 'tpot', 'rps']);
      // The SLA line is drawn at the height it says: the canvas there is the limit's red across the plot.
      const y = Number(await ttft.getAttribute('data-sla-y'));
      const red = await ttft.locator('canvas').evaluate((c: HTMLCanvasElement, yy: number) => {
        const ctx = c.getContext('2d');
        if (!ctx) return 0;
        let n = 0;
        for (let x = Math.floor(c.width * 0.15); x < c.width * 0.85; x += 7) {
          const [r, g, b] = ctx.getImageData(x, yy, 1, 1).data;
          if ((r ?? 0) > 180 && (g ?? 255) < 120 && (b ?? 255) < 120) n++;
        }
        return n;
      }, y);
      assert.ok(y > 0 && red > 20, `red pixels along the SLA line at y=${y}: ${red}`);
      // Hovering a rate names each candidate's trial there.
      const box = await ttft.locator('.u-over').boundingBox();
      assert.ok(box);
      await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2);
      assert.match((await ttft.locator('.u-legend').textContent()) ?? '', /search round \d/);
      assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.locator('.rate-charts').first().screenshot({ path: join(ARTIFACTS, 'report-rate-charts.png') });
      assert.deepEqual(errors, []);
      assert.deepEqual(dialogs, []);
    } finally {
      await page.close();
    }
  });
});
