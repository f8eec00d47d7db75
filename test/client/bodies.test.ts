// What each backend sends: endpoint, body fields, extra-body precedence, headers, usage requests, multi-turn history.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiFor, buildBody, type BodyOptions } from '../../src/client/backends';
import { runBenchmark } from '../../src/client/run-benchmark';
import { rows, withServer, workload } from '../support/client';

const base: BodyOptions = {
  model: 'm',
  stream: true,
  ignoreEos: true,
  temperature: 0,
  includeUsage: true,
  continuousUsage: false,
  tokenizePrompt: false,
  chatMaxTokensField: 'max_completion_tokens',
  extraBody: {},
};

describe('request bodies', () => {
  test('endpoints per backend', () => {
    assert.equal(apiFor('sglang').path, '/generate');
    assert.equal(apiFor('sglang-oai').path, '/v1/completions');
    assert.equal(apiFor('vllm').path, '/v1/completions');
    assert.equal(apiFor('openai-chat').path, '/v1/chat/completions');
    assert.equal(apiFor('sglang').defaultPort, 30000);
    assert.equal(apiFor('vllm-chat').defaultPort, 8000);
  });

  test('native /generate: text, sampling_params with ignore_eos, stream; extra replaces whole keys', () => {
    const row = { prompt: 'hi there', promptLen: 3, outputLen: 7, scenario: 's' };
    assert.deepEqual(buildBody('native', row, base), { text: 'hi there', sampling_params: { temperature: 0, max_new_tokens: 7, ignore_eos: true }, stream: true });
    const ids = buildBody('native', { ...row, promptIds: [1, 5, 9] }, { ...base, tokenizePrompt: true });
    assert.deepEqual(ids.input_ids, [1, 5, 9]);
    assert.equal(ids.text, undefined);
    const replaced = buildBody('native', row, { ...base, extraBody: { sampling_params: { max_new_tokens: 1 } } });
    assert.deepEqual(replaced.sampling_params, { max_new_tokens: 1 });
  });

  test('completions: max_tokens, stream_options, temperature and ignore_eos unless the extra body sets them', () => {
    const row = { prompt: 'p', promptLen: 1, outputLen: 5, scenario: 's' };
    const b = buildBody('completions', row, base);
    assert.deepEqual(b, { model: 'm', prompt: 'p', max_tokens: 5, stream: true, stream_options: { include_usage: true }, temperature: 0, ignore_eos: true });
    const noEos = buildBody('completions', row, { ...base, ignoreEos: false, includeUsage: false });
    assert.equal(noEos.ignore_eos, undefined);
    assert.equal(noEos.stream_options, undefined);
    const cont = buildBody('completions', row, { ...base, continuousUsage: true });
    assert.deepEqual(cont.stream_options, { include_usage: true, continuous_usage_stats: true });
    // Row extra wins over run extra, which wins over our defaults.
    const merged = buildBody('completions', { ...row, extraBody: { top_k: 5, temperature: 0.7 } }, { ...base, extraBody: { temperature: 0.3, top_k: 1, seed: 9 } });
    assert.equal(merged.temperature, 0.7);
    assert.equal(merged.top_k, 5);
    assert.equal(merged.seed, 9);
    const off = buildBody('completions', row, { ...base, stream: false });
    assert.equal(off.stream, false);
    assert.equal(off.stream_options, undefined);
  });

  test('chat: messages (string wrapped as one user turn), max_completion_tokens or max_tokens', () => {
    const b = buildBody('chat', { prompt: 'q', promptLen: 1, outputLen: 4, scenario: 's' }, base);
    assert.deepEqual(b.messages, [{ role: 'user', content: 'q' }]);
    assert.equal(b.max_completion_tokens, 4);
    const msgs = [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'q' }];
    const c = buildBody('chat', { prompt: msgs, promptLen: 4, outputLen: 4, scenario: 's' }, { ...base, chatMaxTokensField: 'max_tokens' });
    assert.deepEqual(c.messages, msgs);
    assert.equal(c.max_tokens, 4);
    assert.equal(c.max_completion_tokens, undefined);
  });

  test('over the wire: headers (auth, --header, per-row), served model name, extra body', async () => {
    await withServer({ behaviour: { ttftMs: 1 } }, async (srv) => {
      const r = rows(2, 3);
      (r[1] as { headers?: Record<string, string> }).headers = { 'X-SMG-Routing-Key': 'k_1' };
      await runBenchmark(workload(r), {
        backend: 'vllm-chat',
        baseUrl: `${srv.url}/`,
        model: 'org/model',
        servedModelName: 'served',
        headers: { authorization: 'Bearer sk-test', 'x-team': 'a' },
        extraRequestBody: { top_p: 0.9 },
        warmupRequests: 0,
        readyCheckTimeoutS: 0,
      });
      const seen = srv.truths;
      assert.equal(seen.length, 2);
      for (const t of seen) {
        assert.equal(t.headers.authorization, 'Bearer sk-test');
        assert.equal(t.headers['x-team'], 'a');
        assert.equal(t.headers['content-type'], 'application/json');
        assert.equal(t.path, '/v1/chat/completions');
        assert.equal(t.body.model, 'served');
        assert.equal(t.body.top_p, 0.9);
        assert.equal(t.body.ignore_eos, true);
      }
      assert.equal(seen[0]?.headers['x-smg-routing-key'], undefined);
      assert.equal(seen[1]?.headers['x-smg-routing-key'], 'k_1');
    });
  });

  test('multi-turn: each turn carries the history and the previous reply, in the same slot', async () => {
    await withServer({ behaviour: { ttftMs: 2, itlMs: 1 } }, async (srv) => {
      const r = rows(2, 3).map((x) => ({ ...x, turns: ['second question', 'third question'], turnLens: [2, 2] }));
      const res = await runBenchmark(workload(r), { backend: 'openai-chat', baseUrl: srv.url, maxConcurrency: 1, warmupRequests: 0 });
      assert.equal(res.records.length, 6);
      assert.deepEqual(res.records.map((x) => [x.index, x.turn]), [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
      const third = srv.truths[2]?.body.messages as { role: string; content: string }[];
      assert.deepEqual(third.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
      assert.equal(third[1]?.content, ' tok tok tok');
      assert.equal(third[4]?.content, 'third question');
      // Later turns count the history: previous prompt + reply + new question.
      assert.equal(res.records[1]?.promptLen, 6 + 3 + 2);
      // One conversation at a time with max-concurrency 1: the second starts after the first's last turn.
      assert.ok((srv.truths[3]?.tBody as number) >= (srv.truths[2]?.tEnd as number));
    });
  });
});
