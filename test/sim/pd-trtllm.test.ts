// TensorRT-LLM P/D on the simulator: trtllm-serve workers honour disaggregated_params (context_only answers with what
// the generation side needs; generation_only arrives with its KV transferred), fail as the engine does without a cache
// transceiver or with overlap on a context worker; `trtllm-serve disaggregated` listens only once every worker is
// healthy, runs each request context-then-generation and keeps the unit's TTFT split.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimServer, type SimServer } from '../../src/sim';
import { parseFrontEnd, frontEndHelp } from '../../src/sim/trtllm-front-config';
import { startFrontEnd, type SimFrontEnd } from '../../src/sim/trtllm-front';
import { TRT_CONTEXT_OVERLAP, TRT_NO_TRANSCEIVER } from '../../src/sim/http/trt-disagg';
import { runShim } from '../../src/sim/shim';

const FAST = { speed: 50, warmupMs: 0, logIntervalMs: 0, gpu: 'H200' };
const MODEL = 'Qwen/Qwen3-32B';
const dir = mkdtempSync(join(tmpdir(), 'autobench-trt-pd-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => (writeFileSync(join(dir, name), text), join(dir, name));
const CTX = file('ctx.yaml', 'disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n');
const GEN = file('gen.yaml', 'cache_transceiver_config:\n  backend: UCX\n');
const OVERLAP = file('overlap.yaml', 'cache_transceiver_config:\n  backend: UCX\n');
const PLAIN = file('plain.yaml', 'max_batch_size: 64\n');
const longPrompt = (n: number): string => Array.from({ length: n }, (_, i) => `w${i % 97}`).join(' ');

function worker(options: string, port = 0): Promise<SimServer> {
  return startSimServer({ framework: 'tensorrt_llm', args: [MODEL, '--host', '127.0.0.1', '--extra_llm_api_options', options], port, sim: FAST });
}

async function postJson(url: string, body: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

const usage = (j: Record<string, unknown>) => j.usage as { prompt_tokens: number; completion_tokens: number };

describe('simulated trtllm-serve workers: the P/D protocol', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  after(async () => {
    for (const s of open.reverse()) await s.close();
  });
  const keep = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);

  test('context_only runs the prompt and one token and hands over its params and prompt ids; generation_only skips the prefill', async () => {
    const c = keep(await worker(CTX));
    const g = keep(await worker(GEN));
    const prompt = longPrompt(2000);
    const ctx = await postJson(`${c.url}/v1/completions`, { model: MODEL, prompt, max_tokens: 16, ignore_eos: true, disaggregated_params: { request_type: 'context_only' } });
    assert.equal(ctx.status, 200, JSON.stringify(ctx.json));
    const choice = (ctx.json.choices as Array<Record<string, unknown>>)[0] ?? {};
    const params = choice.disaggregated_params as Record<string, unknown>;
    assert.equal(params.request_type, 'context_only');
    assert.equal((params.first_gen_tokens as number[]).length, 1);
    assert.equal(typeof params.ctx_request_id, 'number');
    assert.equal(typeof params.encoded_opaque_state, 'string');
    assert.equal(usage(ctx.json).completion_tokens, 1, 'the context leg samples its first token only');
    const ids = ctx.json.prompt_token_ids as number[];
    assert.equal(ids.length, usage(ctx.json).prompt_tokens);
    const gen = await postJson(`${g.url}/v1/completions`, { model: MODEL, prompt: ids, max_tokens: 16, ignore_eos: true, disaggregated_params: { ...params, request_type: 'generation_only' } });
    assert.equal(gen.status, 200, JSON.stringify(gen.json));
    assert.equal(usage(gen.json).completion_tokens, 16);
    assert.ok(c.engine.stats().busySeconds > 5 * g.engine.stats().busySeconds / 16, 'the generation worker does not prefill the prompt again');
    assert.deepEqual(g.config.settings.pd, { role: 'both', backend: 'ucx' });
  });

  test('without cache_transceiver_config a worker refuses P/D requests; with overlap on it refuses context_only only', async () => {
    const plain = keep(await worker(PLAIN));
    const r = await postJson(`${plain.url}/v1/completions`, { model: MODEL, prompt: 'hi', disaggregated_params: { request_type: 'context_only' } });
    assert.equal(r.status, 400);
    assert.equal((r.json.error as { message: string }).message, TRT_NO_TRANSCEIVER);
    const overlap = keep(await worker(OVERLAP));
    const o = await postJson(`${overlap.url}/v1/chat/completions`, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], disaggregated_params: { request_type: 'context_only' } });
    assert.equal(o.status, 400);
    assert.equal((o.json.error as { message: string }).message, TRT_CONTEXT_OVERLAP);
    const gen = await postJson(`${overlap.url}/v1/chat/completions`, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], prompt_token_ids: [1, 2, 3], max_tokens: 3, disaggregated_params: { request_type: 'generation_only', first_gen_tokens: [7], ctx_request_id: 1 } });
    assert.equal(gen.status, 200, JSON.stringify(gen.json));
    assert.equal(usage(gen.json).prompt_tokens, 3, 'a generation-only chat request reads the prompt_token_ids it was handed');
  });
});

