// The live run panel: run events (trials, Slurm jobs) -> the host's state -> the page in headless Chromium under its CSP, hostile text shown as text.
// Outside CI, AUTOBENCH_SKIP_BROWSER=1 skips the browser part where no chromium is installed (npm test installs one).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { LiveState } from '../../src/extension/live-state';
import type { RunEvent } from '../../src/runner';
import { livePageHtml, type LiveMessage, type LiveUpdate } from '../../src/webview/live-page';
import { createNonce } from '../../src/webview/nonce';
import { skipWhenMissing } from '../support/requirements';

const CHROMIUM = process.env.AUTOBENCH_CHROMIUM ?? '/usr/bin/chromium';
const SKIP = process.env.AUTOBENCH_SKIP_BROWSER === '1';
const XSS_REASON = '<script>window.__xss=1</script><img src=x onerror="window.__xss2=1">';

const trial = { framework: 'vllm', candidateId: 'c1', key: 'vllm/c1/chat/r1', scenario: 'chat', mode: 'search', rate: 2, concurrency: null, round: 1 } as const;
const job = (jobId: string, state: string, extra: { node?: string; reason?: string; candidateId?: string; purpose?: string } = {}): RunEvent => ({
  type: 'job',
  framework: 'vllm',
  candidateId: extra.candidateId ?? 'c1',
  jobId,
  state,
  purpose: extra.purpose ?? 'search',
  ...(extra.node ? { node: extra.node } : {}),
  ...(extra.reason ? { reason: extra.reason } : {}),
});

/** A non-slurm run's events: a trial started, progressing, ended; a server that failed. */
const TRIAL_EVENTS: RunEvent[] = [
  { type: 'trial-start', ...trial, index: 1, of: 4, numPrompts: 50 },
  { type: 'trial-progress', ...trial, total: 50, completed: 20, failed: 0, inFlight: 4, elapsedS: 3, requestsPerS: 1.96, outputTokensPerS: 410, ttftMsP50: 44.2, tpotMsP50: 11.5 },
  { type: 'trial-end', ...trial, status: 'ok', slaPassed: true, reasons: [], requestThroughput: 1.98, p50TtftMs: 45, p50TpotMs: 11.25, resumed: false },
  { type: 'candidate-end', framework: 'vllm', candidateId: 'c2', status: 'oom', reason: 'CUDA out of memory' },
];

/** Two candidates' jobs: c1 waits (a hostile reason), starts on a node and completes; c2 is cancelled while pending. */
const JOB_EVENTS: RunEvent[] = [
  job('101', 'PENDING', { reason: XSS_REASON }),
  job('102', 'PENDING', { candidateId: 'c2', reason: 'Priority' }),
  job('101', 'RUNNING', { node: 'gpu-node-7' }),
  job('102', 'CANCELLED', { candidateId: 'c2', reason: 'cancelled by the run' }),
  job('103', 'PENDING', { purpose: 'repeat', reason: 'Resources' }),
  job('101', 'COMPLETED'),
];

describe('the live panel state', () => {
  test('trial events make rows as before; a finished candidate makes none', () => {
    const s = new LiveState();
    const updates = TRIAL_EVENTS.map((e) => s.apply(e));
    assert.deepEqual(updates.map((u) => u?.type), ['row', 'row', 'row', 'row']);
    const last = updates[2];
    assert.ok(last?.type === 'row');
    assert.deepEqual(last.row, { key: trial.key, trial: 'vllm c1 · chat @ 2.00 req/s offered (search round 1)', status: 'ok', reqPerS: '1.98', tokPerS: '410', ttft: '45.0', tpot: '11.25' });
    assert.equal(s.apply({ type: 'candidate-end', framework: 'vllm', candidateId: 'c1', status: 'done' }), undefined);
    assert.deepEqual(s.snapshot().map((u) => u.type), ['header', 'row', 'row'], 'a non-slurm run has no job in its state');
  });

  test('job events: one entry per job id, node kept once known, the reason only while it waits or after it failed', () => {
    const s = new LiveState();
    const updates = JOB_EVENTS.map((e) => s.apply(e));
    const jobs = (us: ReadonlyArray<LiveUpdate | undefined>) => us.flatMap((u) => (u?.type === 'job' ? [u.job] : []));
    assert.deepEqual(jobs(updates).map((j) => [j.jobId, j.state, j.node, j.reason]), [
      ['101', 'PENDING', '–', XSS_REASON],
      ['102', 'PENDING', '–', 'Priority'],
      ['101', 'RUNNING', 'gpu-node-7', ''],
      ['102', 'CANCELLED', '–', 'cancelled by the run'],
      ['103', 'PENDING', '–', 'Resources'],
      ['101', 'COMPLETED', 'gpu-node-7', ''],
    ]);
    assert.deepEqual(jobs(s.snapshot()).map((j) => [j.jobId, j.candidate, j.purpose, j.state]), [
      ['101', 'vllm c1', 'search', 'COMPLETED'],
      ['102', 'vllm c2', 'search', 'CANCELLED'],
      ['103', 'vllm c1', 'repeat', 'PENDING'],
    ]);
  });
});

