// Request faults a client must see as failures or invalid answers: --sim-error-rate (HTTP 500 up front, or a
// stream cut partway) and --sim-fault zero-tokens / short-output (answers that end early, even with ignore_eos).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens, type SimServer } from '../../src/sim';
import { launchStream, requestFailure } from '../../src/sim/noise';
import { jsonEvents, post, postJson, promptOf, stream, withSim } from '../support/sim';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const FAST = { speed: 500, warmupMs: 0 };

type Outcome = { kind: 'ok'; chunks: number } | { kind: 'http-500'; body: Record<string, unknown> } | { kind: 'cut'; chunks: number };

/** One streamed completion, classified the way a client sees it. */
async function outcome(s: SimServer, route: string, body: unknown): Promise<Outcome> {
  const r = await post(s, route, body);
  if (r.status === 500) return { kind: 'http-500', body: (await r.json()) as Record<string, unknown> };
  assert.equal(r.status, 200);
  let text = '';
  try {
    text = await r.text();
  } catch {
    // The connection dropped mid-body: what arrived is lost to text(), but the failure is what counts.
    return { kind: 'cut', chunks: -1 };
  }
  const chunks = text.split('\n\n').filter((l) => l.startsWith('data: {')).length;
  return text.includes('data: [DONE]') ? { kind: 'ok', chunks } : { kind: 'cut', chunks };
}

/** A streamed read that keeps what arrived before the connection dropped. */
async function partial(s: SimServer, route: string, body: unknown): Promise<{ status: number; text: string; ended: 'done' | 'error' }> {
  const r = await post(s, route, body);
  const reader = (r.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { status: r.status, text, ended: 'done' };
      text += dec.decode(value, { stream: true });
    }
  } catch {
    return { status: r.status, text, ended: 'error' };
  }
}

async function inBatches<T>(n: number, width: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, k) => one(i + k)))));
  return out;
}

describe('--sim-error-rate', () => {
  test('0.2 of 200 streamed requests fail, as HTTP 500 with an error body or a stream cut without [DONE]', async () => {
    await withSim(
      'vllm',
      [MODEL, '--sim-error-rate', '0.2', '--sim-seed', '3', '--sim-launch-salt', '1'],
      async (s) => {
        const body = { model: MODEL, prompt: promptOf(30), max_tokens: 8, ignore_eos: true, stream: true };
        const all = await inBatches(200, 25, () => outcome(s, '/v1/completions', body));
        const count = (k: Outcome['kind']): number => all.filter((o) => o.kind === k).length;
        const failed = count('http-500') + count('cut');
        assert.ok(failed >= 200 * 0.2 - 15 && failed <= 200 * 0.2 + 15, `failed ${failed}`);
        // The picks are a function of (seed, salt) and the request's number, so the count is exact.
        const picks = Array.from({ length: 200 }, (_, i) => requestFailure(launchStream(3, 1), i, 0.2));
        assert.equal(count('http-500'), picks.filter((p) => p === 'http-500').length);
        assert.equal(count('cut'), picks.filter((p) => p === 'cut').length);
        assert.ok(count('http-500') > 0 && count('cut') > 0, 'both kinds');
        const err = all.find((o) => o.kind === 'http-500');
        assert.ok(err?.kind === 'http-500');
        const inner = err.body.error as Record<string, unknown>;
        assert.equal(inner.code, 500);
        assert.equal(inner.type, 'InternalServerError');
        assert.match(String(inner.message), /simulated/);
        for (const o of all) if (o.kind === 'cut' && o.chunks >= 0) assert.ok(o.chunks < 8, 'cut before the last token');
        for (const o of all) if (o.kind === 'ok') assert.equal(o.chunks, 8);
      },
      { sim: FAST },
    );
  });

  test('a cut stream delivers some tokens, then drops without a finish_reason or [DONE]; non-streamed ones get no answer', async () => {
    // With rate 1 every request fails; find a cut one among the first few.
    await withSim(
      'sglang',
      ['--model-path', MODEL, '--sim-error-rate', '1'],
      async (s) => {
        const stream = launchStream(0, 0);
        const cutIndex = Array.from({ length: 50 }, (_, i) => requestFailure(stream, i, 1)).indexOf('cut');
        assert.ok(cutIndex >= 0);
        for (let i = 0; i < cutIndex; i++) {
          const r = await postJson(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], max_tokens: 4, ignore_eos: true });
          assert.equal(r.status, 500);
          assert.equal(r.json.object, 'error', 'SGLang error body shape');
        }
        const r = await partial(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 20, ignore_eos: true, stream: true });
        assert.equal(r.status, 200);
        assert.equal(r.ended, 'error', 'the connection drops mid-body');
        const events = r.text.split('\n\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)) as { choices: Array<{ delta: { content?: string }; finish_reason: string | null }> });
        const content = events.map((e) => e.choices[0]?.delta.content ?? '').join('');
        assert.equal(countTokens(content), 10, 'half of the answer arrived');
        assert.ok(events.every((e) => e.choices[0]?.finish_reason === null));
        assert.ok(!r.text.includes('[DONE]'));
        // Later requests: the native route fails too (500 or cut), and the server keeps serving.
        const later = await Promise.all(
          Array.from({ length: 6 }, () => post(s, '/generate', { text: 'x', sampling_params: { max_new_tokens: 4, ignore_eos: true } }).then((x) => x.status, () => 'cut')),
        );
        assert.ok(later.every((x) => x === 500 || x === 'cut'), later.join());
      },
      { sim: FAST },
    );
  });
});