describe('simulated trtllm-serve disaggregated', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  after(async () => {
    for (const s of open.reverse()) await s.close();
  });
  const keep = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);

  test('refuses connections until every worker is healthy, then streams each request context-then-generation and splits its TTFT', async () => {
    const c = keep(await worker(CTX));
    const genPort = await freePort();
    const fePort = await freePort();
    const cfg = file('disagg.yaml', `hostname: 127.0.0.1\nport: ${fePort}\ncontext_servers:\n  num_instances: 1\n  urls:\n    - "127.0.0.1:${c.port}"\ngeneration_servers:\n  num_instances: 1\n  router:\n    type: load_balancing\n  urls:\n    - "127.0.0.1:30001"\n`);
    const env = { AUTOBENCH_SIM_PORTMAP: `30001:${genPort}` };
    const logs: string[] = [];
    const starting = startFrontEnd(parseFrontEnd(['-c', cfg, '-t', '600', '--sim-speed', '50'], env), env, (l) => logs.push(l));
    await new Promise((r) => setTimeout(r, 300));
    await assert.rejects(fetch(`http://127.0.0.1:${fePort}/health`), 'no answer while a worker is down');
    assert.ok(logs.some((l) => /Servers are not ready\. Waiting for \['http:\/\/127\.0\.0\.1:\d+'\]/.test(l)), logs.join('\n'));
    const g = keep(await worker(GEN, genPort));
    const fe = keep((await starting) as SimFrontEnd);
    const health = await fetch(`${fe.url}/health`);
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('x-autobench-simulated'), 'true');
    assert.equal((await fetch(`${fe.url}/v1/models`)).status, 404, 'the front end has no /v1/models');
    const streamed = await fetch(`${fe.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, prompt: longPrompt(1500), max_tokens: 8, ignore_eos: true, stream: true }) });
    assert.equal(streamed.status, 200);
    assert.equal(streamed.headers.get('x-autobench-simulated'), 'true');
    const text = await streamed.text();
    assert.equal(text.match(/^data: \{/gm)?.length, 8, text.slice(0, 400));
    assert.ok(text.includes('[DONE]') && !text.includes('autobench_sim'), 'no modelled times reach the client');
    assert.equal(c.engine.stats().generatedTokens, 1);
    assert.equal(g.engine.stats().generatedTokens, 8);
    const timing = { 'x-autobench-sim-timing': '1' };
    const split = (await (await fetch(`${fe.url}/autobench/sim/pd-split?after=0`, { headers: timing })).json()) as { seq: number; split: Array<Record<string, number>> };
    assert.equal(split.seq, 1);
    const s = split.split[0] ?? {};
    assert.ok((s.prefill_ms ?? 0) > 0 && (s.transfer_ms ?? 0) > 0 && (s.first_decode_ms ?? 0) > 0, JSON.stringify(s));
    const ttfts = (await (await fetch(`${fe.url}/autobench/sim/ttfts?after=0`, { headers: timing })).json()) as { seq: number };
    assert.equal(ttfts.seq, 1);
  });

  test('its --help lists the options serve.py defines; a config naming fewer urls than instances is refused', async () => {
    for (const o of ['--config_file', '--metadata_server_config_file', '--server_start_timeout', '--request_timeout', '--log_level', '--metrics-log-interval']) assert.ok(frontEndHelp().includes(o), o);
    const bad = file('bad.yaml', 'context_servers:\n  num_instances: 2\n  urls: ["127.0.0.1:1"]\ngeneration_servers:\n  urls: ["127.0.0.1:2"]\n');
    assert.throws(() => parseFrontEnd(['-c', bad], {}), /Number of hostnames \(1\) should be equal to the number of instances \(2\)/);
    const err: string[] = [];
    const io = { out: { write: (s: string) => (err.push(s), true) }, err: { write: (s: string) => (err.push(s), true) } } as never;
    assert.equal(await runShim('trtllm-serve', ['disaggregated', '--host', 'x'], io), 2);
    assert.match(err.join(''), /No such option: --host/);
    assert.equal(await runShim('trtllm-serve', ['disaggregated', '-c', bad], io), 1);
  });
});
