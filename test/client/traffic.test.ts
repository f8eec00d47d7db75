// Arrivals (rate, burstiness, seed), the concurrency cap, warmup, cache flush, model lookup, cancellation and live events.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { arrivalSchedule } from '../../src/core/workload/arrivals';
import { runBenchmark } from '../../src/client/run-benchmark';
import type { BenchEvent } from '../../src/client/types';
import { subSeed } from '../../src/core/workload/build';
import { rows, serverPeak, withServer, workload } from '../support/client';

function gaps(a: Float64Array): number[] {
  const out: number[] = [];
  for (let i = 1; i < a.length; i++) out.push((a[i] as number) - (a[i - 1] as number));
  return out;
}

function meanCv(v: number[]): { mean: number; cv: number } {
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
  return { mean, cv: sd / mean };
}

describe('arrival schedule', () => {
  test('Poisson: mean rate and dispersion (CV of gaps ~1), first request at 0', () => {
    const a = arrivalSchedule(20000, { requestRate: 50, burstiness: 1, seed: 7 });
    assert.equal(a[0], 0);
    const { mean, cv } = meanCv(gaps(a));
    assert.ok(Math.abs(mean - 20) / 20 < 0.03, `mean gap ${mean} ms, want 20`);
    assert.ok(Math.abs(cv - 1) < 0.05, `CV ${cv}, want 1`);
  });

  test('burstiness is the gamma shape: CV = 1/sqrt(b), same mean', () => {
    for (const b of [0.25, 4]) {
      const { mean, cv } = meanCv(gaps(arrivalSchedule(20000, { requestRate: 10, burstiness: b, seed: 3 })));
      assert.ok(Math.abs(mean - 100) / 100 < 0.05, `b=${b}: mean gap ${mean}`);
      assert.ok(Math.abs(cv - 1 / Math.sqrt(b)) / (1 / Math.sqrt(b)) < 0.08, `b=${b}: CV ${cv}`);
    }
    const even = gaps(arrivalSchedule(10, { requestRate: 4, burstiness: Infinity, seed: 1 }));
    for (const g of even) assert.ok(Math.abs(g - 250) < 1e-9);
  });

  test('the same seed gives the same schedule; another seed another', () => {
    const a = arrivalSchedule(50, { requestRate: 5, burstiness: 1, seed: 11 });
    assert.deepEqual(a, arrivalSchedule(50, { requestRate: 5, burstiness: 1, seed: 11 }));
    assert.notDeepEqual(a, arrivalSchedule(50, { requestRate: 5, burstiness: 1, seed: 12 }));
  });

  test('rate inf sends everything at t=0; trace rows keep their own times', () => {
    assert.deepEqual([...arrivalSchedule(3, { requestRate: Infinity, burstiness: 1, seed: 1 })], [0, 0, 0]);
    assert.deepEqual([...arrivalSchedule(3, { requestRate: 5, burstiness: 1, seed: 1 }, [0, 40, 90])], [0, 40, 90]);
    assert.throws(() => arrivalSchedule(3, { requestRate: 0, burstiness: 1, seed: 1 }), /request rate/);
  });
});

