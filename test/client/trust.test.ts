// Whether a run can carry a verdict: the steady window and "too short" on known record sets, seeded intervals (against a naive bootstrap), validity counts, cache hits, and a client whose own event loop is blocked.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { percentileBootstrap, wilson } from '../../src/client/bootstrap';
import { computeMetrics } from '../../src/client/metrics';
import { resultJson } from '../../src/client/output';
import type { RequestRecord } from '../../src/client/record';
import { formatSummary } from '../../src/client/result-table';
import { runBenchmark } from '../../src/client/run-benchmark';
import { CLIENT_CPU_LIMIT_PERCENT, CLIENT_LAG_P99_LIMIT_MS, MIN_P50_SAMPLES, MIN_P99_SAMPLES, clientBound, steadyBounds } from '../../src/client/trust';
import { Rng } from '../../src/core/workload/rng';
import { percentileSorted } from '../../src/core/workload/stats';
import { rows, withServer, workload } from '../support/client';

function rec(p: Partial<RequestRecord>): RequestRecord {
  return {
    index: 0,
    turn: 0,
    scenario: 's',
    warmup: false,
    promptLen: 10,
    outputLenRequested: 5,
    ignoreEos: true,
    arrivalMs: 0,
    startMs: 0,
    success: true,
    error: '',
    status: 200,
    ttftMs: 10,
    e2eMs: 40,
    itlMs: [],
    outputTokens: 5,
    outputTokensSource: 'usage',
    chunks: 5,
    streamTokens: 5,
    generatedText: '',
    ...p,
  };
}

/** n requests sent every `everyMs`, each taking `e2eMs` (so e2eMs / everyMs are in flight), with `tokens` output tokens. */
function constantRate(n: number, everyMs: number, e2eMs: number, tokens = 5, jitter?: (i: number) => number): RequestRecord[] {
  return Array.from({ length: n }, (_, i) => rec({ index: i, startMs: i * everyMs, arrivalMs: i * everyMs, e2eMs: e2eMs + (jitter ? jitter(i) : 0), outputTokens: tokens }));
}

const close = (a: number | null | undefined, b: number, eps = 1e-9): boolean => a !== null && a !== undefined && Math.abs(a - b) <= eps;

describe('steady window', () => {
  test('runs from completion ⌈n/10⌉ to completion ⌊9n/10⌋, in completion order, tokens of requests finishing inside', () => {
    // Completions at 50, 150, ..., 950 ms; handed over out of order, and request 9 finishes first.
    const r = Array.from({ length: 10 }, (_, i) => rec({ index: i, startMs: i * 100, e2eMs: 50, outputTokens: i + 1, promptLen: 2 }));
    const last = r[9] as RequestRecord;
    last.startMs = 0;
    last.e2eMs = 10; // completes at 10 ms: the first completion
    const m = computeMetrics([...r].reverse(), 1000);
    // Sorted completions: 10, 50, 150, ..., 850 -> c_1 = 10, c_9 = 750 ... window (c_1, c_9] = (10, 750].
    assert.ok(close(m.steady.startS, 0.01));
    assert.ok(close(m.steady.endS, 0.75));
    assert.ok(close(m.steady.durationS, 0.74));
    // Inside: completions 50 ... 750 -> requests 0..7.
    assert.equal(m.steady.completed, 8);
    assert.ok(close(m.steady.requestThroughput, 8 / 0.74));
    const out = 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8;
    assert.ok(close(m.steady.outputThroughput, out / 0.74));
    assert.ok(close(m.steady.totalThroughput, (out + 8 * 2) / 0.74));
  });

  test('small n: no window under 3 successes; the indices use integer arithmetic', () => {
    for (const n of [0, 1, 2]) {
      const m = computeMetrics(constantRate(n, 100, 40), 1000);
      assert.equal(m.steady.startS, null, `n=${n}`);
      assert.equal(m.steady.requestThroughput, null);
      assert.equal(m.steady.durationS, 0);
      assert.match(m.steady.tooShort ?? '', /0 completion\(s\) in the steady window/);
    }
    // n = 3: i = 1, j = 2 -> (c_1, c_2], one completion.
    assert.deepEqual(steadyBounds(constantRate(3, 100, 40)), { a: 40, b: 140 });
    // n = 30: i = 3 and j = 27 (0.1 * 30 is 3.0000000000000004 in floating point, whose ceiling is 4).
    assert.deepEqual(steadyBounds(constantRate(30, 100, 40)), { a: 240, b: 2640 });
    // Every completion at the same instant: no time between the ends, no window.
    assert.equal(steadyBounds(Array.from({ length: 10 }, () => rec({ startMs: 0, e2eMs: 40 }))), null);
  });

  test('failed requests are not completions, but they hold slots', () => {
    const ok = constantRate(100, 100, 200);
    const failed = Array.from({ length: 100 }, (_, i) => rec({ index: 100 + i, startMs: i * 100, e2eMs: 200, success: false, errorKind: 'http', outputTokens: 0 }));
    const alone = computeMetrics(ok, 10_000).steady;
    const both = computeMetrics([...ok, ...failed], 10_000).steady;
    assert.equal(both.completed, alone.completed);
    assert.equal(both.requestThroughput, alone.requestThroughput);
    assert.ok(close(alone.concurrency, 2, 1e-9), String(alone.concurrency));
    assert.ok(close(both.concurrency, 4, 1e-9), String(both.concurrency));
  });
});