/** Polls a condition a bounded number of times (each round waits for one browser round trip). */
async function until(cond: () => Promise<boolean>, rounds = 500): Promise<void> {
  for (let i = 0; i < rounds; i++) if (await cond()) return;
  throw new Error('condition not met');
}

describe('the live panel page in headless Chromium', { skip: skipWhenMissing(SKIP ? 'AUTOBENCH_SKIP_BROWSER=1' : undefined) }, () => {
  let browser: Browser;
  let dir: string;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set AUTOBENCH_CHROMIUM`);
    dir = mkdtempSync(join(tmpdir(), 'autobench-live-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  });

  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The page as the panel loads it (its own nonce and CSP), with a stand-in for VS Code's API that records what the page posts. */
  async function open(): Promise<{ page: Page; errors: string[]; send: (u: LiveUpdate) => Promise<void> }> {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.addInitScript(`window.__posted = []; window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m) });`);
    const file = join(dir, `live-${Math.random().toString(36).slice(2)}.html`);
    writeFileSync(file, livePageHtml(createNonce()));
    await page.goto(pathToFileURL(file).href);
    const posted = () => page.evaluate(() => (window as unknown as { __posted: Array<{ type: string; seq?: number }> }).__posted);
    await until(async () => (await posted()).some((m) => m.type === 'ready'));
    let seq = 0;
    const send = async (u: LiveUpdate): Promise<void> => {
      const msg: LiveMessage = { ...u, seq: u.type === 'header' || u.type === 'outcome' ? -1 : seq++ };
      await page.evaluate((m) => window.postMessage(m, '*'), msg);
      if (msg.seq >= 0) await until(async () => (await posted()).some((m) => m.type === 'shown' && m.seq === msg.seq));
    };
    return { page, errors, send };
  }

  const cells = (page: Page, table: string) => page.locator(`${table} tbody tr`).evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((td) => td.textContent ?? '')));

  test('a non-slurm run: the trials table only, the jobs section stays hidden', async () => {
    const { page, errors, send } = await open();
    try {
      const s = new LiveState();
      await send(s.setHeader('vllm · all on sim → out'));
      for (const e of TRIAL_EVENTS) await send(s.apply(e) as LiveUpdate);
      assert.equal(await page.locator('#jobs').isHidden(), true);
      assert.equal(await page.locator('#trials-table tbody tr').count(), 2);
      assert.deepEqual((await cells(page, '#trials-table'))[0], ['vllm c1 · chat @ 2.00 req/s offered (search round 1)', 'ok', '1.98', '410', '45.0', '11.25']);
      assert.equal(await page.textContent('#head'), 'vllm · all on sim → out');
      // The run's end: its outcome in the notification's words, a warning styled as one; kept for a reloaded page.
      assert.equal(await page.locator('#outcome').isHidden(), true);
      await send(s.setOutcome('nothing was measured. vllm baseline was skipped: unknown flag', 'warning'));
      await until(async () => (await page.locator('#outcome').isVisible()));
      assert.equal(await page.textContent('#outcome'), 'nothing was measured. vllm baseline was skipped: unknown flag');
      assert.equal(await page.getAttribute('#outcome', 'class'), 'warning');
      assert.deepEqual(s.snapshot().map((u) => u.type).slice(0, 2), ['header', 'outcome']);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('in a narrow panel the Trial cell stays on one line; the status wraps instead', async () => {
    const { page, errors, send } = await open();
    try {
      await page.setViewportSize({ width: 420, height: 600 });
      const s = new LiveState();
      for (const e of TRIAL_EVENTS) await send(s.apply(e) as LiveUpdate);
      await send(s.apply({ type: 'trial-end', ...trial, status: 'ok', slaPassed: false, reasons: ['p50 TTFT 2140 ms > 2000 ms', 'p50 TPOT 41 ms > 40 ms'], requestThroughput: 1.98, p50TtftMs: 2140, p50TpotMs: 41, resumed: false }) as LiveUpdate);
      /** How many lines a cell's text takes, by the distinct tops of its line boxes. */
      const lines = (col: number) =>
        page.locator(`#trials-table tbody tr:first-child td:nth-child(${col})`).evaluate((td) => {
          const r = document.createRange();
          r.selectNodeContents(td);
          return new Set(Array.from(r.getClientRects(), (x) => Math.round(x.top))).size;
        });
      assert.equal(await lines(1), 1, 'the Trial cell wrapped');
      assert.ok((await lines(2)) > 1, 'the long status should take the wrapping');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a slurm run: each job with its state, node and pending reason, updated in place; a hostile reason is text', async () => {
    const { page, errors, send } = await open();
    try {
      const s = new LiveState();
      const states = async () => (await cells(page, '#jobs-table')).map((r) => r.slice(2, 5).join(' '));
      await send(s.apply(JOB_EVENTS[0] as RunEvent) as LiveUpdate);
      assert.equal(await page.locator('#jobs').isVisible(), true);
      assert.deepEqual(await cells(page, '#jobs-table'), [['vllm c1', 'search', '101', 'PENDING', '–', XSS_REASON]]);
      for (const e of JOB_EVENTS.slice(1, 3)) await send(s.apply(e) as LiveUpdate);
      assert.deepEqual(await states(), ['101 RUNNING gpu-node-7', '102 PENDING –']);
      assert.equal(await page.textContent('#job-count'), '2 jobs: 1 running, 1 pending');
      for (const e of JOB_EVENTS.slice(3)) await send(s.apply(e) as LiveUpdate);
      assert.deepEqual(await states(), ['101 COMPLETED gpu-node-7', '102 CANCELLED –', '103 PENDING –']);
      assert.deepEqual(await page.locator('#jobs-table tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.state)), ['COMPLETED', 'CANCELLED', 'PENDING']);
      assert.deepEqual((await cells(page, '#jobs-table')).map((r) => r[5]), ['', 'cancelled by the run', 'Resources']);
      assert.equal(await page.textContent('#job-count'), '3 jobs: 1 completed, 1 cancelled, 1 pending');

      // The hostile reason was shown as text and ran nothing; the CSP logged no violation.
      const injected = await page.evaluate(() => ({ scripts: document.querySelectorAll('#jobs script').length, imgs: document.querySelectorAll('img').length, xss: [(window as unknown as Record<string, unknown>).__xss, (window as unknown as Record<string, unknown>).__xss2] }));
      assert.deepEqual(injected, { scripts: 0, imgs: 0, xss: [undefined, undefined] });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a reloaded page gets the whole state from the host again', async () => {
    const s = new LiveState();
    s.setHeader('vllm · all on slurm:gpu');
    for (const e of [...TRIAL_EVENTS, ...JOB_EVENTS]) s.apply(e);
    const { page, errors, send } = await open();
    try {
      for (const u of s.snapshot()) await send(u);
      assert.equal(await page.locator('#jobs-table tbody tr').count(), 3);
      assert.equal(await page.locator('#trials-table tbody tr').count(), 2);
      assert.equal(await page.textContent('#head'), 'vllm · all on slurm:gpu');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});
