// What stops a run before it measures: a base URL that is not one, a server nobody listens for (fail fast when
// no one is starting it), one that never gets ready; each a typed BenchSetupError a caller can explain.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runBenchmark } from '../../src/client/run-benchmark';
import { BenchSetupError, parseBaseUrl, unreachableReason } from '../../src/client/setup';
import { rows, withServer, workload } from '../support/client';
import { refusedPort } from '../support/net';

const failure = (kind: string) => (e: unknown) => e instanceof BenchSetupError && e.failure === kind;

describe('client setup errors', () => {
  test('base URLs: scheme, host and an optional path prefix; no query', () => {
    assert.deepEqual(parseBaseUrl('http://127.0.0.1:8000/'), { ok: true, origin: 'http://127.0.0.1:8000', basePath: '' });
    assert.deepEqual(parseBaseUrl('https://h.example/proxy/'), { ok: true, origin: 'https://h.example', basePath: '/proxy' });
    assert.deepEqual(parseBaseUrl('localhost:8000'), { ok: false, problem: "'localhost:8000' has no scheme" });
    assert.deepEqual(parseBaseUrl('ftp://h'), { ok: false, problem: "'ftp://h' is not an http or https URL" });
    assert.deepEqual(parseBaseUrl('http://h:99999'), { ok: false, problem: "'http://h:99999' is not a URL" });
    assert.equal(parseBaseUrl('http://h:8000/?x=1').ok, false);
  });

  test('unreachable reasons look through error causes', () => {
    assert.equal(unreachableReason(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), 'connection refused');
    assert.equal(unreachableReason(new Error('x', { cause: Object.assign(new Error('y'), { code: 'ENOTFOUND' }) })), 'host not found');
    assert.equal(unreachableReason(Object.assign(new Error('x'), { code: 'ECONNRESET' })), undefined);
  });

  test('failFastUnreachable: a refused connection ends the ready check at once; without it the check waits', async () => {
    const url = `http://127.0.0.1:${await refusedPort()}`;
    const t0 = performance.now();
    await assert.rejects(runBenchmark(workload(rows(1, 2)), { backend: 'openai', baseUrl: url, readyCheckTimeoutS: 30, failFastUnreachable: true }), failure('unreachable'));
    // Fail-fast vs waiting out the 30 s timeout: a third of it is margin enough on a loaded machine.
    assert.ok(performance.now() - t0 < 10_000, 'well inside the 30 s ready timeout');
    const t1 = performance.now();
    await assert.rejects(runBenchmark(workload(rows(1, 2)), { backend: 'openai', baseUrl: url, readyCheckTimeoutS: 1.5 }), failure('not-ready'));
    assert.ok(performance.now() - t1 >= 900, 'a server being started by someone else gets its time');
  });

  test('a bad base URL, a failed flush and failed warm-ups are typed', async () => {
    await assert.rejects(runBenchmark(workload(rows(1, 2)), { backend: 'openai', baseUrl: 'localhost:1' }), failure('bad-url'));
    await withServer({ flushStatus: 500 }, async (srv) => {
      await assert.rejects(runBenchmark(workload(rows(1, 2)), { backend: 'vllm', baseUrl: srv.url, flushCache: true }), failure('flush-failed'));
    });
    await withServer({ decide: () => ({ status: 500 }) }, async (srv) => {
      await assert.rejects(runBenchmark(workload(rows(1, 2)), { backend: 'openai', baseUrl: srv.url }), failure('warmup-failed'));
    });
  });
});