describe('too short', () => {
  test('long enough: null', () => {
    const m = computeMetrics(constantRate(100, 100, 400), 10_000);
    assert.equal(m.steady.completed, 80);
    assert.ok(close(m.steady.concurrency, 4));
    assert.equal(m.steady.minCompleted, 20);
    assert.equal(m.steady.tooShort, null);
  });

  test('fewer than 20 completions in the window', () => {
    const m = computeMetrics(constantRate(15, 100, 40), 2000);
    // i = ⌈1.5⌉ = 2, j = ⌊13.5⌋ = 13: completions 3 to 13.
    assert.equal(m.steady.completed, 11);
    assert.match(m.steady.tooShort ?? '', /^11 completion\(s\) in the steady window \(10%–90% of 15\); a verdict needs 20 \(at least 20, 2 × 0\.4 in flight\)$/);
  });

  test('fewer than 2 × the requests in flight', () => {
    // Each request takes 50 send intervals: about 40 in flight over the window, so 80 completions are too few.
    const m = computeMetrics(constantRate(100, 100, 5000), 20_000);
    assert.equal(m.steady.completed, 80);
    assert.ok(close(m.steady.concurrency, 40.25, 1e-9), String(m.steady.concurrency));
    assert.equal(m.steady.minCompleted, 80.5);
    assert.match(m.steady.tooShort ?? '', /^80 completion\(s\) in the steady window \(10%–90% of 100\); a verdict needs 81 \(at least 20, 2 × 40\.3 in flight\); /);
    // With 160 requests the window holds 128 completions, enough, and the sends span 15.9 s ≥ 3 × 5 s.
    assert.equal(computeMetrics(constantRate(160, 100, 5000), 21_000).steady.tooShort, null);
  });

  test('sends spanning under 3 × the median E2E (a burst)', () => {
    // All sent at t = 0, finishing one every 10 ms: the span is 0, the median E2E 600 ms.
    const burst = Array.from({ length: 101 }, (_, i) => rec({ index: i, startMs: 0, e2eMs: 100 + i * 10 }));
    const m = computeMetrics(burst, 1200);
    assert.match(m.steady.tooShort ?? '', /; requests were sent over 0\.00 s, under 3 × the median E2E latency \(1\.80 s\)$/);
  });
});

