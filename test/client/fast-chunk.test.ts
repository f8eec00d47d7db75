// The JSON.parse-free chunk reader agrees with full parsing on every shape, and declines what it cannot read.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fastTokenText } from '../../src/client/fast-chunk';
import { StreamParser } from '../../src/client/stream-parser';
import { runBenchmark } from '../../src/client/run-benchmark';
import { rows, withServer, workload } from '../support/client';

function fast(payload: string, chat: boolean): string | undefined {
  const buf = Buffer.from(`data: ${payload}`);
  return fastTokenText(buf, 6, buf.length, chat);
}

/** What the full parser makes of the same chunk: the token text, '' for none. */
function slow(payload: string, chat: boolean): string {
  const o = JSON.parse(payload) as { choices?: { text?: string; delta?: { content?: string | null } }[] };
  const c0 = o.choices?.[0];
  if (!c0) return '';
  return chat ? (c0.delta?.content ?? '') : (c0.text ?? '');
}

const completions = [
  '{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}',
  '{"id":"x","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"","logprobs":null,"finish_reason":null}]}',
  '{"id":"x","choices":[{"index":0,"text":"caf\u00e9 \u6f22","logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":null}',
  '{"choices":[{"text":"}{:,[]","index":0}]}',
];
const chat = [
  '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
  '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}],"usage":null}',
  '{"id":"c","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}',
  '{"id":"c","choices":[{"index":0,"delta":{"content":null,"reasoning_content":null},"finish_reason":null}]}',
  '{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
];
// Must go to the full parser.
const declined: [string, boolean][] = [
  ['{"choices":[{"text":"a \\"quoted\\" word"}]}', false],
  ['{"choices":[{"text":"line\\nbreak"}]}', false],
  ['{"id":"u","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}', false],
  ['{"choices":[{"text":" tok"}],"usage":{"completion_tokens":1}}', false],
  ['{"error":{"message":"boom"}}', false],
  ['{"choices":[{"text":" tok","finish_reason":"abort"}]}', false],
  ['{"choices":[{"text":" tok","logprobs":{"tokens":[" tok"]}}]}', false],
  ['{"choices": [{"text": " spaced"}]}', false],
  ['{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}', true],
  ['{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}', true],
  ['{"object":"list"}', false],
  ['not json', false],
];

describe('fast chunk reader', () => {
  test('agrees with JSON.parse on plain chunks', () => {
    for (const p of completions) assert.equal(fast(p, false), slow(p, false), p);
    for (const p of chat) assert.equal(fast(p, true), slow(p, true), p);
  });

  test('declines everything it cannot read exactly', () => {
    for (const [p, isChat] of declined) assert.equal(fast(p, isChat), undefined, p);
  });

  test('whole runs give the same records with and without it', async () => {
    const once = async (on: boolean) => {
      StreamParser.fastChunks = on;
      try {
        return await withServer({ behaviour: { ttftMs: 2, itlMs: 1, commentEvery: 3, splitEvents: true } }, async (srv) => {
          const out = [];
          for (const backend of ['openai', 'openai-chat'] as const) {
            const res = await runBenchmark(workload(rows(3, 7)), { backend, baseUrl: srv.url, warmupRequests: 0, keepTexts: true });
            out.push(res.records.map((r) => [r.success, r.outputTokens, r.chunks, r.itlMs.length, r.generatedText, r.outputTokensSource]));
          }
          return out;
        });
      } finally {
        StreamParser.fastChunks = true;
      }
    };
    assert.deepEqual(await once(true), await once(false));
  });
});
