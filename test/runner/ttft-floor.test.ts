// A sped-up simulator's TTFT floor (runner/ttft-floor.ts): the decision from the probe's samples and from a trial's
// wall vs modelled TTFTs, the launch probe against each simulated engine (the timing header, no extra body field), the
// engine's account of modelled TTFTs (only with the header), never a probe of a server that is not simulated, and the
// row: TTFT and E2E less the floor, TPOT untouched, the SLA verdict on the corrected figures, `ttft_floor` recorded
// and valid against the row schema.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { computeMetrics } from '../../src/client/metrics';
import type { RequestRecord } from '../../src/client/record';
import type { Candidate } from '../../src/core/candidates/candidate';
import { readRunPlan } from '../../src/core/plan/build';
import { buildReport } from '../../src/core/results/report';
import { readRows, validateRows } from '../../src/core/results/rows';
import { fromPlainJson } from '../../src/core/py/json';
import { measuredRow, metricsBlock, type RowContext } from '../../src/runner/row-builder';
import type { LiveServer } from '../../src/runner/server';
import { decideFloor, probeSamples, probeTtftFloor, readModelTtfts, trialFloorOf, ttftLimitOf, withFloorProbe, floorOf, SIM_ARRIVAL_HEADER, SIM_TTFTS_PATH, type FloorSample } from '../../src/runner/ttft-floor';
import { planYaml } from '../support/runner';
import { post, stream, withSim } from '../support/sim';

const MODEL = 'Qwen/Qwen3-8B';

/** Samples whose wall TTFT is the modelled one at `speed` plus a fixed `floorMs` (and `jitter` alternating ±). */
function samples(speed: number, floorMs: number, jitter = 0, n = 16): FloorSample[] {
  return Array.from({ length: n }, (_, i) => ({ modelMs: 20, wallMs: 20 / speed + floorMs + (i % 2 ? jitter : -jitter) }));
}

describe('the TTFT floor decision', () => {
  test('at speed K the floor o (wall ms) is removed as (K - 1)·o: what the speed adds over a speed-1 run', () => {
    const f = decideFloor(samples(10, 3), 10, 300);
    assert.equal(f.wall_ms, 3);
    assert.equal(f.inflation_ms, 27);
    assert.equal(f.removed_ms, 27);
    assert.equal(f.action, 'subtracted');
  });

  test('speed 1, or an inflation under 2% of the TTFT limit: negligible, recorded and not removed', () => {
    const one = decideFloor(samples(1, 3), 1, 300);
    assert.equal(one.action, 'negligible');
    assert.equal(one.removed_ms, 0);
    const small = decideFloor(samples(10, 0.5), 10, 300); // 4.5 ms < 6 ms
    assert.equal(small.action, 'negligible');
    assert.equal(small.inflation_ms, 4.5);
    assert.equal(small.removed_ms, 0);
  });

  test('a floor whose spread × (K - 1) exceeds 5% of the limit is removed and marked uncertain, with the fix', () => {
    const f = decideFloor(samples(10, 3, 2), 10, 300); // half IQR 2 ms × 9 = 18 ms > 15 ms
    assert.equal(f.action, 'uncertain');
    assert.ok(f.removed_ms > 0);
    assert.match(f.note ?? '', /lower --sim-speed/);
  });

  test("a trial's floor pairs its wall TTFTs with the engine's modelled ones by quantile", () => {
    const model = Array.from({ length: 40 }, (_, i) => 100 + i * 10); // simulated ms
    const wall = model.map((m) => m / 10 + 5); // at x10, 5 wall ms on top of each
    const f = trialFloorOf([...wall].reverse(), model, 10, 300);
    assert.ok(f);
    assert.equal(f.wall_ms, 5);
    assert.equal(f.spread_ms, 0);
    assert.equal(f.removed_ms, 45);
    assert.equal(f.basis, 'under-load');
    assert.equal(trialFloorOf(wall.slice(0, 3), model.slice(0, 3), 10, 300), undefined, 'too few requests: the idle floor stands');
  });

  test('no TTFT limit: removed whatever its size; no sample: unmeasured, nothing removed', () => {
    assert.equal(decideFloor(samples(10, 0.5), 10, null).action, 'subtracted');
    const none = decideFloor([], 10, 300);
    assert.equal(none.action, 'unmeasured');
    assert.equal(none.removed_ms, 0);
    assert.equal(ttftLimitOf({ max_p50_ttft_ms: 300, max_p99_ttft_ms: 200 }), 200);
    assert.equal(ttftLimitOf({ max_p50_tpot_ms: 40 }), null);
  });
});

