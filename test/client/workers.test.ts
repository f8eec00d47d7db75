// The load client on several worker threads: one shared clock (every stamp on the main thread's timeline, checked against the in-process server's own record), one cap, one arrival schedule, one result; conversations and live events as in one thread (cancel: traffic.test.ts); how many threads 'auto' picks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runBenchmark } from '../../src/client/run-benchmark';
import { arrivalSchedule } from '../../src/core/workload/arrivals';
import { subSeed } from '../../src/core/workload/build';
import { chooseWorkers, clientCores, expectedChunkRate, CHUNKS_PER_WORKER, MAX_WORKERS } from '../../src/client/load-workers';
import { isLoopbackOrigin } from '../../src/client/setup';
import type { BenchEvent } from '../../src/client/types';
import { truthMetrics, type Truth } from '../support/fake-server';
import { rows, serverPeak, withServer, workload } from '../support/client';

const promptOf = (t: Truth): string => (typeof t.body.prompt === 'string' ? t.body.prompt : '');

describe('load client on worker threads', () => {
  test('two workers: every stamp on one clock, after the server wrote it and soon after; one result in row order', async () => {
    await withServer({ behaviour: { ttftMs: 20, itlMs: 5 } }, async (srv) => {
      const n = 40;
      const res = await runBenchmark(workload(rows(n, 12)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 8, warmupRequests: 1, workers: 2 });
      assert.equal(res.client.workers, 2);
      assert.deepEqual(res.records.map((r) => r.index), Array.from({ length: n }, (_, i) => i));
      const truthOf = new Map(srv.truths.slice(1).map((t) => [promptOf(t), t]));
      const lags: number[] = [];
      for (const rec of res.records) {
        assert.equal(rec.success, true, rec.error);
        assert.equal(rec.outputTokens, 12);
        const truth = truthOf.get(`question number ${rec.index} about things`) as Truth;
        assert.ok(truth, `no server record for ${rec.index}`);
        // Sent (worker clock, moved to this thread's) before this thread's server had the body.
        const start = res.startPerfMs + rec.startMs;
        assert.ok(start <= truth.tBody + 0.01, `start ${start} after the body arrived at ${truth.tBody}`);
        assert.ok(truth.tBody - start < 100);
        let t = start + rec.ttftMs;
        const times = [t, ...rec.itlMs.map((g) => (t += g))];
        assert.equal(times.length, truth.tokenTimes.length);
        times.forEach((c, k) => {
          const lag = c - (truth.tokenTimes[k] as number);
          assert.ok(lag >= -0.01, `token ${k} stamped ${-lag} ms before the server wrote it`);
          assert.ok(lag < 100, `token ${k} stamped ${lag} ms late`);
          lags.push(lag);
        });
        const tm = truthMetrics(truth);
        assert.ok(rec.ttftMs >= tm.ttftMs - 0.01);
      }
      assert.ok(lags.reduce((a, b) => a + b, 0) / lags.length < 15, 'mean stamping lag under 15 ms');
    });
  });

  test('the cap holds over all workers together, and requests queue for it', async () => {
    await withServer({ behaviour: { ttftMs: 10, itlMs: 3 } }, async (srv) => {
      const res = await runBenchmark(workload(rows(60, 6)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 5, warmupRequests: 0, workers: 3 });
      assert.equal(res.records.length, 60);
      assert.ok(serverPeak(srv.truths) <= 5, `server saw ${serverPeak(srv.truths)} at once`);
      assert.equal(res.metrics.maxConcurrentRequests, 5);
      assert.ok((res.metrics.clientQueue.max as number) > 30, 'later requests waited for a slot');
    });
  });

  test('a seeded rate: the same schedule as one thread, kept without drift', async () => {
    await withServer({ behaviour: { ttftMs: 2, itlMs: 1 } }, async (srv) => {
      const n = 120;
      const res = await runBenchmark(workload(rows(n, 3)), { backend: 'openai', baseUrl: srv.url, requestRate: 100, seed: 5, warmupRequests: 0, workers: 2 });
      const planned = arrivalSchedule(n, { requestRate: 100, burstiness: 1, seed: subSeed(5, 'arrivals') });
      assert.deepEqual(res.records.map((r) => r.arrivalMs), [...planned]);
      const late = res.records.map((r) => r.startMs - r.arrivalMs).sort((a, b) => a - b);
      assert.ok((late[0] as number) >= 0, 'nothing sent before it was due');
      assert.ok((late[n >> 1] as number) < 5, `median send lag ${late[n >> 1]} ms`);
      assert.ok((late[n - 1] as number) < 50, `worst send lag ${late[n - 1]} ms`);
    });
  });

  test('conversations keep their slot and their turns in one worker', async () => {
    await withServer({ behaviour: { ttftMs: 2, itlMs: 1 } }, async (srv) => {
      const r = rows(6, 3).map((x) => ({ ...x, turns: ['second question', 'third question'], turnLens: [2, 2] }));
      const res = await runBenchmark(workload(r), { backend: 'openai-chat', baseUrl: srv.url, maxConcurrency: 2, warmupRequests: 0, workers: 2 });
      assert.equal(res.records.length, 18);
      assert.deepEqual(res.records.map((x) => [x.index, x.turn]), [0, 1, 2, 3, 4, 5].flatMap((i) => [[i, 0], [i, 1], [i, 2]]));
      assert.ok(res.records.every((x) => x.success));
      assert.ok(serverPeak(srv.truths) <= 2);
      const third = srv.truths.find((t) => (t.body.messages as unknown[]).length === 5)?.body.messages as { role: string; content: string }[];
      assert.equal(third[1]?.content, ' tok tok tok');
      assert.equal(res.records[1]?.promptLen, 6 + 3 + 2);
    });
  });

  test('live events: one request event each, progress with counts across workers', async () => {
    await withServer({ behaviour: { ttftMs: 5, itlMs: 10 } }, async (srv) => {
      const events: BenchEvent[] = [];
      await runBenchmark(workload(rows(12, 10)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 4, progressIntervalMs: 40, workers: 2 }, { onEvent: (e) => events.push(e) });
      const phases = events.flatMap((e) => (e.type === 'phase' ? [e.phase] : []));
      assert.deepEqual(phases, ['ready-check', 'warmup', 'measure', 'finish']);
      assert.ok(events.some((e) => e.type === 'phase' && e.phase === 'measure' && e.detail === '2 worker threads'));
      assert.equal(events.filter((e) => e.type === 'request').length, 12);
      const progress = events.flatMap((e) => (e.type === 'progress' ? [e] : []));
      assert.equal(progress[progress.length - 1]?.completed, 12);
      assert.ok(progress.some((p) => p.inFlight > 0 && p.inFlight <= 4), 'in flight counted over both workers');
    });
  });

  test('a server that refuses every request: failures recorded by the workers, the run returns', async () => {
    await withServer({ behaviour: { ttftMs: 1 }, decide: (_b, seq) => (seq >= 1 ? { status: 500 } : undefined) }, async (srv) => {
      const res = await runBenchmark(workload(rows(10, 4)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 4, workers: 2 });
      assert.equal(res.records.length, 10);
      assert.ok(res.records.every((r) => !r.success && r.status === 500));
    });
  });
});