describe('intervals', () => {
  test('a constant-rate run: the throughput intervals hold the true rate and are narrow', () => {
    // 100 req/s and 700 tok/s, completions jittered by up to ±3 ms.
    const m = computeMetrics(constantRate(1000, 10, 40, 7, (i) => ((i * 7919) % 7) - 3), 10_100);
    const req = m.intervals.requestThroughput;
    const out = m.intervals.outputThroughput;
    assert.ok(req && out);
    assert.ok(req[0] <= 100 && 100 <= req[1], `requests ${req.join(', ')}`);
    assert.ok(req[1] - req[0] < 2, `requests ${req.join(', ')} is not narrow`);
    assert.ok(out[0] <= 700 && 700 <= out[1], `output ${out.join(', ')}`);
    assert.ok(out[1] - out[0] < 14);
    assert.ok(close(m.steady.requestThroughput, 100, 0.5));
  });

  test('a Poisson run: the interval holds the true rate and reflects its noise', () => {
    const rng = new Rng(7);
    let t = 0;
    const r = Array.from({ length: 2000 }, (_, i) => rec({ index: i, startMs: (t += rng.exponential(20)), e2eMs: 100 }));
    const i = computeMetrics(r, t + 100).intervals.requestThroughput;
    assert.ok(i);
    assert.ok(i[0] <= 50 && 50 <= i[1], i.join(', '));
    assert.ok(i[1] - i[0] > 1 && i[1] - i[0] < 10, i.join(', '));
  });

  test('seeded: the same records give the same intervals; another seed moves them', () => {
    const rng = new Rng(3);
    const r = Array.from({ length: 500 }, (_, i) => rec({ index: i, startMs: i * 10, ttftMs: 20 + 80 * rng.next(), e2eMs: 200 + 400 * rng.next(), outputTokens: 10 }));
    const a = computeMetrics(r, 6000).intervals;
    const b = computeMetrics(r.map((x) => ({ ...x })), 6000).intervals;
    assert.deepEqual(a, b);
    const c = computeMetrics(r, 6000, undefined, { bootstrap: { seed: 99 } }).intervals;
    assert.notDeepEqual(a.p50TtftMs, c.p50TtftMs);
    assert.equal(a.confidence, 0.95);
    assert.equal(a.resamples, 1000);
    // Each holds its point estimate.
    const m = computeMetrics(r, 6000);
    for (const [iv, v] of [
      [a.p50TtftMs, m.ttft.median],
      [a.p99TtftMs, m.ttft.p99],
      [a.p50TpotMs, m.tpot.median],
      [a.p50E2eMs, m.e2e.median],
      [a.p99E2eMs, m.e2e.p99],
    ] as const) {
      assert.ok(iv && v !== null && iv[0] <= v && v <= iv[1], `${String(iv)} vs ${v}`);
    }
  });

  test('null below the minimum samples', () => {
    assert.equal(MIN_P50_SAMPLES, 20);
    assert.equal(MIN_P99_SAMPLES, 368);
    const few = computeMetrics(constantRate(MIN_P50_SAMPLES - 1, 100, 40), 2000).intervals;
    assert.equal(few.p50TtftMs, null);
    assert.equal(few.requestThroughput, null, 'the window holds 15 completions, under 20');
    const some = computeMetrics(constantRate(MIN_P99_SAMPLES - 1, 10, 40), 4000).intervals;
    assert.notEqual(some.p50E2eMs, null);
    assert.equal(some.p99E2eMs, null);
    assert.notEqual(some.requestThroughput, null);
    const enough = computeMetrics(constantRate(MIN_P99_SAMPLES, 10, 40), 4000).intervals;
    assert.notEqual(enough.p99E2eMs, null);
    // TPOT needs two output tokens: no TPOT sample, no interval.
    assert.equal(computeMetrics(constantRate(100, 10, 40, 1), 1100).intervals.p50TpotMs, null);
    assert.equal(computeMetrics([], 0).intervals.successRate, null);
  });

  test('drawing order statistics gives what resampling and sorting gives', () => {
    const n = 100;
    const v = Float64Array.from({ length: n }, (_, i) => i * i);
    const naive = (p: number): [number, number] => {
      const rng = new Rng(2);
      const est = new Float64Array(4000);
      const s = new Float64Array(n);
      for (let b = 0; b < est.length; b++) {
        for (let k = 0; k < n; k++) s[k] = v[Math.floor(rng.next() * n)] as number;
        s.sort();
        est[b] = percentileSorted(s, p);
      }
      est.sort();
      return [percentileSorted(est, 2.5), percentileSorted(est, 97.5)];
    };
    const fast = percentileBootstrap(v, [50, 90, 99], 1, 4000);
    [50, 90, 99].forEach((p, k) => {
      const [lo, hi] = naive(p);
      const got = fast[k] as [number, number];
      // Within 1% of the sample's range.
      assert.ok(Math.abs(got[0] - lo) <= 98 && Math.abs(got[1] - hi) <= 98, `p${p}: ${got.join(', ')} vs ${lo}, ${hi}`);
    });
  });

  test('success rate: Wilson score interval', () => {
    const [lo, hi] = wilson(9, 10);
    assert.ok(Math.abs(lo - 0.5958) < 1e-4 && Math.abs(hi - 0.9821) < 1e-4, `${lo}, ${hi}`);
    const m = computeMetrics([...constantRate(9, 10, 40), rec({ success: false, errorKind: 'http', outputTokens: 0 })], 200);
    assert.deepEqual(m.intervals.successRate, [lo, hi]);
  });
});

