// The simulated servers behave as each real engine's source says (docs/research/real-engines-audit.md): default bind
// address, SGLang's busy /flush_cache and /health warm-up, vLLM's /reset_prefix_cache log lines, TokenSpeed's smg
// gateway routes, trtllm-serve's closed request models and JSON /metrics, log line shapes, cached-token reporting,
// API-key coverage and metric names per engine.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startSimServer, type SimServer } from '../../src/sim';
import { post, postJson, promptOf, stream, withSim } from '../support/sim';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const FAST = { speed: 500, warmupMs: 0 };
const PROMPT = promptOf(600, 'r');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function cached(s: SimServer, headers: Record<string, string> = {}): Promise<number | undefined> {
  const r = await post(s, '/v1/completions', { model: s.model, prompt: PROMPT, max_tokens: 1 }, headers);
  assert.equal(r.status, 200);
  return ((await r.json()) as { usage: { prompt_tokens_details?: { cached_tokens: number } } }).usage.prompt_tokens_details?.cached_tokens;
}

/** Starts a long streamed completion and resolves once its first chunk arrived; abort() ends it. */
async function running(s: SimServer, headers: Record<string, string> = {}): Promise<AbortController> {
  const ac = new AbortController();
  const r = await fetch(`${s.url}/v1/completions`, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: s.model, prompt: 'a long one', max_tokens: 4000, ignore_eos: true, stream: true }),
  });
  const reader = (r.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  return ac;
}

describe('#1 default bind address per engine', () => {
  for (const [fw, args, host] of [
    ['vllm', [MODEL], '0.0.0.0'],
    ['sglang', ['--model-path', MODEL], '127.0.0.1'],
    ['tensorrt_llm', [MODEL], '127.0.0.1'],
    ['tokenspeed', ['--model', MODEL], '0.0.0.0'],
  ] as const) {
    test(`${fw} binds ${host} without --host, reachable at loopback; --host wins`, async () => {
      const s = await startSimServer({ framework: fw, args: [...args], port: 0, sim: { logIntervalMs: 0, ...FAST } });
      try {
        assert.equal(s.config.settings.host, host);
        assert.equal((await fetch(`${s.url}/v1/models`)).status, 200);
      } finally {
        await s.close();
      }
      const t = await startSimServer({ framework: fw, args: [...args, '--host', '127.0.0.1'], port: 0, sim: { logIntervalMs: 0, ...FAST } });
      try {
        assert.equal(t.config.settings.host, '127.0.0.1');
      } finally {
        await t.close();
      }
    });
  }
});

describe('#5 SGLang /flush_cache refuses while busy', () => {
  test('400 with the scheduler text while a request runs; ?timeout waits for idle and flushes', async () => {
    const log: string[] = [];
    await withSim(
      'sglang',
      ['--model-path', MODEL, '--enable-cache-report'],
      async (s) => {
        await cached(s);
        assert.ok(((await cached(s)) ?? 0) >= 576);
        const ac = await running(s);
        const busy = await fetch(`${s.url}/flush_cache`, { method: 'POST' });
        assert.equal(busy.status, 400);
        assert.match(await busy.text(), /^Cache not flushed because there are pending requests\. #queue-req: 0, #running-req: 1/);
        setTimeout(() => ac.abort(), 200);
        const waited = await fetch(`${s.url}/flush_cache?timeout=10`, { method: 'POST' });
        assert.equal(waited.status, 200);
        assert.match(await waited.text(), /^Cache flushed\.\nPlease check backend logs/);
        assert.equal(await cached(s), 0, 'the waited flush emptied the cache');
        assert.equal((await fetch(`${s.url}/flush_cache?timeout=-1`, { method: 'POST' })).status, 422);
      },
      { sim: { speed: 1, warmupMs: 0 }, log: (l) => log.push(l) },
    );
    assert.ok(log.some((l) => /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d TP0\] Cache not flushed because/.test(l)), log.join('\n'));
  });

  test('refused during the warm-up and in the scheduler idle iteration right after the last response', async () => {
    await withSim(
      'sglang',
      ['--model-path', MODEL],
      async (s) => {
        assert.equal((await fetch(`${s.url}/flush_cache`, { method: 'POST' })).status, 400, 'warm-up request still running');
        await sleep(450);
        assert.equal((await fetch(`${s.url}/flush_cache`, { method: 'POST' })).status, 200);
      },
      { sim: { speed: 500, warmupMs: 400 } },
    );
  });
});

