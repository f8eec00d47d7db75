// Failures are per-request records with reasons (non-200, malformed SSE, disconnects, stalls, in-stream errors); the run always finishes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runBenchmark } from '../../src/client/run-benchmark';
import type { FakeBehaviour } from '../support/fake-server';
import { rows, withServer, workload } from '../support/client';

/** Requests whose prompt names an odd number fail the given way; the others succeed. */
function oddFails(b: Partial<FakeBehaviour>) {
  return (body: Record<string, unknown>): Partial<FakeBehaviour> | undefined => {
    const text = typeof body.prompt === 'string' ? body.prompt : '';
    const n = Number(/number (\d+)/.exec(text)?.[1] ?? 0);
    return n % 2 === 1 ? b : undefined;
  };
}

async function runWith(b: Partial<FakeBehaviour>, opts: Partial<Parameters<typeof runBenchmark>[1]> = {}) {
  return withServer({ behaviour: { ttftMs: 5, itlMs: 2 }, decide: oddFails(b) }, async (srv) => {
    const res = await runBenchmark(workload(rows(6, 8)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 3, warmupRequests: 0, ...opts });
    return { res, truths: srv.truths };
  });
}

describe('errors never crash the run', () => {
  test('non-200: status and the server body in the reason', async () => {
    const { res } = await runWith({ status: 503 });
    assert.equal(res.metrics.completed, 3);
    assert.equal(res.metrics.failed, 3);
    assert.equal(res.metrics.successRate, 0.5);
    const bad = res.records.filter((r) => !r.success);
    for (const r of bad) {
      assert.equal(r.errorKind, 'http');
      assert.equal(r.status, 503);
      assert.match(r.error, /^HTTP 503 .*fake failure 503/);
      assert.equal(r.outputTokens, 0);
    }
    assert.deepEqual(res.metrics.errors, { http: 3 });
    // Failed requests are not in the latency statistics.
    assert.equal(res.metrics.ttft.count, 3);
  });

  test('malformed SSE data fails the request with the bad text', async () => {
    const { res } = await runWith({ malformedAt: 3 });
    const bad = res.records.filter((r) => !r.success);
    assert.equal(bad.length, 3);
    for (const r of bad) {
      assert.equal(r.errorKind, 'malformed');
      assert.match(r.error, /malformed SSE data: \{"choices"/);
    }
  });

  test('a mid-stream disconnect is a disconnect, not a success', async () => {
    const { res, truths } = await runWith({ disconnectAt: 4 });
    assert.equal(truths.filter((t) => t.outcome === 'disconnected').length, 3);
    const bad = res.records.filter((r) => !r.success);
    assert.equal(bad.length, 3);
    for (const r of bad) {
      assert.equal(r.errorKind, 'disconnect');
      assert.match(r.error, /connection closed mid-response/);
      // What arrived before the cut is kept for the report (TTFT), not for metrics.
      assert.ok(Number.isFinite(r.ttftMs));
    }
    assert.equal(res.metrics.completed, 3);
  });

  test('a stalled stream hits the request timeout', async () => {
    const { res } = await runWith({ stallAt: 2 }, { requestTimeoutS: 0.3 });
    const bad = res.records.filter((r) => !r.success);
    assert.equal(bad.length, 3);
    for (const r of bad) {
      assert.equal(r.errorKind, 'timeout');
      assert.ok(r.e2eMs >= 300, `timed out after ${r.e2eMs} ms`);
    }
  });

  test('an error event inside the stream', async () => {
    const { res } = await runWith({ errorEventAt: 2 });
    const bad = res.records.filter((r) => !r.success);
    assert.equal(bad.length, 3);
    for (const r of bad) {
      assert.equal(r.errorKind, 'server');
      assert.match(r.error, /fake engine failure/);
    }
  });

  test('a 200 stream without any token is a failure', async () => {
    const { res } = await runWith({ tokens: 0 });
    for (const r of res.records.filter((x) => !x.success)) assert.equal(r.errorKind, 'empty');
    assert.equal(res.metrics.failed, 3);
  });

  test('a stream without [DONE] that ends cleanly still counts', async () => {
    const { res } = await runWith({ noDone: true });
    assert.equal(res.metrics.completed, 6);
  });

  test('a JSON answer to a streaming request is read as a whole response', async () => {
    const { res } = await runWith({ ignoreStream: true });
    assert.equal(res.metrics.completed, 6);
    const whole = res.records.filter((r) => r.chunks === 1);
    assert.equal(whole.length, 3);
    for (const r of whole) assert.equal(r.ttftMs, r.e2eMs);
  });

  test('connection refused: every request fails with the reason, and the run returns', async () => {
    const res = await runBenchmark(workload(rows(3, 4)), { backend: 'openai', baseUrl: 'http://127.0.0.1:9', model: 'm', warmupRequests: 0, readyCheckTimeoutS: 0 }).catch((e: Error) => e);
    // With the ready check skipped the model is known, so the run itself happens and records the refusals.
    assert.ok(!(res instanceof Error), res instanceof Error ? res.message : '');
    assert.equal(res.metrics.failed, 3);
    for (const r of res.records) assert.equal(r.errorKind, 'connect');
  });
});