describe('validity', () => {
  test('counts zero and short outputs and failures; no verdict', () => {
    const m = computeMetrics(
      [
        rec({ outputTokens: 5 }),
        rec({ outputTokens: 0 }), // answered with nothing
        rec({ success: false, errorKind: 'empty', outputTokens: 0 }), // a stream with no token
        rec({ outputTokens: 3 }), // short, ignore_eos on
        rec({ outputTokens: 3, ignoreEos: false }), // stopped at EOS: allowed
        rec({ outputTokens: 5, outputTokensSource: 'requested', ignoreEos: true }),
        rec({ success: false, errorKind: 'http', outputTokens: 0 }),
        rec({ success: false, errorKind: 'http', outputTokens: 0 }),
        rec({ success: false, errorKind: 'timeout', outputTokens: 0 }),
      ],
      1000,
    );
    assert.deepEqual(m.validity, {
      zeroOutputRequests: 2,
      shortOutputRequests: 1,
      ignoreEosRequests: 8,
      errorResponses: 4,
      errorsByKind: { empty: 1, http: 2, timeout: 1 },
    });
  });

  test('the requested length and ignore_eos come from the body as sent', async () => {
    // Odd prompts get 3 tokens of the 10 asked for.
    await withServer({ behaviour: { ttftMs: 1, itlMs: 1 }, decide: (body) => (Number(/number (\d+)/.exec(String(body.prompt ?? body.text))?.[1]) % 2 === 1 ? { tokens: 3 } : undefined) }, async (srv) => {
      const w = workload(rows(6, 10));
      const base = { baseUrl: srv.url, warmupRequests: 0 } as const;
      const on = await runBenchmark(w, { ...base, backend: 'openai' });
      assert.equal(on.metrics.validity.shortOutputRequests, 3);
      assert.equal(on.metrics.validity.ignoreEosRequests, 6);
      assert.ok(on.records.every((r) => r.ignoreEos === true && r.outputLenRequested === 10));
      const off = await runBenchmark(w, { ...base, backend: 'openai', ignoreEos: false });
      assert.equal(off.metrics.validity.shortOutputRequests, 0);
      assert.equal(off.metrics.validity.ignoreEosRequests, 0);
      const extra = await runBenchmark(w, { ...base, backend: 'openai', extraRequestBody: { ignore_eos: false, max_tokens: 4 } });
      assert.equal(extra.metrics.validity.ignoreEosRequests, 0, 'the extra body turned it off');
      assert.ok(extra.records.every((r) => r.outputLenRequested === 4));
      const minTokens = await runBenchmark(w, { ...base, backend: 'openai', ignoreEos: false, extraRequestBody: { min_tokens: 10 } });
      assert.equal(minTokens.metrics.validity.ignoreEosRequests, 6, 'min_tokens = max_tokens demands the full length too');
      const native = await runBenchmark(w, { ...base, backend: 'sglang' });
      assert.equal(native.metrics.validity.shortOutputRequests, 3);
      assert.ok(native.records.every((r) => r.ignoreEos === true && r.outputLenRequested === 10));
      const nativeSampling = await runBenchmark(w, { ...base, backend: 'sglang', extraRequestBody: { sampling_params: { max_new_tokens: 8 } } });
      assert.ok(nativeSampling.records.every((r) => r.ignoreEos === false && r.outputLenRequested === 8), 'a sampling_params in extra replaces ours whole');
    });
  });
});

