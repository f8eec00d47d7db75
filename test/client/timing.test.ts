// Every timing metric the client reports, checked against the fake server's record of when it wrote each event.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runBenchmark } from '../../src/client/run-benchmark';
import type { BenchResult } from '../../src/client/types';
import type { RequestRecord } from '../../src/client/record';
import type { Backend } from '../../src/client/backends';
import { tpotOf } from '../../src/client/metrics';
import { truthMetrics, type FakeBehaviour, type Truth } from '../support/fake-server';
import { rows, sum, withServer, workload } from '../support/client';

// In-process, same clock: a token is stamped after the server wrote it, and soon after.
const MAX_LAG_MS = 100;
const MEAN_LAG_MS = 15;

function promptOf(t: Truth): string {
  const b = t.body;
  if (typeof b.prompt === 'string') return b.prompt;
  if (typeof b.text === 'string') return b.text;
  const m = b.messages as { content: string }[];
  return m[m.length - 1]?.content ?? '';
}

/** Pairs each measured record with the server's record of the same request (by prompt text). */
function pair(res: BenchResult, truths: Truth[]): { rec: RequestRecord; truth: Truth }[] {
  const byPrompt = new Map(truths.filter((t) => (t.body.fake as { warm?: boolean } | undefined)?.warm !== true).map((t) => [promptOf(t), t]));
  return res.records.map((rec, i) => {
    const truth = byPrompt.get(`question number ${rec.index} about things`);
    assert.ok(truth, `no server record for request ${i}`);
    return { rec, truth };
  });
}

/** The client's token times, rebuilt from TTFT and the ITL list, as absolute performance.now() values. */
function clientTokenTimes(res: BenchResult, rec: RequestRecord): number[] {
  const out: number[] = [];
  let t = res.startPerfMs + rec.startMs + rec.ttftMs;
  out.push(t);
  for (const g of rec.itlMs) {
    t += g;
    out.push(t);
  }
  return out;
}

function checkAgainstTruth(res: BenchResult, truths: Truth[], tokens: number): void {
  const lags: number[] = [];
  for (const { rec, truth } of pair(res, truths)) {
    assert.equal(rec.success, true, rec.error);
    const tm = truthMetrics(truth);
    assert.equal(rec.outputTokens, tokens);
    assert.equal(truth.completionTokens, tokens);
    assert.equal(rec.itlMs.length, tm.itlMs.length, 'one ITL entry per token after the first');
    // The request left the client before the server had its body.
    const start = res.startPerfMs + rec.startMs;
    assert.ok(start <= truth.tBody + 0.01, 'start stamped before the server received the body');
    assert.ok(truth.tBody - start < MAX_LAG_MS, `send took ${truth.tBody - start} ms`);
    // Every token stamped after its write, never long after.
    const times = clientTokenTimes(res, rec);
    assert.equal(times.length, truth.tokenTimes.length);
    for (let k = 0; k < times.length; k++) {
      const lag = (times[k] as number) - (truth.tokenTimes[k] as number);
      assert.ok(lag >= -0.01, `token ${k} stamped ${-lag} ms before the server wrote it`);
      assert.ok(lag < MAX_LAG_MS, `token ${k} stamped ${lag} ms after the server wrote it`);
      lags.push(lag);
    }
    // TTFT and E2E: the server's view plus the send and receive lags, nothing else.
    assert.ok(rec.ttftMs >= tm.ttftMs - 0.01 && rec.ttftMs - tm.ttftMs < MAX_LAG_MS);
    assert.ok(rec.e2eMs >= tm.e2eMs - 0.01 && rec.e2eMs - tm.e2eMs < MAX_LAG_MS);
    // TPOT is (E2E - TTFT) / (n - 1), which telescopes to the mean ITL.
    assert.ok(Math.abs((tpotOf(rec) as number) - sum(rec.itlMs) / rec.itlMs.length) < 1e-9);
    assert.ok(Math.abs(sum(rec.itlMs) - sum(tm.itlMs)) < MAX_LAG_MS);
  }
  assert.ok(sum(lags) / lags.length < MEAN_LAG_MS, `mean stamping lag ${sum(lags) / lags.length} ms`);
}

async function run(backend: Backend, behaviour: Partial<FakeBehaviour>, n: number, tokens: number, extra: Parameters<typeof runBenchmark>[1] extends infer O ? Partial<O> : never = {}) {
  return withServer({ behaviour }, async (srv) => {
    const res = await runBenchmark(workload(rows(n, tokens)), { backend, baseUrl: srv.url, maxConcurrency: 4, warmupRequests: 0, ...extra });
    return { res, truths: srv.truths.slice() };
  });
}