describe('--sim-fault', () => {
  test('zero-tokens: a normal-looking stream with no token, finish_reason stop and completion_tokens 0, despite ignore_eos', async () => {
    await withSim(
      'vllm',
      [MODEL, '--sim-fault', 'zero-tokens'],
      async (s) => {
        const chat = await stream(s, '/v1/chat/completions', {
          messages: [{ role: 'user', content: promptOf(40) }],
          max_tokens: 64,
          ignore_eos: true,
          stream: true,
          stream_options: { include_usage: true },
        });
        assert.equal(chat.status, 200);
        assert.equal(chat.events.at(-1)?.data, '[DONE]');
        const chunks = jsonEvents(chat.events) as Array<{ choices: Array<{ delta: { content?: string }; finish_reason: string | null }>; usage: { completion_tokens: number } | null }>;
        const finishes = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean);
        assert.deepEqual(finishes, ['stop']);
        assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), '');
        assert.equal(chunks.at(-1)?.usage?.completion_tokens, 0);
        const whole = await postJson(s, '/v1/completions', { prompt: promptOf(10), max_tokens: 16, ignore_eos: true });
        const choice = (whole.json.choices as Array<{ text: string; finish_reason: string }>)[0];
        assert.deepEqual([choice?.text, choice?.finish_reason], ['', 'stop']);
        assert.equal((whole.json.usage as { completion_tokens: number }).completion_tokens, 0);
      },
      { sim: FAST },
    );
    await withSim(
      'sglang',
      ['--model-path', MODEL, '--sim-fault', 'zero-tokens'],
      async (s) => {
        const r = await postJson(s, '/generate', { text: 'x y', sampling_params: { max_new_tokens: 8, ignore_eos: true } });
        const meta = r.json.meta_info as { completion_tokens: number; finish_reason: { type: string } };
        assert.deepEqual([r.json.text, meta.completion_tokens, meta.finish_reason.type], ['', 0, 'stop']);
        assert.equal((await fetch(`${s.url}/health_generate`)).status, 200, 'health checks still pass');
      },
      { sim: FAST },
    );
  });

  test('short-output: half the requested tokens with finish_reason stop, despite ignore_eos', async () => {
    await withSim(
      'tensorrt_llm',
      [MODEL, '--sim-fault', 'short-output'],
      async (s) => {
        const st = await stream(s, '/v1/completions', { prompt: promptOf(20), max_tokens: 30, ignore_eos: true, stream: true, stream_options: { include_usage: true } });
        const chunks = jsonEvents(st.events) as Array<{ choices: Array<{ text: string; finish_reason: string | null }>; usage: { completion_tokens: number } | null }>;
        const text = chunks.map((c) => c.choices[0]?.text ?? '').join('');
        assert.equal(countTokens(text), 15);
        assert.equal(chunks.at(-1)?.usage?.completion_tokens, 15);
        assert.deepEqual(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean), ['stop']);
        const whole = await postJson(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], max_tokens: 9, ignore_eos: true });
        const choice = (whole.json.choices as Array<{ finish_reason: string }>)[0];
        assert.equal(choice?.finish_reason, 'stop');
        assert.equal((whole.json.usage as { completion_tokens: number }).completion_tokens, 4);
      },
      { sim: FAST },
    );
  });
});
