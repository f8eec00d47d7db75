// Prefix-cache visibility as the real servers offer it: the flush routes each framework has (SGLang /flush_cache,
// vLLM /reset_prefix_cache only in dev mode, none on trtllm-serve; TokenSpeed's gateway: engine-realism-http.test.ts),
// and cached prompt tokens in every OpenAI usage with --sim-cache-report.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { SimServer } from '../../src/sim';
import { postJson, promptOf, withSim } from '../support/sim';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const FAST = { speed: 500, warmupMs: 0 };
const PROMPT = promptOf(600, 'c');

/** cached_tokens of one non-streamed completion of PROMPT, or undefined when usage has no details. */
async function cachedTokens(s: SimServer, prompt = PROMPT): Promise<number | undefined> {
  const r = await postJson(s, '/v1/completions', { model: s.model, prompt, max_tokens: 1 });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const usage = r.json.usage as { prompt_tokens_details?: { cached_tokens: number } };
  return usage.prompt_tokens_details?.cached_tokens;
}

const status = async (s: SimServer, route: string, method: string): Promise<number> => (await fetch(`${s.url}${route}`, { method })).status;

describe('flush routes', () => {
  for (const [fw, args] of [['sglang', ['--model-path', MODEL, '--enable-cache-report']]] as const) {
    test(`${fw}: /flush_cache answers GET and POST with 200 once idle and empties the prefix cache`, async () => {
      await withSim(
        fw,
        [...args],
        async (s) => {
          assert.equal(await cachedTokens(s), 0, 'cold');
          assert.ok(((await cachedTokens(s)) ?? 0) >= 576, 'a repeated prompt hits the cache');
          // ?timeout waits for the scheduler's last idle iteration after the response.
          assert.equal(await status(s, '/flush_cache?timeout=5', 'POST'), 200);
          assert.equal(await cachedTokens(s), 0, 'flushed');
          assert.ok(((await cachedTokens(s)) ?? 0) >= 576);
          assert.equal(await status(s, '/flush_cache?timeout=5', 'GET'), 200);
          assert.equal(await cachedTokens(s), 0, 'flushed by GET too');
          assert.equal(await status(s, '/flush_cache', 'PUT'), 405);
          assert.equal(await status(s, '/reset_prefix_cache', 'POST'), 404, "not SGLang's route");
        },
        { sim: FAST },
      );
    });
  }

  test('vLLM: POST /reset_prefix_cache only with VLLM_SERVER_DEV_MODE=1, else 404 as real vLLM', async () => {
    await withSim(
      'vllm',
      [MODEL],
      async (s) => {
        assert.equal(await status(s, '/reset_prefix_cache', 'POST'), 404);
        assert.equal(await status(s, '/flush_cache', 'POST'), 404);
      },
      { sim: FAST, env: { VLLM_SERVER_DEV_MODE: '0' } },
    );
    const log: string[] = [];
    await withSim(
      'vllm',
      [MODEL, '--sim-cache-report'],
      async (s) => {
        await cachedTokens(s);
        assert.ok(((await cachedTokens(s)) ?? 0) >= 576);
        assert.equal(await status(s, '/reset_prefix_cache', 'POST'), 200);
        assert.equal(await cachedTokens(s), 0, 'flushed');
        assert.equal(await status(s, '/reset_prefix_cache', 'GET'), 405);
        assert.equal(await status(s, '/flush_cache', 'POST'), 404);
      },
      { sim: FAST, env: { VLLM_SERVER_DEV_MODE: '1' }, log: (l) => log.push(l) },
    );
    assert.ok(log.some((l) => /Development endpoints are enabled/.test(l)), 'dev mode says so in the log');
  });

  test('trtllm-serve: no flush route at all, only its six routes; prefix caching is on by default', async () => {
    await withSim(
      'trtllm-serve',
      [MODEL],
      async (s) => {
        for (const route of ['/flush_cache', '/reset_prefix_cache', '/v1/flush_cache', '/reset_cache']) {
          for (const method of ['GET', 'POST']) assert.equal(await status(s, route, method), 404, `${method} ${route}`);
        }
        for (const route of ['/v1/models', '/health', '/metrics', '/version']) assert.equal(await status(s, route, 'GET'), 200, route);
        assert.deepEqual(Object.keys((await (await fetch(`${s.url}/version`)).json()) as object), ['version']);
        for (const route of ['/server_info', '/generate', '/tokenize']) assert.equal(await status(s, route, 'POST'), 404, route);
        assert.equal(await cachedTokens(s), 0);
        assert.ok(((await cachedTokens(s)) ?? 0) >= 544, 'block reuse is on by default (TRT-LLM >= 1.0)');
      },
      { sim: FAST },
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'autobench-trt-'));
    const extra = path.join(dir, 'extra.yaml');
    writeFileSync(extra, 'kv_cache_config:\n  enable_block_reuse: false\n');
    await withSim(
      'trtllm-serve',
      [MODEL, '--extra_llm_api_options', extra],
      async (s) => {
        await cachedTokens(s);
        assert.equal(await cachedTokens(s), 0, 'enable_block_reuse: false turns it off');
      },
      { sim: FAST },
    );
  });
});

describe('cached_tokens in usage', () => {
  test('--sim-cache-report: every framework reports them, streamed and whole; --sim-no-cache-report leaves it to the framework flag', async () => {
    for (const [fw, args] of [
      ['vllm', [MODEL, '--sim-cache-report']],
      ['sglang', ['--model-path', MODEL, '--sim-cache-report']],
      ['tensorrt_llm', [MODEL, '--sim-cache-report']],
      ['tokenspeed', [MODEL, '--sim-cache-report']],
    ] as const) {
      await withSim(
        fw,
        [...args],
        async (s) => {
          assert.equal(await cachedTokens(s), 0, fw);
          const r = await fetch(`${s.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: s.model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 2, stream: true, stream_options: { include_usage: true } }),
          });
          await r.text();
          const again = await fetch(`${s.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: s.model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 2, stream: true, stream_options: { include_usage: true } }),
          });
          const last = (await again.text()).split('\n\n').filter((l) => l.startsWith('data: {')).at(-1) ?? '';
          const usage = (JSON.parse(last.slice(6)) as { usage: { prompt_tokens_details: { cached_tokens: number } } }).usage;
          assert.ok(usage.prompt_tokens_details.cached_tokens >= 544, `${fw}: ${JSON.stringify(usage)}`);
        },
        { sim: FAST },
      );
    }
    await withSim('vllm', [MODEL, '--sim-no-cache-report'], async (s) => assert.equal(await cachedTokens(s), undefined), { sim: FAST });
    await withSim('sglang', ['--model-path', MODEL, '--sim-no-cache-report'], async (s) => assert.equal(await cachedTokens(s), undefined), { sim: FAST });
    await withSim('sglang', ['--model-path', MODEL, '--enable-cache-report', '--sim-no-cache-report'], async (s) => assert.equal(await cachedTokens(s), 0), { sim: FAST });
  });
});