describe('the probe', () => {
  const ARGS: Record<string, string[]> = { vllm: [MODEL], sglang: ['--model-path', MODEL], tensorrt_llm: [MODEL], tokenspeed: [MODEL] };
  for (const fw of ['vllm', 'sglang', 'tensorrt_llm', 'tokenspeed']) {
    test(`${fw}: one-token streams with the timing header give a wall and a modelled TTFT each`, async () => {
      await withSim(fw, ARGS[fw] as string[], async (s) => {
        const got = await probeSamples({ baseUrl: s.url, model: undefined, headers: {} }, 4);
        assert.equal(got.length, 4);
        for (const x of got) {
          assert.ok(x.modelMs > 0 && x.modelMs < 1000, `modelled ${x.modelMs} ms`);
          assert.ok(x.wallMs > 0, `wall ${x.wallMs} ms`);
        }
      }, { sim: { speed: 10, warmupMs: 0 } });
    });
  }

  test('without the header the simulated engine adds no timing to a stream', async () => {
    await withSim('vllm', [MODEL], async (s) => {
      const r = await stream(s, '/v1/completions', { prompt: 'Hello', max_tokens: 1, stream: true });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get(SIM_ARRIVAL_HEADER), null);
      assert.ok(r.events.every((e) => !e.data.includes('autobench_sim_time')));
    });
  });

  test('a server that did not say it is simulated is never probed', async () => {
    let hits = 0;
    const srv = http.createServer((_req, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const baseUrl = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
      const server = { baseUrl, model: 'm', simulated: false } as LiveServer;
      assert.equal(await probeTtftFloor(server, 10, { max_p50_ttft_ms: 300 }), undefined);
      assert.equal(hits, 0);
      // Said simulated but not answering with modelled times: unmeasured, nothing removed.
      const f = await probeTtftFloor({ ...server, simulated: true }, 10, { max_p50_ttft_ms: 300 });
      assert.equal(f?.action, 'unmeasured');
      assert.equal(f?.removed_ms, 0);
      assert.ok(hits > 0);
    } finally {
      srv.close();
    }
  });

  test("the engine's account of modelled TTFTs: with the header only, each generation request once it closes", async () => {
    await withSim('sglang', ['--model-path', MODEL], async (s) => {
      assert.equal((await fetch(`${s.url}${SIM_TTFTS_PATH}`)).status, 404, 'no route without the header (the engine’s own 404)');
      const before = await readModelTtfts({ baseUrl: s.url });
      assert.ok(before);
      for (let i = 0; i < 3; i++) await (await post(s, '/v1/completions', { prompt: 'Hello there', max_tokens: 2 })).json();
      const after = await readModelTtfts({ baseUrl: s.url }, before.seq);
      assert.ok(after);
      assert.equal(after.seq - before.seq, 3);
      assert.equal(after.ttftMs.length, 3);
      assert.ok(after.ttftMs.every((x) => x > 0 && x < 1000), after.ttftMs.join(' '));
    }, { sim: { warmupMs: 0 } });
  });

  test('withFloorProbe: a simulated server takes its trial’s floor; any other server is not asked', async () => {
    await withSim('vllm', [MODEL], async (s) => {
      const server = { baseUrl: s.url, model: undefined, simulated: true } as unknown as LiveServer;
      const records = Array.from({ length: 12 }, () => ({ warmup: false, success: true, ttftMs: 0 }));
      await withFloorProbe(server, 10, { max_p50_ttft_ms: 300 }, async () => {
        for (const r of records) {
          const t0 = performance.now();
          await (await post(s, '/v1/completions', { prompt: 'Hello', max_tokens: 1 })).text();
          r.ttftMs = performance.now() - t0;
        }
        return { kind: 'done', result: { records, warmup: [] } };
      });
      const f = floorOf(server);
      assert.equal(f?.basis, 'under-load');
      assert.equal(f?.samples, 12);
      assert.ok((f?.wall_ms ?? -1) >= 0);
      const real = { ...server, simulated: false } as LiveServer;
      let ran = false;
      await withFloorProbe(real, 10, undefined, () => ((ran = true), Promise.resolve({ kind: 'done' })));
      assert.ok(ran);
      assert.equal(floorOf(real), undefined);
    }, { sim: { speed: 10 } });
  });
});

function rec(i: number, ttftMs: number, e2eMs: number): RequestRecord {
  return {
    index: i, turn: 0, scenario: 'chat', warmup: false, promptLen: 512, outputLenRequested: 5, arrivalMs: i * 10, startMs: i * 10, success: true, error: '', status: 200,
    ttftMs, e2eMs, itlMs: [1, 1, 1, 1], outputTokens: 5, outputTokensSource: 'usage', chunks: 5, streamTokens: 5, generatedText: '',
  };
}