describe('#12 readiness: SGLang /health waits for its warm-up, /v1/models does not', () => {
  test('/health 503 then 200; /v1/models 200 throughout', async () => {
    const log: string[] = [];
    await withSim(
      'sglang',
      ['--model-path', MODEL],
      async (s) => {
        assert.equal((await fetch(`${s.url}/health`)).status, 503);
        assert.equal((await fetch(`${s.url}/v1/models`)).status, 200);
        await sleep(450);
        assert.equal((await fetch(`${s.url}/health`)).status, 200);
      },
      { sim: { speed: 500, warmupMs: 400 }, log: (l) => log.push(l) },
    );
    assert.ok(log.some((l) => / The server is fired up and ready to roll!$/.test(l)));
  });
});

describe('#13 vLLM /reset_prefix_cache', () => {
  test('200 either way; the log says it failed while blocks are held, and succeeded once idle', async () => {
    const log: string[] = [];
    await withSim(
      'vllm',
      [MODEL, '--sim-cache-report'],
      async (s) => {
        await cached(s);
        const ac = await running(s);
        assert.equal((await post(s, '/reset_prefix_cache', {})).status, 200);
        assert.ok(log.some((l) => /^\(EngineCore_DP0 pid=\d+\) WARNING \d\d-\d\d \d\d:\d\d:\d\d \[\S+\] Failed to reset prefix cache because some blocks \(\d+\) are not freed yet$/.test(l)), log.join('\n'));
        ac.abort();
        await sleep(50);
        assert.ok(((await cached(s)) ?? 0) >= 576, 'not reset');
        assert.equal((await post(s, '/reset_prefix_cache', {})).status, 200);
        assert.ok(log.some((l) => / INFO .* Successfully reset prefix cache$/.test(l)));
        assert.equal(await cached(s), 0);
      },
      { sim: { speed: 1, warmupMs: 0 }, env: { VLLM_SERVER_DEV_MODE: '1' }, log: (l) => log.push(l) },
    );
  });
});