/** A loopback server reporting cached prompt tokens: OpenAI usage.prompt_tokens_details (streamed), SGLang meta_info (whole JSON). */
async function withCacheServer(fn: (url: string) => Promise<void>): Promise<void> {
  let seq = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":"m"}]}');
        return;
      }
      const cached = 4 * (seq++ % 2); // 0, 4, 0, 4, ...
      if (req.url === '/generate') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: ' a b', meta_info: { prompt_tokens: 10, completion_tokens: 2, cached_tokens: cached } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"text":" a","finish_reason":null}]}\n\n');
      res.write('data: {"choices":[{"index":0,"text":" b","finish_reason":"length"}]}\n\n');
      res.end(`data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":${cached}}}}\n\ndata: [DONE]\n\n`);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  }
}

describe('cache hits', () => {
  test('totals and the hit fraction over the requests that reported; null when none did', () => {
    const none = computeMetrics([rec({}), rec({})], 100);
    assert.equal(none.cachedPromptTokens, null);
    assert.equal(none.cacheHitFraction, null);
    const some = computeMetrics([rec({ cachedTokens: 6, promptTokensServer: 12 }), rec({ cachedTokens: 0, promptLen: 8 }), rec({ promptLen: 100 })], 100);
    assert.equal(some.cachedPromptTokens, 6);
    assert.equal(some.cacheHitFraction, 6 / 20);
  });

  test('read from OpenAI streams and SGLang JSON answers', async () => {
    await withCacheServer(async (url) => {
      const w = workload(rows(4, 2));
      const oai = await runBenchmark(w, { backend: 'openai', baseUrl: url, warmupRequests: 0, maxConcurrency: 1 });
      assert.deepEqual(oai.records.map((r) => r.cachedTokens), [0, 4, 0, 4]);
      assert.equal(oai.metrics.cachedPromptTokens, 8);
      assert.equal(oai.metrics.cacheHitFraction, 8 / 40);
      const native = await runBenchmark(w, { backend: 'sglang', baseUrl: url, model: 'm', stream: false, warmupRequests: 0, maxConcurrency: 1 });
      assert.equal(native.metrics.cachedPromptTokens, 8);
      const line = resultJson(native, { datasetName: 'custom', numPrompts: 4, seed: 1, warmupRequests: 0, clientVersion: 't' });
      assert.equal(line.cached_prompt_tokens, 8);
      assert.equal(line.cache_hit_fraction, 0.2);
    });
  });
});