describe('a simulated row with its floor', () => {
  const plan = readRunPlan({ text: planYaml({ frameworks: { vllm: 'enabled: true\nserver_command: vllm serve' }, sla: 'max_p50_ttft_ms: 300' }), path: '/tmp/x.plan.yaml' });
  const ctx: RowContext = { runId: 'r1', plan, simulated: true, sim: { speed: 10, seed: 1, gpu: undefined }, host: 'sim', clientVersion: '0', versions: {}, visibleDevices: null };
  // Wall TTFT 32-34 ms at x10: 320-340 modelled ms, over the 300 ms limit; a 4 ms wall floor is 36 modelled ms.
  const metrics = computeMetrics(Array.from({ length: 20 }, (_, i) => rec(i, 32 + (i % 3), 40 + (i % 3))), 1000);
  const floor = decideFloor(samples(10, 4), 10, 300);
  const cand: Candidate = { framework: 'vllm', index: 0, id: 'baseline', name: 'baseline', flags: new Map(), overrides: new Map(), argv: ['vllm', 'serve', MODEL], command: `vllm serve ${MODEL}`, usedKeys: [] };
  const sc = plan.scenarios[0];

  test('TTFT and E2E lose (K - 1)·o, TPOT and its spread do not; the SLA verdict reads the corrected TTFT', () => {
    assert.ok(cand && sc);
    const raw = metricsBlock(metrics, 10);
    const fixed = metricsBlock(metrics, 10, floor.removed_ms);
    assert.equal(floor.removed_ms, 36);
    for (const k of ['p50_ttft_ms', 'mean_ttft_ms', 'p99_ttft_ms', 'p50_e2e_ms', 'mean_e2e_ms']) assert.ok(Math.abs((raw[k] as number) - 36 - (fixed[k] as number)) < 1e-9, k);
    for (const k of ['p50_tpot_ms', 'std_ttft_ms', 'p50_itl_ms']) assert.equal(fixed[k], raw[k], k);
    const input = { fw: 'vllm' as const, cand, scenario: sc, trial: { key: 'k', mode: 'fixed' as const, rate: 1, concurrency: null, round: 0 }, status: 'ok' as const, reason: null, metrics, benchmarkCommand: 'autobench bench', artifacts: {}, backend: 'openai', simulatedServer: true };
    const before = measuredRow(ctx, input);
    assert.equal(before.verdict.passed, false, 'uncorrected: over the limit');
    assert.equal((before.row as unknown as { ttft_floor: { action: string } }).ttft_floor.action, 'unmeasured');
    const after = measuredRow(ctx, { ...input, ttftFloor: floor });
    assert.equal(after.verdict.passed, true, after.verdict.reasons.join('; '));
    const row = after.row as unknown as { ttft_floor: { removed_ms: number; action: string; wall_ms: number; speed: number }; intervals: Record<string, [number, number]>; metrics: Record<string, number> };
    assert.deepEqual([row.ttft_floor.removed_ms, row.ttft_floor.action, row.ttft_floor.wall_ms, row.ttft_floor.speed], [36, 'subtracted', 4, 10]);
    assert.ok((row.metrics.p50_ttft_ms ?? Infinity) < 300);
    const iv = intervalsOf(before.row);
    assert.ok(iv && Math.abs(iv[0] - 36 - (row.intervals.p50_ttft_ms?.[0] as number)) < 1e-9);
    assert.deepEqual(validateRows([{ line: 1, data: fromPlainJson(after.row) as never }]), []);
    assert.deepEqual(validateRows([{ line: 1, data: fromPlainJson(before.row) as never }]), []);
    // The report's simulated caveat says it.
    const read = readRows(`${JSON.stringify(after.row)}\n`, 'rows.jsonl');
    assert.ok(read.ok);
    const caveats = buildReport(read.rows, { rowsFile: 'rows.jsonl' }).caveats.map((c) => c.text);
    assert.ok(caveats.some((c) => /TTFT floor, 1 had 36–36 ms removed from TTFT and E2E/.test(c)), caveats.join('\n'));
  });

  test('a real engine’s row has no ttft_floor', () => {
    assert.ok(cand && sc);
    const real = measuredRow({ ...ctx, simulated: false, sim: undefined }, { fw: 'vllm', cand, scenario: sc, trial: { key: 'k', mode: 'fixed', rate: 1, concurrency: null, round: 0 }, status: 'ok', reason: null, metrics, benchmarkCommand: 'x', artifacts: {}, backend: 'openai', simulatedServer: false });
    assert.equal((real.row as unknown as Record<string, unknown>).ttft_floor, undefined);
  });
});

function intervalsOf(row: unknown): [number, number] | null {
  return (row as { intervals?: { p50_ttft_ms: [number, number] | null } }).intervals?.p50_ttft_ms ?? null;
}
