// The untimed requests as the real engines answer them (audit #5, #12, #13, #17): SGLang's /flush_cache refusing while busy, flush routes that say 200 yet flushed nothing, /v1/models listing no model yet, and streams without usage counted with the run's tokenizer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool } from 'undici';
import { flushCache, waitReady } from '../../src/client/control';
import { runBenchmark } from '../../src/client/run-benchmark';
import { recountOutputTokens } from '../../src/client/recount';
import { decodeWire, encodeWire, resultFromWire } from '../../src/client/wire';
import type { TokenizerLike } from '../../src/core/workload/tokenizer';
import { runTrial } from '../../src/runner/client-trial';
import type { LiveServer } from '../../src/runner/server';
import { rows, withServer, workload } from '../support/client';

async function withPool<T>(url: string, fn: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = new Pool(url, { connections: 2 });
  try {
    return await fn(pool);
  } finally {
    await pool.destroy();
  }
}

describe('cache flush (SGLang /flush_cache, vLLM, the smg gateway)', () => {
  test('SGLang: asks the server to wait (?timeout=30); a 400 while busy is retried until it flushes', async () => {
    let n = 0;
    const busy = { status: 400, body: { message: 'Cache not flushed. (When there are running or waiting requests, the operation will not be performed.)' } };
    await withServer({ control: (m, p) => (m === 'POST' && p.startsWith('/flush_cache') ? (++n <= 2 ? busy : { status: 200, body: 'Cache flushed.' }) : undefined) }, async (srv) => {
      const res = await runBenchmark(workload(rows(2, 2)), { backend: 'sglang', baseUrl: srv.url, flushCache: true });
      assert.equal(res.flushCache, 'ok');
      assert.equal(srv.flushCount, 3);
      assert.ok(srv.controlPaths.every((p) => p === 'POST /flush_cache?timeout=30'), srv.controlPaths.join(', '));
    });
  });

  test('SGLang: a flush refused for the whole retry window is recorded as not flushed, never a failed benchmark', async () => {
    await withServer({ control: (m, p) => (m === 'POST' && p.startsWith('/flush_cache') ? { status: 400, body: { message: 'Cache not flushed.' } } : undefined) }, async (srv) => {
      const out = await withPool(srv.url, (pool) => flushCache(pool, '', '/flush_cache', {}, 800));
      assert.match(out, /^not flushed \(POST \/flush_cache: HTTP 400 after \d+ tries/);
      assert.ok(srv.flushCount >= 2, `retried: ${srv.flushCount}`);
    });
  });

  test('the smg gateway: 206 (some workers failed) and workers_flushed 0 (no HTTP worker) are not flushed', async () => {
    const answers = [
      { status: 206, body: { message: 'partial', workers_flushed: 1, failed: ['w2'] } },
      { status: 200, body: { success: true, message: 'No HTTP workers available for cache flush', workers_flushed: 0 } },
      { status: 200, body: { success: true, workers_flushed: 2 } },
    ];
    let i = 0;
    await withServer({ control: (m, p) => (m === 'POST' && p.startsWith('/flush_cache') ? answers[i++] : undefined) }, async (srv) => {
      await withPool(srv.url, async (pool) => {
        assert.match(await flushCache(pool, '', '/flush_cache', {}), /^not flushed .*HTTP 206/);
        assert.match(await flushCache(pool, '', '/flush_cache', {}), /^not flushed .*workers_flushed is 0/);
        assert.equal(await flushCache(pool, '', '/flush_cache', {}), 'ok');
      });
    });
  });
});

describe('readiness and token counts', () => {
  test('/v1/models answering 200 with no model is not ready: the wait goes on until one is listed', async () => {
    const t0 = performance.now();
    await withServer({ control: (m, p) => (p === '/v1/models' && performance.now() - t0 < 1500 ? { status: 200, body: { object: 'list', data: [] } } : undefined) }, async (srv) => {
      const model = await withPool(srv.url, (pool) => waitReady(pool, '', {}, 20));
      assert.equal(model, 'fake-model');
      assert.ok(performance.now() - t0 >= 1400, 'returned while the list was still empty');
    });
  });

  test('no streamed usage and several tokens per chunk: the trial counts output tokens with the run\'s tokenizer', async () => {
    // One " tok" per token, as the fake server writes them.
    const tokenizer = { name: 'words', vocabSize: 10, specialIds: new Set<number>(), encode: (t: string) => t.split(' ').filter(Boolean).map(() => 1), decode: () => '' } as unknown as TokenizerLike;
    await withServer({ behaviour: { usage: 'never', tokensPerChunk: 4, roleChunk: false } }, async (srv) => {
      const server = { baseUrl: srv.url, model: 'fake-model', proc: { onExit: () => undefined } } as unknown as LiveServer;
      const settings = { backend: 'openai' as const, wallRate: Infinity, concurrency: null, warmupRequests: 0, seed: 1, extraBody: {}, timeoutMs: 30_000 };
      const hooks = { signal: undefined, onConnectionLost: () => () => undefined, onProgress: () => undefined };
      const counted = await runTrial(server, workload(rows(3, 12)), { ...settings, tokenizer }, hooks);
      assert.equal(counted.kind, 'done');
      const recs = counted.kind === 'done' ? counted.result.records.filter((r) => !r.warmup) : [];
      assert.deepEqual(recs.map((r) => r.outputTokens), [12, 12, 12]);
      assert.ok(recs.every((r) => r.outputTokensSource === 'tokenizer'));
      const uncounted = await runTrial(server, workload(rows(3, 12)), settings, hooks);
      const un = uncounted.kind === 'done' ? uncounted.result.records.filter((r) => !r.warmup) : [];
      assert.notDeepEqual(un.map((r) => r.outputTokens), [12, 12, 12], 'without the tokenizer the chunks are counted (the bug this covers)');
    });
  });

  test('a client on another host (no tokenizer there): its chunk-counted texts come back over the wire and the runner counts them', async () => {
    const tokenizer = { name: 'words', vocabSize: 10, specialIds: new Set<number>(), encode: (t: string) => t.split(' ').filter(Boolean).map(() => 1), decode: () => '' } as unknown as TokenizerLike;
    await withServer({ behaviour: { usage: 'never', tokensPerChunk: 4, roleChunk: false } }, async (srv) => {
      const server = { baseUrl: srv.url, model: 'fake-model', proc: { onExit: () => undefined } } as unknown as LiveServer;
      const settings = { backend: 'openai' as const, wallRate: Infinity, concurrency: null, warmupRequests: 1, seed: 1, extraBody: {}, timeoutMs: 30_000 };
      const hooks = { signal: undefined, onConnectionLost: () => () => undefined, onProgress: () => undefined };
      // As on the host: the trial's options as the runner sends them, no tokenizer; then the result's JSON round trip.
      const there = await runTrial(server, workload(rows(3, 12)), settings, hooks);
      assert.equal(there.kind, 'done');
      const result = resultFromWire(decodeWire(encodeWire(there.kind === 'done' ? there.result : undefined)));
      assert.ok(result.records.every((r) => r.generatedText.length > 0), 'the texts the host could not count are sent back');
      const before = result.metrics.totalOutputTokens;
      assert.equal(recountOutputTokens(result, tokenizer), 3);
      assert.deepEqual(result.records.map((r) => [r.outputTokens, r.outputTokensSource]), [[12, 'tokenizer'], [12, 'tokenizer'], [12, 'tokenizer']]);
      assert.equal(result.metrics.totalOutputTokens, 36);
      assert.notEqual(before, 36, 'the chunk count was wrong before');
      assert.ok(result.records.every((r) => r.generatedText === '') && result.warmup.every((r) => r.generatedText === ''), 'no text is kept after counting');
    });
  });
});