describe('TokenSpeed: the smg gateway runtime', () => {
  test('/readiness 503 and an empty /v1/models until the worker registers; /liveness at once', async () => {
    await withSim(
      'tokenspeed',
      ['--model', MODEL],
      async (s) => {
        const r = await fetch(`${s.url}/readiness`);
        assert.equal(r.status, 503);
        assert.deepEqual(await r.json(), { status: 'not ready', reason: 'insufficient healthy workers' });
        assert.deepEqual(((await (await fetch(`${s.url}/v1/models`)).json()) as { data: unknown[] }).data, []);
        assert.equal((await fetch(`${s.url}/liveness`)).status, 200);
        await sleep(450);
        assert.equal((await fetch(`${s.url}/readiness`)).status, 200);
        const ids = ((await (await fetch(`${s.url}/v1/models`)).json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
        assert.deepEqual(ids, [MODEL]);
      },
      { sim: { speed: 500, warmupMs: 400 } },
    );
  });

  test('/flush_cache: 200 with workers_flushed 0 and nothing flushed before smg 1.5.0; gRPC flush from 1.5.0', async () => {
    await withSim(
      'tokenspeed',
      ['--model', MODEL, '--enable-cache-report'],
      async (s) => {
        await cached(s);
        const r = await fetch(`${s.url}/flush_cache`, { method: 'POST' });
        assert.equal(r.status, 200);
        const body = (await r.json()) as { workers_flushed: number; message: string };
        assert.equal(body.workers_flushed, 0);
        assert.equal(body.message, 'No HTTP workers available for cache flush');
        assert.ok(((await cached(s)) ?? 0) >= 576, 'nothing was flushed');
        assert.equal((await fetch(`${s.url}/flush_cache`)).status, 405, 'POST only');
      },
      { sim: FAST },
    );
    await withSim(
      'tokenspeed',
      ['--model', MODEL, '--enable-cache-report', '--sim-gateway-version', '1.5.0'],
      async (s) => {
        await cached(s);
        await sleep(50);
        const body = (await (await fetch(`${s.url}/flush_cache`, { method: 'POST' })).json()) as { workers_flushed: number };
        assert.equal(body.workers_flushed, 1);
        assert.equal(await cached(s), 0);
      },
      { sim: FAST },
    );
  });

  test('routes: /metrics and SGLang-only routes are 404; the key guards generation and admin routes only', async () => {
    await withSim(
      'tokenspeed',
      ['--model', MODEL, '--api-key', 'k1'],
      async (s) => {
        for (const route of ['/metrics', '/server_info', '/reset_prefix_cache', '/version']) assert.equal((await fetch(`${s.url}${route}`)).status, 404, route);
        for (const route of ['/v1/models', '/liveness', '/readiness', '/health', '/get_server_info']) assert.equal((await fetch(`${s.url}${route}`)).status, 200, route);
        assert.equal((await post(s, '/v1/completions', { prompt: 'x', max_tokens: 1 })).status, 401);
        assert.equal((await post(s, '/flush_cache', {})).status, 401);
        assert.equal((await post(s, '/v1/completions', { prompt: 'x', max_tokens: 1 }, { authorization: 'Bearer k1' })).status, 200);
      },
      { sim: FAST },
    );
  });

  test('#17 streamed completions carry no usage chunk before smg 1.4.0, and do from 1.4.0', async () => {
    const body = { prompt: 'x y', max_tokens: 4, ignore_eos: true, stream: true, stream_options: { include_usage: true } };
    for (const [version, hasUsage] of [['1.3.0', false], ['1.4.0', true]] as const) {
      await withSim(
        'tokenspeed',
        ['--model', MODEL, '--sim-gateway-version', version],
        async (s) => {
          const r = await stream(s, '/v1/completions', body);
          const chunks = r.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as Record<string, unknown>);
          assert.equal(chunks.some((c) => c.usage !== undefined && c.usage !== null), hasUsage, version);
          if (!hasUsage) assert.ok(chunks.every((c) => !('usage' in c)), 'the chunk type has no usage field');
        },
        { sim: FAST },
      );
    }
  });
});

describe('#15 #19 trtllm-serve', () => {
  test('unknown body fields are a 400 (extra="forbid"); the fields the client sends by default pass', async () => {
    await withSim(
      'trtllm',
      [MODEL],
      async (s) => {
        const bad = await postJson(s, '/v1/completions', { prompt: 'x', max_tokens: 2, no_stop_trim: true });
        assert.equal(bad.status, 400);
        assert.match((bad.json.error as { message: string }).message, /no_stop_trim\n {2}Extra inputs are not permitted/);
        assert.equal((await postJson(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], max_tokens: 2, regex: 'a' })).status, 400);
        const so = { include_usage: true, continuous_usage_stats: true };
        assert.equal((await post(s, '/v1/completions', { prompt: 'x', max_tokens: 2, ignore_eos: true, min_tokens: 1, temperature: 0, stream: true, stream_options: so })).status, 200);
        assert.equal((await postJson(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], max_completion_tokens: 2, ignore_eos: true })).status, 200);
        assert.equal((await post(s, '/v1/completions', { prompt: 'x', max_tokens: 2, stream: true, stream_options: { include_usage: true, extra: 1 } })).status, 400);
      },
      { sim: FAST },
    );
  });

  test('/metrics is a JSON list of iteration stats; /prometheus/metrics only with return_perf_metrics', async () => {
    await withSim(
      'trtllm',
      [MODEL],
      async (s) => {
        const m = await fetch(`${s.url}/metrics`);
        assert.match(m.headers.get('content-type') ?? '', /json/);
        const list = (await m.json()) as Array<Record<string, unknown>>;
        assert.ok(Array.isArray(list) && typeof list[0]?.numActiveRequests === 'number');
        assert.equal((await fetch(`${s.url}/prometheus/metrics`)).status, 404);
      },
      { sim: FAST },
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'autobench-trt-perf-'));
    const extra = path.join(dir, 'extra.yaml');
    writeFileSync(extra, 'return_perf_metrics: true\n');
    await withSim(
      'trtllm',
      [MODEL, '--extra_llm_api_options', extra],
      async (s) => {
        const p = await fetch(`${s.url}/prometheus/metrics`);
        assert.equal(p.status, 200);
        assert.match(await p.text(), /^trtllm_kv_cache_utilization /m);
      },
      { sim: FAST },
    );
  });
});

describe('#18 cached tokens reported as each engine does by default', () => {
  test('SGLang and TokenSpeed only with --enable-cache-report, vLLM not without its flag, TRT-LLM always', async () => {
    for (const [fw, args, reports] of [
      ['sglang', ['--model-path', MODEL], false],
      ['sglang', ['--model-path', MODEL, '--enable-cache-report'], true],
      ['vllm', [MODEL], false],
      ['tensorrt_llm', [MODEL], true],
      ['tokenspeed', ['--model', MODEL], false],
      ['tokenspeed', ['--model', MODEL, '--enable-cache-report'], true],
    ] as const) {
      await withSim(fw, [...args], async (s) => assert.equal((await cached(s)) !== undefined, reports, `${fw} ${args.join(' ')}`), { sim: FAST });
    }
  });
});

