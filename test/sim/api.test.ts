// API conformance of the simulated server: shapes of every endpoint's responses and stream chunks, usage,
// errors, the context-length rule, native /generate, and the simulated-engine markers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens, type SimServer } from '../../src/sim';
import { jsonEvents, post, postJson, promptOf, sim, stream } from '../support/sim';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const FAST = { speed: 200, warmupMs: 0 };

describe('vLLM dialect', () => {
  let s: SimServer;
  before(async () => {
    s = await sim('vllm', [MODEL, '--max-model-len', '4096', '--api-key', 'k1'], { sim: FAST });
  });
  after(() => s.close());
  const auth = { authorization: 'Bearer k1' };

  test('/v1/models says the engine is simulated, and so does every response header', async () => {
    const r = await fetch(`${s.url}/v1/models`, { headers: auth });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-autobench-simulated'), 'true');
    const body = (await r.json()) as { object: string; data: Array<Record<string, unknown>> };
    assert.equal(body.object, 'list');
    const m = body.data[0] as Record<string, unknown>;
    assert.equal(m.id, MODEL);
    assert.equal(m.owned_by, 'autobench-sim');
    assert.equal(m.simulated, true);
    assert.equal(m.max_model_len, 4096);
    const missing = await fetch(`${s.url}/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-autobench-simulated'), 'true');
  });

  test('an API key is required when set', async () => {
    const r = await post(s, '/v1/completions', { prompt: 'hi', max_tokens: 1 });
    assert.equal(r.status, 401);
    assert.equal((await fetch(`${s.url}/health`)).status, 200, '/health needs no key');
  });

  test('streamed completions: one text chunk per token, finish_reason on the last, usage chunk, [DONE]', async () => {
    const r = await fetch(`${s.url}/v1/completions`, {
      method: 'POST',
      headers: { ...auth, 'x-request-id': 'req-42' },
      body: JSON.stringify({ model: MODEL, prompt: promptOf(20), max_tokens: 12, ignore_eos: true, stream: true, stream_options: { include_usage: true } }),
    });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(r.headers.get('x-request-id'), 'req-42');
    const lines = (await r.text()).split('\n\n').filter(Boolean);
    assert.equal(lines.at(-1), 'data: [DONE]');
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.replace(/^data: /, '')) as Record<string, unknown>);
    const tokens = chunks.filter((c) => (c.choices as unknown[]).length > 0);
    assert.equal(tokens.length, 12);
    for (const [i, c] of tokens.entries()) {
      assert.equal(c.object, 'text_completion');
      assert.equal(c.model, MODEL);
      assert.match(String(c.id), /^cmpl-/);
      const ch = (c.choices as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
      assert.equal(ch.index, 0);
      assert.equal(typeof ch.text, 'string');
      assert.notEqual(ch.text, '');
      assert.equal(ch.finish_reason, i === 11 ? 'length' : null);
      assert.equal(c.usage, null, 'with include_usage every chunk carries usage: null');
    }
    const last = chunks.at(-1) as Record<string, unknown>;
    assert.deepEqual(last.choices, []);
    assert.deepEqual(last.usage, { prompt_tokens: 20, total_tokens: 32, completion_tokens: 12 }, 'vLLM reports no cached tokens without --enable-prompt-tokens-details');
    const text = tokens.map((c) => ((c.choices as Array<{ text: string }>)[0] as { text: string }).text).join('');
    assert.equal(countTokens(text), 12, 'the text re-tokenizes to completion_tokens');
  });

  test('no usage chunk without include_usage; continuous_usage_stats puts usage on every chunk', async () => {
    const h = { authorization: 'Bearer k1', 'content-type': 'application/json' };
    const noUsage = await (await fetch(`${s.url}/v1/completions`, { method: 'POST', headers: h, body: JSON.stringify({ prompt: 'a b', max_tokens: 3, ignore_eos: true, stream: true }) })).text();
    assert.ok(!noUsage.includes('"usage"'));
    const cont = await (
      await fetch(`${s.url}/v1/completions`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ prompt: 'a b', max_tokens: 3, ignore_eos: true, stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } }),
      })
    ).text();
    const events = cont.split('\n\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)) as { usage: { completion_tokens: number } });
    assert.deepEqual(events.map((e) => e.usage.completion_tokens), [1, 2, 3, 3]);
  });

  test('streamed chat: role chunk, content deltas, finish_reason on the last content chunk', async () => {
    const r = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }], max_completion_tokens: 5, max_tokens: 50, ignore_eos: true, stream: true, stream_options: { include_usage: true } }),
    });
    const chunks = (await r.text()).split('\n\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    const choice = (c: Record<string, unknown>): Record<string, unknown> => (c.choices as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    assert.equal(chunks[0]?.object, 'chat.completion.chunk');
    assert.deepEqual(choice(chunks[0]).delta, { role: 'assistant', content: '' });
    const content = chunks.slice(1, -1);
    assert.equal(content.length, 5, 'max_completion_tokens wins over max_tokens');
    assert.equal(choice(content.at(-1) as Record<string, unknown>).finish_reason, 'length');
    const usage = (chunks.at(-1) as { usage: Record<string, number> }).usage;
    assert.equal(usage.completion_tokens, 5);
    assert.equal(usage.prompt_tokens, 2 + 3, 'two words plus the template tokens (role, end, assistant)');
  });

  test('non-streamed completion and chat carry the whole text and usage', async () => {
    const c = await fetch(`${s.url}/v1/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: promptOf(8), max_tokens: 7, ignore_eos: true }) });
    const body = (await c.json()) as { object: string; choices: Array<{ text: string; finish_reason: string }>; usage: Record<string, number> };
    assert.equal(body.object, 'text_completion');
    assert.equal(body.choices[0]?.finish_reason, 'length');
    assert.equal(countTokens(body.choices[0]?.text ?? ''), 7);
    assert.deepEqual(body.usage, { prompt_tokens: 8, total_tokens: 15, completion_tokens: 7 });
    const ch = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], max_tokens: 3, ignore_eos: true }) });
    const cb = (await ch.json()) as { object: string; choices: Array<{ message: { role: string; content: string } }> };
    assert.equal(cb.object, 'chat.completion');
    assert.equal(cb.choices[0]?.message.role, 'assistant');
    assert.equal(countTokens(cb.choices[0]?.message.content ?? ''), 3);
  });

  test('completions default to 16 tokens', async () => {
    const d = await fetch(`${s.url}/v1/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: 'x', ignore_eos: true }) });
    assert.equal(((await d.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens, 16);
  });

  test('bad requests get OpenAI-style error bodies', async () => {
    const cases: Array<[unknown, number, RegExp]> = [
      ['{not json', 400, /Invalid JSON/],
      [{ max_tokens: 3 }, 400, /prompt/],
      [{ prompt: 'x', max_tokens: 0 }, 400, /max_tokens must be at least 1/],
      [{ prompt: 'x', max_tokens: 'ten' }, 400, /max_tokens must be an integer/],
      [{ prompt: 'x', stream_options: { include_usage: true } }, 400, /only allowed when stream/],
      [{ prompt: 'x', model: 'other/model' }, 404, /does not exist/],
      [{ prompt: 'x', n: 2 }, 400, /n > 1/],
    ];
    for (const [body, status, msg] of cases) {
      const r = await fetch(`${s.url}/v1/completions`, { method: 'POST', headers: auth, body: typeof body === 'string' ? body : JSON.stringify(body) });
      assert.equal(r.status, status, JSON.stringify(body));
      const e = (await r.json()) as { error: { message: string; type: string; code: number } };
      assert.match(e.error.message, msg);
      assert.equal(e.error.code, status);
      assert.equal(typeof e.error.type, 'string');
    }
    const get = await fetch(`${s.url}/v1/completions`, { headers: auth });
    assert.equal(get.status, 405);
  });

  test('context limit: prompt plus max_tokens beyond max_model_len is rejected, as vLLM does', async () => {
    const r = await fetch(`${s.url}/v1/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: promptOf(4000), max_tokens: 200 }) });
    assert.equal(r.status, 400);
    const e = (await r.json()) as { error: { message: string; param: string } };
    assert.match(e.error.message, /maximum context length is 4096 tokens.*4200 tokens \(4000 in the prompt, 200 in the completion\)/);
    const long = await fetch(`${s.url}/v1/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: promptOf(5000), max_tokens: 1 }) });
    assert.equal(long.status, 400);
    const chat = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ messages: [{ role: 'user', content: promptOf(10) }], ignore_eos: true }) });
    assert.equal(((await chat.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens, 4096 - 13, 'chat defaults to the rest of the context');
  });

  test('vLLM extras: /version, /tokenize and /detokenize, /metrics', async () => {
    const v = (await (await fetch(`${s.url}/version`)).json()) as { version: string };
    assert.match(v.version, /autobench\.sim/);
    const t = (await (await post(s, '/tokenize', { prompt: 'hello wonderful world' })).json()) as { count: number; tokens: number[] };
    assert.equal(t.count, countTokens('hello wonderful world'));
    const d = (await (await post(s, '/detokenize', { tokens: t.tokens })).json()) as { prompt: string };
    assert.equal(d.prompt, 'hello wonderful world');
    const m = await (await fetch(`${s.url}/metrics`)).text();
    assert.match(m, /^autobench_sim_simulated 1$/m);
    assert.match(m, /^vllm:generation_tokens_total\{[^}]*\} \d+$/m);
  });

  test('the same request gives the same text; a different seed gives another', async () => {
    const body = { prompt: 'deterministic please', max_tokens: 8, ignore_eos: true, temperature: 0 };
    const text = async (srv: SimServer, h: Record<string, string>): Promise<string> =>
      ((await (await fetch(`${srv.url}/v1/completions`, { method: 'POST', headers: h, body: JSON.stringify(body) })).json()) as { choices: Array<{ text: string }> }).choices[0]?.text ?? '';
    const a = await text(s, auth);
    assert.equal(await text(s, auth), a);
    const other = await sim('vllm', [MODEL, '--sim-seed', '7'], { sim: FAST });
    try {
      assert.notEqual(await text(other, {}), a);
    } finally {
      await other.close();
    }
  });
});

describe('SGLang dialect', () => {
  let s: SimServer;
  before(async () => {
    s = await sim('sglang', ['--model-path', MODEL, '--context-length', '2048', '--enable-cache-report'], { sim: FAST });
  });
  after(() => s.close());

  test('/health and /health_generate answer 200', async () => {
    assert.equal((await fetch(`${s.url}/health`)).status, 200);
    const hg = await fetch(`${s.url}/health_generate`);
    assert.equal(hg.status, 200);
    assert.equal(hg.headers.get('x-autobench-simulated'), 'true');
  });

  test('chat streams end with a separate empty-delta chunk carrying finish_reason', async () => {
    const chunks = jsonEvents((await stream(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, ignore_eos: true, stream: true })).events);
    assert.equal(chunks.length, 1 + 3 + 1);
    const fin = (chunks.at(-1)?.choices as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    assert.deepEqual(fin.delta, {});
    assert.equal(fin.finish_reason, 'length');
    for (const c of chunks.slice(1, -1)) assert.equal(((c.choices as Array<Record<string, unknown>>)[0] as Record<string, unknown>).finish_reason, null);
  });

  test('errors use the flat {object: "error"} body', async () => {
    const r = await postJson(s, '/v1/completions', { max_tokens: 2 });
    assert.equal(r.status, 400);
    assert.equal(r.json.object, 'error');
    assert.equal(r.json.code, 400);
    assert.match(String(r.json.message), /prompt/);
  });

  test('context limit: max_tokens is shortened to fit; a prompt over the limit is rejected', async () => {
    const r = await postJson(s, '/v1/completions', { prompt: promptOf(2000), max_tokens: 500, ignore_eos: true });
    assert.equal(r.status, 200);
    const usage = r.json.usage as Record<string, number>;
    assert.equal(usage.completion_tokens, 48);
    const long = await postJson(s, '/v1/completions', { prompt: promptOf(2100), max_tokens: 1 });
    assert.equal(long.status, 400);
    assert.match(String(long.json.message), /longer than the model's context length \(2048 tokens\)/);
  });

  test('native /generate streams cumulative text with a running completion_tokens count', async () => {
    const { events, headers } = await stream(s, '/generate', { text: promptOf(30), sampling_params: { max_new_tokens: 6, ignore_eos: true, temperature: 0 }, stream: true });
    assert.equal(headers.get('x-autobench-simulated'), 'true');
    assert.equal(events.at(-1)?.data, '[DONE]');
    const chunks = jsonEvents(events) as Array<{ text: string; meta_info: Record<string, unknown> }>;
    assert.equal(chunks.length, 6);
    for (const [i, c] of chunks.entries()) {
      assert.equal(c.meta_info.completion_tokens, i + 1);
      assert.equal(c.meta_info.prompt_tokens, 30);
      assert.equal(countTokens(c.text), i + 1, 'text is cumulative');
      if (i > 0) assert.ok(c.text.startsWith((chunks[i - 1] as { text: string }).text));
    }
    assert.deepEqual(chunks.at(-1)?.meta_info.finish_reason, { type: 'length', length: 6 });
    assert.equal(chunks[0]?.meta_info.finish_reason, null);
  });

  test('native /generate without streaming; input_ids set the prompt length exactly; batches', async () => {
    const one = await postJson(s, '/generate', { input_ids: [1, 2, 3, 4, 5, 6, 7], sampling_params: { max_new_tokens: 4, ignore_eos: true } });
    assert.equal(one.status, 200);
    const meta = one.json.meta_info as Record<string, unknown>;
    assert.equal(meta.prompt_tokens, 7);
    assert.equal(meta.completion_tokens, 4);
    assert.equal((one.json.output_ids as unknown[]).length, 4);
    assert.equal(countTokens(String(one.json.text)), 4);
    const batch = await fetch(`${s.url}/generate`, { method: 'POST', body: JSON.stringify({ text: ['a b', 'c d e'], sampling_params: { max_new_tokens: 2, ignore_eos: true } }) });
    const items = (await batch.json()) as Array<{ meta_info: { prompt_tokens: number } }>;
    assert.deepEqual(items.map((x) => x.meta_info.prompt_tokens), [2, 3]);
    const bad = await postJson(s, '/generate', { sampling_params: {} });
    assert.equal(bad.status, 400);
  });

  test('without ignore_eos answers stop early with finish_reason stop', async () => {
    const s2 = await sim('sglang', ['--model-path', MODEL, '--sim-eos-median', '4'], { sim: FAST });
    try {
      const r = await postJson(s2, '/generate', { text: 'tell me', sampling_params: { max_new_tokens: 400 } });
      const meta = r.json.meta_info as { completion_tokens: number; finish_reason: { type: string } };
      assert.ok(meta.completion_tokens < 400, String(meta.completion_tokens));
      assert.equal(meta.finish_reason.type, 'stop');
      const eos = await postJson(s2, '/generate', { text: 'tell me', sampling_params: { max_new_tokens: 40, ignore_eos: true } });
      assert.equal((eos.json.meta_info as { completion_tokens: number }).completion_tokens, 40);
    } finally {
      await s2.close();
    }
  });

  test('cached prompt tokens are reported with --enable-cache-report', async () => {
    const p = promptOf(600, 'q');
    await postJson(s, '/v1/completions', { prompt: p, max_tokens: 1 });
    const again = await postJson(s, '/v1/completions', { prompt: p, max_tokens: 1 });
    const details = (again.json.usage as { prompt_tokens_details: { cached_tokens: number } }).prompt_tokens_details;
    assert.ok(details.cached_tokens >= 576, String(details.cached_tokens));
  });

  test('/server_info and /flush_cache', async () => {
    const info = (await (await fetch(`${s.url}/server_info`)).json()) as Record<string, unknown>;
    assert.equal(info.simulated, true);
    assert.equal(info.context_length, 2048);
    assert.equal((await fetch(`${s.url}/flush_cache?timeout=5`, { method: 'POST' })).status, 200);
  });
});

describe('TensorRT-LLM and TokenSpeed dialects', () => {
  test('trtllm-serve rejects over-long requests and serves completions', async () => {
    const s = await sim('trtllm', [MODEL, '--max_seq_len', '1024'], { sim: FAST });
    try {
      assert.equal((await postJson(s, '/v1/completions', { prompt: promptOf(1000), max_tokens: 100 })).status, 400);
      const ok = await postJson(s, '/v1/completions', { prompt: 'x y', max_tokens: 2, ignore_eos: true });
      assert.equal((ok.json.usage as { completion_tokens: number }).completion_tokens, 2);
      assert.equal((await fetch(`${s.url}/generate`, { method: 'POST', body: '{}' })).status, 404, 'no native route');
    } finally {
      await s.close();
    }
  });

  test('tokenspeed serves the OpenAI API and /generate', async () => {
    const s = await sim('tokenspeed', [MODEL], { sim: FAST });
    try {
      const r = await postJson(s, '/generate', { text: 'x', sampling_params: { max_new_tokens: 2, ignore_eos: true } });
      assert.equal(r.status, 200);
      const c = await postJson(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], max_tokens: 2, ignore_eos: true });
      assert.equal(c.status, 200);
    } finally {
      await s.close();
    }
  });
});
