// The simulator's P/D units: prefill and decode workers behind the simulated routers. The router registers its workers
// and says so at /workers and /readiness; a request runs prefill then decode, the decode side computing only what the
// transferred KV does not cover; a transfer costs what the modelled link gives; failed transfers answer 0 tokens.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSimServer, type SimServer } from '../../src/sim';
import { startSimRouter, parseRouterArgs, RouterUsageError, type SimRouter } from '../../src/sim/router';
import { kvTransferSeconds } from '../../src/sim/pd';
import { resolveSim } from '../../src/sim/config';
import { DEFAULT_SIM_OPTIONS } from '../../src/sim/options';

const FAST = { speed: 50, warmupMs: 0, logIntervalMs: 0, gpu: 'H200' };
const MODEL = 'Qwen/Qwen3-32B';
const quiet = (): void => undefined;

async function sglangWorker(role: 'prefill' | 'decode', extra: string[] = [], sim: object = {}): Promise<SimServer> {
  const args = ['--model-path', MODEL, '--disaggregation-mode', role, '--host', '127.0.0.1', ...(role === 'prefill' ? ['--disaggregation-bootstrap-port', '8998'] : []), ...extra];
  return startSimServer({ framework: 'sglang', invocation: 'launch_server', args, port: 0, sim: { ...FAST, ...sim } });
}

async function postJson(url: string, body: object): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown>, headers: r.headers };
}

const usage = (j: Record<string, unknown>) => j.usage as { prompt_tokens: number; completion_tokens: number };
const longPrompt = (n: number): string => Array.from({ length: n }, (_, i) => `w${i % 97}`).join(' ');