describe('API-key coverage and metric names', () => {
  test('SGLang guards every route but /health* and /metrics; metrics only with --enable-metrics, sglang: names', async () => {
    await withSim(
      'sglang',
      ['--model-path', MODEL, '--api-key', 'k1', '--enable-metrics'],
      async (s) => {
        for (const route of ['/server_info', '/get_model_info', '/flush_cache', '/v1/models']) assert.equal((await fetch(`${s.url}${route}`)).status, 401, route);
        assert.equal((await fetch(`${s.url}/health`)).status, 200);
        const m = await fetch(`${s.url}/metrics`);
        assert.equal(m.status, 200);
        const text = await m.text();
        for (const name of ['sglang:num_running_reqs', 'sglang:num_queue_reqs', 'sglang:token_usage']) assert.match(text, new RegExp(`^${name}\\{`, 'm'));
        assert.match(text, /^autobench_sim_simulated 1$/m);
      },
      { sim: FAST },
    );
    await withSim('sglang', ['--model-path', MODEL], async (s) => assert.equal((await fetch(`${s.url}/metrics`)).status, 404), { sim: FAST });
  });

  test('vLLM guards /v1/* only; vllm: metric names', async () => {
    await withSim(
      'vllm',
      [MODEL, '--api-key', 'k1'],
      async (s) => {
        assert.equal((await fetch(`${s.url}/v1/models`)).status, 401);
        assert.equal((await post(s, '/tokenize', { prompt: 'a b' })).status, 200);
        const text = await (await fetch(`${s.url}/metrics`)).text();
        for (const name of ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc', 'vllm:prefix_cache_hits_total']) assert.match(text, new RegExp(`^${name}\\{`, 'm'));
      },
      { sim: FAST },
    );
  });
});

describe('#10 log line shapes', () => {
  const lines = async (fw: string, args: string[], o: { version?: string; body?: Record<string, unknown>; crash?: boolean } = {}): Promise<string[]> => {
    const log: string[] = [];
    await withSim(
      fw,
      args,
      async (s) => {
        if (o.body) assert.equal((await post(s, '/v1/completions', o.body)).status, 200);
        if (o.crash) {
          await post(s, '/v1/completions', { prompt: 'x', max_tokens: 1 }).catch(() => undefined);
          await sleep(50);
        }
      },
      { sim: { ...FAST, engineVersion: o.version, crashAfterRequests: o.crash ? 1 : undefined }, log: (l) => log.push(l) },
    );
    return log;
  };

  test('SGLang: [date time] message, no level name; crash as "Scheduler hit an exception"', async () => {
    const log = await lines('sglang', ['--model-path', MODEL], { crash: true });
    const own = log.filter((l) => !l.startsWith('INFO:') && !/^ {2}File|^Traceback|^RuntimeError/.test(l));
    for (const l of own) assert.match(l, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d( TP0)?\] (?!INFO|WARNING|ERROR)/, l);
    assert.ok(log.some((l) => / TP0\] Scheduler hit an exception: Traceback \(most recent call last\):$/.test(l)));
  });

  test('vLLM: (APIServer pid=N) INFO MM-DD HH:MM:SS [file:line] lines; 0.10.0 logs prompts, newer versions do not', async () => {
    const body = { prompt: 'an ERROR in RuntimeError land', max_tokens: 1 };
    const now = await lines('vllm', [MODEL], { body, crash: true });
    assert.ok(now.some((l) => /^\(APIServer pid=\d+\) INFO \d\d-\d\d \d\d:\d\d:\d\d \[[\w.]+:\d+\] /.test(l)));
    assert.ok(!now.some((l) => /Received request/.test(l)));
    assert.ok(now.some((l) => /^\(EngineCore_DP0 pid=\d+\) ERROR .* EngineCore encountered a fatal error\.$/.test(l)));
    const old = await lines('vllm', [MODEL], { version: '0.10.0', body });
    assert.ok(old.some((l) => /^INFO \d\d-\d\d .* Received request cmpl-\S+: prompt: 'an ERROR in RuntimeError land', params: /.test(l)), old.join('\n'));
    assert.ok(!old.some((l) => l.startsWith('(APIServer')), 'no process prefix before 0.10.2');
  });

  test('trtllm-serve: [MM/DD/YYYY-HH:MM:SS] [TRT-LLM] [I] lines; a crash is a [TRT-LLM] [E] line', async () => {
    const log = await lines('trtllm', [MODEL], { crash: true });
    assert.ok(log.some((l) => /^\[\d\d\/\d\d\/\d{4}-\d\d:\d\d:\d\d\] \[TRT-LLM\] \[I\] /.test(l)));
    assert.ok(log.some((l) => /\[TRT-LLM\] \[E\] .*CUDA error/.test(l)));
  });
});