describe('traffic against the server', () => {
  test('a finite rate is kept against absolute times: achieved rate and send lag', async () => {
    await withServer({ behaviour: { ttftMs: 2, itlMs: 1 } }, async (srv) => {
      const n = 120;
      const res = await runBenchmark(workload(rows(n, 3)), { backend: 'openai', baseUrl: srv.url, requestRate: 100, seed: 5, warmupRequests: 1 });
      const planned = arrivalSchedule(n, { requestRate: 100, burstiness: 1, seed: subSeed(5, 'arrivals') });
      assert.deepEqual(res.records.map((r) => r.arrivalMs), [...planned], 'the seeded schedule');
      const plannedRate = (n - 1) / ((planned[n - 1] as number) / 1000);
      const achieved = res.metrics.achievedRequestRate as number;
      assert.ok(Math.abs(achieved - plannedRate) / plannedRate < 0.1, `achieved ${achieved} req/s vs planned ${plannedRate}`);
      // Each request left when it was due (client queue = start - arrival); a stall is caught up, not carried.
      const late = res.records.map((r) => r.startMs - r.arrivalMs).sort((a, b) => a - b);
      assert.ok((late[n >> 1] as number) < 5, `median send lag ${late[n >> 1]} ms`);
      assert.ok((res.records[n - 1] as { startMs: number; arrivalMs: number }).startMs - (planned[n - 1] as number) < 50, 'no drift at the end');
      // The server saw them at the scheduled spacing too.
      const first = Math.min(...srv.truths.slice(1).map((t) => t.tBody));
      const lastT = Math.max(...srv.truths.map((t) => t.tBody));
      assert.ok(Math.abs(lastT - first - (planned[n - 1] as number)) < 100);
    });
  });

  test('max-concurrency holds on the server side, and requests queue for it', async () => {
    await withServer({ behaviour: { ttftMs: 10, itlMs: 3 } }, async (srv) => {
      const res = await runBenchmark(workload(rows(30, 6)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 4, warmupRequests: 2 });
      assert.ok(serverPeak(srv.truths) <= 4, `server saw ${serverPeak(srv.truths)} at once`);
      assert.equal(res.metrics.maxConcurrentRequests, 4);
      assert.ok((res.metrics.clientQueue.max as number) > 20, 'later requests waited for a slot');
      assert.ok(res.metrics.concurrency > 2 && res.metrics.concurrency <= 4);
    });
  });

  test('warmup: first row, at most 32 tokens, through the cap, not in the metrics', async () => {
    await withServer({ behaviour: { ttftMs: 5, itlMs: 1 } }, async (srv) => {
      const res = await runBenchmark(workload(rows(5, 64)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 2, warmupRequests: 3 });
      const warm = srv.truths.slice(0, 3);
      for (const t of warm) {
        assert.equal(t.body.max_tokens, 32);
        assert.equal(t.body.prompt, 'question number 0 about things');
      }
      assert.ok(serverPeak(warm) <= 2);
      assert.equal(res.warmup.length, 3);
      assert.equal(res.records.length, 5);
      assert.equal(res.metrics.total, 5);
      for (const r of res.warmup) assert.equal(r.warmup, true);
      // Warmup finished before the measured run began.
      const lastWarm = Math.max(...warm.map((t) => t.tEnd));
      assert.ok(srv.truths.slice(3).every((t) => t.tBody >= lastWarm));
    });
  });

  test('every warmup request failing stops the run with the reason', async () => {
    await withServer({ behaviour: { status: 500 } }, async (srv) => {
      await assert.rejects(runBenchmark(workload(rows(2, 4)), { backend: 'openai', baseUrl: srv.url, warmupRequests: 2 }), /every warmup request failed; first error: HTTP 500/);
    });
  });

  test('flush-cache after warmup; an endpoint the server lacks is a note, not a stop', async () => {
    await withServer({ behaviour: { ttftMs: 1 } }, async (srv) => {
      const res = await runBenchmark(workload(rows(2, 2)), { backend: 'sglang', baseUrl: srv.url, flushCache: true });
      assert.equal(res.flushCache, 'ok');
      assert.equal(srv.flushCount, 1);
    });
    await withServer({ behaviour: { ttftMs: 1 }, flushStatus: 404 }, async (srv) => {
      const res = await runBenchmark(workload(rows(2, 2)), { backend: 'vllm', baseUrl: srv.url, flushCache: true });
      assert.match(res.flushCache, /unsupported/);
      assert.ok(res.notes.some((n) => n.includes('--flush-cache')));
      assert.equal(res.metrics.completed, 2);
    });
    await withServer({ behaviour: { ttftMs: 1 }, flushStatus: 500 }, async (srv) => {
      await assert.rejects(runBenchmark(workload(rows(2, 2)), { backend: 'vllm', baseUrl: srv.url, flushCache: true }), /cache flush failed/);
    });
  });

  test('the model comes from /v1/models; a server that never gets ready is an error', async () => {
    await withServer({ model: 'org/served-7b' }, async (srv) => {
      const res = await runBenchmark(workload(rows(1, 2)), { backend: 'openai-chat', baseUrl: srv.url, warmupRequests: 0 });
      assert.equal(res.model, 'org/served-7b');
      assert.equal(srv.truths[0]?.body.model, 'org/served-7b');
    });
    await withServer({ modelsStatus: 503 }, async (srv) => {
      await assert.rejects(runBenchmark(workload(rows(1, 2)), { backend: 'openai', baseUrl: srv.url, readyCheckTimeoutS: 1.5 }), /server not ready after 1.5 s/);
    });
  });

  for (const workers of [1, 2]) {
    test(`cancelling stops new requests, ends those in flight, and returns what finished (${workers} thread${workers > 1 ? 's' : ''})`, async () => {
      await withServer({ behaviour: { ttftMs: 5, itlMs: 20 } }, async (srv) => {
        const ac = new AbortController();
        let done = 0;
        const res = await runBenchmark(workload(rows(40, 20)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 4, warmupRequests: 0, workers }, {
          signal: ac.signal,
          onEvent: (e) => {
            if (e.type === 'request' && ++done === 4) ac.abort();
          },
        });
        assert.equal(res.aborted, true);
        assert.equal(res.client.workers, workers);
        assert.ok(res.records.length < 40);
        assert.ok(res.records.some((r) => r.errorKind === 'aborted'));
        assert.ok(srv.truths.length < 40);
      });
    });
  }

  test('live events: phases in order, one request event each, progress with counts', async () => {
    await withServer({ behaviour: { ttftMs: 5, itlMs: 10 } }, async (srv) => {
      const events: BenchEvent[] = [];
      await runBenchmark(workload(rows(6, 10)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 2, progressIntervalMs: 40 }, { onEvent: (e) => events.push(e) });
      const phases = events.flatMap((e) => (e.type === 'phase' ? [e.phase] : []));
      assert.deepEqual(phases, ['ready-check', 'warmup', 'measure', 'finish']);
      assert.equal(events.filter((e) => e.type === 'request').length, 6);
      const progress = events.flatMap((e) => (e.type === 'progress' ? [e] : []));
      assert.ok(progress.length >= 2);
      const last = progress[progress.length - 1];
      assert.equal(last?.completed, 6);
      assert.equal(last?.total, 6);
      assert.ok(progress.some((p) => p.inFlight > 0 && p.inFlight <= 2));
    });
  });
});