describe('how many worker threads', () => {
  test('expected chunk rate: requests x output tokens at a rate; streams held at rate inf', () => {
    assert.equal(expectedChunkRate({ requestRate: 10, cap: null, requests: 1000, meanOutputTokens: 200 }), 2000);
    assert.equal(expectedChunkRate({ requestRate: Infinity, cap: 512, requests: 2560, meanOutputTokens: 100 }), 51_200);
    assert.equal(expectedChunkRate({ requestRate: Infinity, cap: null, requests: 64, meanOutputTokens: 100 }), 6400);
    // Both known: the lower.
    assert.equal(expectedChunkRate({ requestRate: 1000, cap: 8, requests: 5000, meanOutputTokens: 100 }), 800);
  });

  test("'auto' adds a thread per CHUNKS_PER_WORKER up to the cores; a number asked is kept", () => {
    assert.equal(chooseWorkers('auto', 1000, 8), 1);
    assert.equal(chooseWorkers(undefined, CHUNKS_PER_WORKER * 2.5, 8), 3);
    assert.equal(chooseWorkers('auto', 10_000_000, 4), 4);
    assert.equal(chooseWorkers('auto', 10_000_000, 64), MAX_WORKERS);
    assert.equal(chooseWorkers(3, 10, 1), 3);
    assert.equal(chooseWorkers(99, 10, 1), MAX_WORKERS);
  });

  test('a server on this machine keeps a core; a remote one does not', () => {
    assert.equal(clientCores(true, 2), 1);
    assert.equal(clientCores(false, 2), 2);
    assert.equal(clientCores(true, 1), 1);
    for (const o of ['http://127.0.0.1:8000', 'http://localhost:30000', 'http://[::1]:8000', 'http://127.3.4.5']) assert.equal(isLoopbackOrigin(o), true, o);
    for (const o of ['http://10.0.0.5:8000', 'http://gpu-node-3:8000', 'https://api.example.com']) assert.equal(isLoopbackOrigin(o), false, o);
  });

  test("'auto' (the default) measures a small run in this thread", async () => {
    await withServer({ behaviour: { ttftMs: 1, itlMs: 1 } }, async (srv) => {
      const res = await runBenchmark(workload(rows(8, 4)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 8, warmupRequests: 0 });
      assert.equal(res.client.workers, 1);
      assert.equal(res.records.length, 8);
    });
  });
});