describe('client-bound', () => {
  test('thresholds', () => {
    assert.equal(CLIENT_LAG_P99_LIMIT_MS, 20);
    assert.equal(CLIENT_CPU_LIMIT_PERCENT, 90);
    assert.equal(clientBound({ eventLoopLagP99Ms: 20, cpuPercent: 90 }), null);
    assert.match(clientBound({ eventLoopLagP99Ms: 20.5, cpuPercent: 10 }) ?? '', /event loop lagged 20\.5 ms at p99 \(limit 20 ms\)/);
    assert.match(clientBound({ eventLoopLagP99Ms: 0, cpuPercent: 95 }) ?? '', /95% of one core \(limit 90%\)/);
  });

  test('a blocked event loop during the run makes the result client-bound', async () => {
    await withServer({ behaviour: { ttftMs: 5, itlMs: 10, tokens: 20 } }, async (srv) => {
      let busy: NodeJS.Timeout | undefined;
      const run = runBenchmark(
        // 48 requests of 20 tokens, 4 at a time: a window of a few seconds (under CLIENT_MIN_WINDOW_MS nothing is judged).
        workload(rows(48, 20)),
        { backend: 'openai', baseUrl: srv.url, maxConcurrency: 4, warmupRequests: 0 },
        {
          onEvent: (e) => {
            if (e.type !== 'phase') return;
            if (e.phase === 'measure') {
              // 60 ms of spinning every 80 ms: timers come late by tens of ms.
              busy = setInterval(() => {
                const until = performance.now() + 60;
                while (performance.now() < until);
              }, 80);
            } else if (e.phase === 'finish') {
              clearInterval(busy);
            }
          },
        },
      );
      const res = await run.finally(() => clearInterval(busy));
      assert.equal(res.metrics.completed, 48);
      assert.ok(res.client.eventLoopLagP99Ms > CLIENT_LAG_P99_LIMIT_MS, String(res.client.eventLoopLagP99Ms));
      assert.match(res.client.bound ?? '', /event loop lagged/);
    });
  });
});

describe('output', () => {
  test('the JSON line and the table carry the new fields', async () => {
    await withServer({ behaviour: { ttftMs: 1, itlMs: 1, tokens: 5 } }, async (srv) => {
      const res = await runBenchmark(workload(rows(40, 5)), { backend: 'openai', baseUrl: srv.url, maxConcurrency: 4, warmupRequests: 0 });
      const line = resultJson(res, { datasetName: 'custom', numPrompts: 40, seed: 1, warmupRequests: 0, clientVersion: 't' });
      const steady = line.steady as Record<string, unknown>;
      assert.deepEqual(Object.keys(steady), ['start_s', 'end_s', 'duration_s', 'completed', 'concurrency', 'request_throughput', 'output_throughput', 'total_throughput', 'min_completed', 'too_short']);
      assert.equal(steady.completed, res.metrics.steady.completed);
      assert.ok(typeof steady.too_short === 'string' || steady.too_short === null);
      const iv = line.intervals as Record<string, unknown>;
      assert.deepEqual(Object.keys(iv), ['confidence', 'resamples', 'request_throughput', 'output_throughput', 'total_throughput', 'p50_ttft_ms', 'p99_ttft_ms', 'p50_tpot_ms', 'p99_tpot_ms', 'p50_e2e_ms', 'p99_e2e_ms', 'success_rate']);
      assert.equal((iv.p50_ttft_ms as number[]).length, 2, '40 samples: a p50 interval');
      assert.equal(iv.p99_ttft_ms, null, '40 samples: no p99 interval');
      assert.deepEqual(line.validity, { zero_output_requests: 0, short_output_requests: 0, ignore_eos_requests: 40, error_responses: 0, errors_by_kind: {} });
      assert.equal(line.cached_prompt_tokens, null, 'the fake server never reports cache hits');
      const client = line.client as Record<string, unknown>;
      for (const k of ['event_loop_lag_p99_ms', 'event_loop_lag_max_ms', 'cpu_percent']) assert.equal(typeof client[k], 'number', k);
      assert.ok('bound' in client);
      assert.deepEqual(JSON.parse(JSON.stringify(line)), line, 'plain JSON');
      const table = formatSummary(res);
      assert.match(table, /^-+Steady State \(95% intervals\)-+$/m);
      assert.match(table, /^Steady request throughput \(req\/s\): +\d+\.\d\d( \[\d+\.\d\d, \d+\.\d\d\])?$/m);
    });
  });
});