describe('simulated P/D router and workers', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  after(async () => {
    for (const s of open.reverse()) await s.close();
  });
  const keep = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);

  test('the router counts a worker only once its /health answers; /readiness waits for one of each role', async () => {
    const p = keep(await sglangWorker('prefill'));
    const router = keep(await startSimRouter('sglang', ['--pd-disaggregation', '--prefill', p.url, '8998', '--decode', 'http://127.0.0.1:1', '--port', '0', '--host', '127.0.0.1'], {}, quiet));
    await new Promise((r) => setTimeout(r, 400));
    const workers = (await (await fetch(`${router.url}/workers`)).json()) as { stats: Record<string, number>; workers: Array<{ worker_type: string; is_healthy: boolean; bootstrap_port?: number }> };
    assert.deepEqual(workers.stats, { prefill_count: 1, decode_count: 0, regular_count: 0 });
    assert.deepEqual(workers.workers.map((w) => [w.worker_type, w.is_healthy, w.bootstrap_port]), [['prefill', true, 8998], ['decode', false, undefined]]);
    const ready = await fetch(`${router.url}/readiness`);
    assert.equal(ready.status, 503);
    assert.equal(ready.headers.get('x-autobench-simulated'), 'true');
  });

  test('a request runs prefill on the prefill worker, then decode on the decode worker, which does not prefill it again', async () => {
    const p = keep(await sglangWorker('prefill'));
    const d = keep(await sglangWorker('decode'));
    const router = keep(await startSimRouter('sglang', ['--pd-disaggregation', '--prefill', p.url, '8998', '--decode', d.url, '--port', '0', '--host', '127.0.0.1', '--sim-speed', '50'], {}, quiet));
    await waitReady(router);
    const r = await postJson(`${router.url}/v1/completions`, { model: MODEL, prompt: longPrompt(3000), max_tokens: 16, ignore_eos: true });
    assert.equal(r.status, 200);
    assert.equal(usage(r.json).completion_tokens, 16);
    assert.ok(!JSON.stringify(r.json).includes('autobench_sim'), 'the modelled times the router read are not passed on');
    const ps = p.engine.stats();
    const ds = d.engine.stats();
    assert.equal(ps.generatedTokens, 1, 'the prefill leg samples one token');
    assert.equal(ds.generatedTokens, 16);
    // The prompt's prefill ran on the prefill worker; the decode worker computed one prompt token and 16 decode steps.
    assert.ok(ps.busySeconds > 5 * ds.busySeconds / 16, `prefill ${ps.busySeconds} s vs decode ${ds.busySeconds} s`);
    const alone = keep(await startSimServer({ framework: 'sglang', invocation: 'launch_server', args: ['--model-path', MODEL], port: 0, sim: FAST }));
    await postJson(`${alone.url}/v1/completions`, { model: MODEL, prompt: longPrompt(3000), max_tokens: 16, ignore_eos: true });
    assert.ok(ds.busySeconds < alone.engine.stats().busySeconds / 2, 'the decode worker skips the prefill an aggregated server runs');
  });

  test('a decode worker whose KV transfers fail answers 200 with no token (the validity gate must catch it)', async () => {
    const p = keep(await sglangWorker('prefill'));
    const d = keep(await sglangWorker('decode', [], { fault: 'pd-transfer' }));
    const router = keep(await startSimRouter('sglang', ['--pd-disaggregation', '--prefill', p.url, '8998', '--decode', d.url, '--port', '0', '--host', '127.0.0.1'], {}, quiet));
    await waitReady(router);
    const r = await postJson(`${router.url}/v1/completions`, { model: MODEL, prompt: 'hello there', max_tokens: 8, ignore_eos: true });
    assert.equal(r.status, 200);
    assert.equal(usage(r.json).completion_tokens, 0);
    // The same worker answers a request that carries no transferred KV.
    const direct = await postJson(`${d.url}/v1/completions`, { model: MODEL, prompt: 'hello there', max_tokens: 8, ignore_eos: true });
    assert.equal(usage(direct.json).completion_tokens, 8);
  });

  test("the router splits each request's modelled TTFT into prefill queue, prefill, transfer, decode queue and first decode", async () => {
    const p = keep(await sglangWorker('prefill', ['--disaggregation-transfer-backend', 'mooncake']));
    const d = keep(await sglangWorker('decode', ['--disaggregation-transfer-backend', 'mooncake']));
    const router = keep(await startSimRouter('sglang', ['--pd-disaggregation', '--prefill', p.url, '8998', '--decode', d.url, '--port', '0', '--host', '127.0.0.1'], {}, quiet));
    await waitReady(router);
    const timing = { 'x-autobench-sim-timing': '1' };
    const mark = (await (await fetch(`${router.url}/autobench/sim/pd-split?after=0`, { headers: timing })).json()) as { seq: number };
    assert.equal(mark.seq, 0);
    // A whole answer and a streamed one, as the load client sends them: no modelled times reach the client.
    const whole = await postJson(`${router.url}/v1/completions`, { model: MODEL, prompt: longPrompt(3000), max_tokens: 4, ignore_eos: true });
    assert.ok(!JSON.stringify(whole.json).includes('autobench_sim'));
    const promptTokens = usage(whole.json).prompt_tokens;
    const streamed = await fetch(`${router.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, prompt: longPrompt(3000), max_tokens: 4, ignore_eos: true, stream: true }) });
    const text = await streamed.text();
    assert.ok(text.includes('[DONE]') && !text.includes('autobench_sim'), text.slice(0, 300));
    // The probe's request (timing header): first token - arrival reads the unit's modelled TTFT.
    const probed = await fetch(`${router.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...timing }, body: JSON.stringify({ model: MODEL, prompt: longPrompt(3000), max_tokens: 2, stream: true, ignore_eos: true }) });
    const arrival = Number(probed.headers.get('x-autobench-sim-arrival'));
    const first = Number(/"autobench_sim_time":([0-9.]+)/.exec(await probed.text())?.[1]);
    const got = (await (await fetch(`${router.url}/autobench/sim/pd-split?after=0`, { headers: timing })).json()) as { seq: number; split: Array<Record<string, number>> };
    assert.equal(got.seq, 3);
    const [a, , b] = got.split as [Record<string, number>, Record<string, number>, Record<string, number>];
    // The KV lands exactly the modelled transfer time after the decode worker got the request.
    const expectTransfer = kvTransferSeconds(d.config, promptTokens) * 1000;
    assert.ok(Math.abs((a.transfer_ms as number) - expectTransfer) < 0.01, `transfer ${a.transfer_ms} ms, modelled ${expectTransfer} ms`);
    assert.ok((a.prefill_ms as number) > 10 * (a.first_decode_ms as number), JSON.stringify(a));
    const parts = ['prefill_queue_ms', 'prefill_ms', 'transfer_ms', 'decode_queue_ms', 'first_decode_ms'].reduce((x, k) => x + (b[k] as number), 0);
    assert.ok(Math.abs(parts - (b.ttft_ms as number)) < 0.01);
    assert.ok(Math.abs((first - arrival) * 1000 - (b.ttft_ms as number)) < 0.5, `probe read ${(first - arrival) * 1000} ms, split says ${b.ttft_ms} ms`);
    const ttfts = (await (await fetch(`${router.url}/autobench/sim/ttfts?after=2`, { headers: timing })).json()) as { seq: number; ttft_ms: number[] };
    assert.deepEqual(ttfts, { seq: 3, ttft_ms: [b.ttft_ms] });
    // Without the header the simulator's own routes are not there, as on a real router.
    assert.notEqual((await fetch(`${router.url}/autobench/sim/pd-split`)).status, 200);
  });

  test('vLLM NIXL workers (kv_both) behind vllm-router: kv_transfer_params mark the decode leg', async () => {
    const cfg = JSON.stringify({ kv_connector: 'NixlConnector', kv_role: 'kv_both', kv_load_failure_policy: 'fail' });
    const worker = () => startSimServer({ framework: 'vllm', args: [MODEL, '--kv-transfer-config', cfg, '--host', '127.0.0.1'], port: 0, sim: FAST });
    const p = keep(await worker());
    const d = keep(await worker());
    assert.deepEqual(p.config.settings.pd, { role: 'both', backend: 'nixl' });
    const router = keep(await startSimRouter('vllm', ['--vllm-pd-disaggregation', '--prefill', p.url, '--decode', d.url, '--port', '0', '--host', '127.0.0.1'], {}, quiet));
    await waitReady(router);
    const r = await postJson(`${router.url}/v1/chat/completions`, { model: MODEL, messages: [{ role: 'user', content: longPrompt(500) }], max_tokens: 5, ignore_eos: true });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(usage(r.json).completion_tokens, 5);
    assert.equal(p.engine.stats().generatedTokens, 1);
    assert.equal(d.engine.stats().generatedTokens, 5);
  });

  test('the router maps the worker ports of its command line through AUTOBENCH_SIM_PORTMAP, and refuses a non-P/D argv', () => {
    const a = parseRouterArgs('sglang', ['--pd-disaggregation', '--prefill', 'http://127.0.0.1:30000', '8998', '--decode', 'http://127.0.0.1:30001', '--policy', 'round_robin', '--worker-startup-timeout-secs', '900'], { AUTOBENCH_SIM_PORTMAP: '30000:41000,30001:41001' });
    assert.deepEqual(a.workers.map((w) => [w.role, w.url, w.bootstrapPort]), [['prefill', 'http://127.0.0.1:41000', 8998], ['decode', 'http://127.0.0.1:41001', undefined]]);
    assert.deepEqual(a.ignored, ['--worker-startup-timeout-secs']);
    assert.throws(() => parseRouterArgs('vllm', ['--prefill', 'http://a:1', '--decode', 'http://a:2']), RouterUsageError);
    assert.throws(() => parseRouterArgs('sglang', ['--pd-disaggregation', '--prefill', 'http://a:1']), /at least one --prefill and one --decode/);
  });
});

describe('modelled KV transfer', () => {
  const resolved = (model: string, backend: string) => {
    const r = resolveSim('sglang', new Map<string, never>([['model_path', model as never], ['disaggregation_mode', 'decode' as never], ['disaggregation_transfer_backend', backend as never]]), { ...DEFAULT_SIM_OPTIONS, gpu: 'H100' });
    assert.ok(r.ok);
    return r.config;
  };

  test("Mooncake over TCP moves Llama-3.1-8B's KV of a 5000-token prompt in about the 1.8 s Dynamo measured (PR #1314); RDMA in milliseconds", () => {
    const tcp = kvTransferSeconds(resolved('meta-llama/Llama-3.1-8B-Instruct', 'mooncake_tcp'), 5000);
    assert.ok(Math.abs(tcp - 1.8) / 1.8 < 0.1, `${tcp} s`);
    const rdma = kvTransferSeconds(resolved('meta-llama/Llama-3.1-8B-Instruct', 'mooncake'), 5000);
    assert.ok(rdma < 0.05 && rdma > 0.002, `${rdma} s`);
  });
});

async function waitReady(router: SimRouter): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await fetch(`${router.url}/readiness`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the router never became ready');
}