describe('timing against the server record', () => {
  for (const backend of ['openai', 'openai-chat', 'sglang'] as const) {
    test(`${backend}: TTFT, ITL, E2E and TPOT per request`, async () => {
      const { res, truths } = await run(backend, { ttftMs: 30, itlMs: 6 }, 8, 12);
      checkAgainstTruth(res, truths, 12);
      const m = res.metrics;
      assert.equal(m.completed, 8);
      assert.ok((m.ttft.mean as number) >= 30 && (m.ttft.mean as number) < 30 + MEAN_LAG_MS + 10);
      assert.ok(Math.abs((m.itl.mean as number) - 6) < 1.5, `ITL mean ${m.itl.mean}`);
    });
  }

  test('a role-only first chunk is not the first token', async () => {
    // The role arrives right away; the first token 60 ms later. TTFT must be ~60, not ~0.
    const { res, truths } = await run('openai-chat', { ttftMs: 60, itlMs: 5, roleChunk: true, leadChunkAtMs: 0 }, 4, 6);
    checkAgainstTruth(res, truths, 6);
    for (const r of res.records) assert.ok(r.ttftMs >= 60, `TTFT ${r.ttftMs}`);
    for (const t of truths) assert.equal(t.events[0]?.kind, 'role');
  });

  test('an empty first completions chunk is not the first token', async () => {
    const { res, truths } = await run('openai', { ttftMs: 50, itlMs: 5, emptyFirstChunk: true, leadChunkAtMs: 0 }, 4, 6);
    checkAgainstTruth(res, truths, 6);
    for (const r of res.records) assert.ok(r.ttftMs >= 50);
  });

  test('the usage chunk and [DONE] do not extend E2E', async () => {
    const { res, truths } = await run('openai', { ttftMs: 10, itlMs: 5, tailDelayMs: 120 }, 3, 5);
    checkAgainstTruth(res, truths, 5);
    for (const r of res.records) assert.ok(r.e2eMs < 10 + 4 * 5 + 100, `E2E ${r.e2eMs} includes the tail`);
  });

  test('comments, CRLF line ends and events split across reads change nothing', async () => {
    const { res, truths } = await run('openai-chat', { ttftMs: 15, itlMs: 4, commentEvery: 2, crlf: true, splitEvents: true }, 4, 8);
    checkAgainstTruth(res, truths, 8);
  });

  test('several tokens per chunk: per-token ITL when the server counts (continuous usage)', async () => {
    const { res, truths } = await run('openai', { ttftMs: 10, itlMs: 9, tokensPerChunk: 3 }, 3, 12, { continuousUsageStats: true });
    for (const { rec, truth } of pair(res, truths)) {
      assert.equal(rec.outputTokens, 12);
      assert.equal(rec.chunks, 4);
      // The first chunk's extra tokens get no gap; each later chunk's gap is split in three.
      assert.equal(rec.itlMs.length, 9);
      const tm = truthMetrics(truth);
      assert.deepEqual(rec.itlMs.length, tm.itlMs.length);
      assert.ok(Math.abs(sum(rec.itlMs) - sum(tm.itlMs)) < MAX_LAG_MS);
      for (const g of rec.itlMs) assert.ok(g < 9, `a per-token gap (${g} ms) must be a third of the chunk gap`);
    }
  });

  test('several tokens per chunk on the native backend: split by the running count', async () => {
    const { res } = await run('sglang', { ttftMs: 10, itlMs: 9, tokensPerChunk: 2 }, 2, 10);
    for (const r of res.records) {
      assert.equal(r.outputTokens, 10);
      assert.equal(r.chunks, 5);
      assert.equal(r.itlMs.length, 8);
    }
  });

  test('several tokens per chunk without counts: ITL per chunk, and the run says so', async () => {
    const { res } = await run('openai', { ttftMs: 10, itlMs: 9, tokensPerChunk: 3 }, 2, 12);
    for (const r of res.records) {
      assert.equal(r.outputTokens, 12, 'usage gives the true count');
      assert.equal(r.itlMs.length, 3);
    }
    assert.ok(res.notes.some((n) => n.includes('per chunk')));
  });

  test('streaming off: TTFT equals E2E, tokens from usage', async () => {
    const { res, truths } = await run('openai-chat', { ttftMs: 20, itlMs: 2 }, 3, 10, { stream: false });
    for (const { rec, truth } of pair(res, truths)) {
      assert.equal(rec.success, true, rec.error);
      assert.equal(rec.ttftMs, rec.e2eMs);
      assert.equal(rec.outputTokens, 10);
      assert.equal(truth.body.stream, false);
      assert.ok(rec.e2eMs >= 20 + 9 * 2);
    }
  });
});
