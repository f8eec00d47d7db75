// Which stage bounded a P/D unit (issue 28 item 4): read at the first rate over the SLA against the lowest measured
// rate, from the rows' per-role TTFT split: prefill, transfer, decode, or the router's rest; a TPOT miss alone is the
// decode workers'; rows without a split say they cannot tell.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderReportMarkdown } from '../../../src/core/results/report-write';
import { reportOf, type Row } from '../../support/report-rows';

type Split = [number, number, number, number, number];

/** A unit's search row at `rate` with its TTFT split (prefill queue, prefill, transfer, decode queue, first decode). */
function unitRow(rate: number, split: Split | undefined, tpot = 20, cand = 'pd1', routerMs = 5): Row {
  const ttft = split ? split.reduce((a, b) => a + b, 0) : 400;
  const sla = { max_p50_ttft_ms: 1000, max_p50_tpot_ms: 30 };
  const passed = ttft + routerMs <= 1000 && tpot <= 30;
  const p50 = split ? { prefill_queue_ms: split[0], prefill_ms: split[1], transfer_ms: split[2], decode_queue_ms: split[3], first_decode_ms: split[4], ttft_ms: ttft } : undefined;
  return {
    framework: 'sglang',
    candidate_id: cand,
    status: 'ok',
    scenario: 'chat',
    trial: { mode: 'search', rate, concurrency: null, round: 1 },
    hardware: { gpu_model: 'H200', gpu_count: 3 },
    pd_unit: { prefill_workers: 2, decode_workers: 1, gpus: 3 },
    metrics: { request_throughput: rate, output_token_throughput: rate * 200, p50_ttft_ms: ttft + routerMs, p50_tpot_ms: tpot, success_rate: 1 },
    ...(p50 ? { pd_split: { basis: 'modelled', samples: 50, p50, p90: p50 } } : {}),
    sla: { ...sla, passed },
  };
}

const stageOf = (rows: Row[]) => reportOf(rows).limitingStages?.map((s) => [s.candidate, s.stage, s.rate, s.overSla]);

describe('the limiting stage of a P/D unit', () => {
  test("a TTFT miss whose prefill queue grew is prefill's; one whose transfer grew is the transfer's; the router's rest counts too", () => {
    assert.deepEqual(stageOf([unitRow(1, [0, 200, 5, 0, 20]), unitRow(4, [100, 210, 5, 2, 22]), unitRow(6, [900, 220, 5, 3, 25])]), [['pd1', 'prefill', 6, true]]);
    assert.deepEqual(stageOf([unitRow(1, [0, 200, 50, 0, 20]), unitRow(6, [10, 200, 900, 5, 20])]), [['pd1', 'transfer', 6, true]]);
    assert.deepEqual(stageOf([unitRow(1, [0, 200, 5, 0, 20]), unitRow(6, [0, 200, 5, 900, 20])]), [['pd1', 'decode', 6, true]]);
    assert.deepEqual(stageOf([unitRow(1, [0, 200, 5, 0, 20], 20, 'pd1', 5), unitRow(6, [0, 210, 5, 0, 20], 20, 'pd1', 900)]), [['pd1', 'router', 6, true]]);
  });

  test('a TPOT miss alone is the decode workers\'; a unit that never missed is read at its highest passing rate', () => {
    assert.deepEqual(stageOf([unitRow(1, [0, 200, 5, 0, 20]), unitRow(6, [0, 200, 5, 0, 20], 45)]), [['pd1', 'decode', 6, true]]);
    const never = reportOf([unitRow(1, [0, 200, 5, 0, 20]), unitRow(3, [50, 220, 5, 0, 20])]).limitingStages?.[0];
    assert.deepEqual([never?.stage, never?.rate, never?.overSla], ['prefill', 3, false]);
    assert.match(never?.because ?? '', /^highest passing rate 3 req\/s; p50 TTFT parts grew from 1 req\/s: prefill \+70 ms/);
  });

  test('a unit measured at one rate only, and over the SLA there, is read by the largest share of its p50 TTFT', () => {
    const only = reportOf([unitRow(6, [100, 200, 5, 900, 20])]).limitingStages?.[0];
    assert.deepEqual([only?.stage, only?.rate, only?.overSla], ['decode', 6, true]);
    assert.match(only?.because ?? '', /^misses max_p50_ttft_ms at 6 req\/s, its lowest measured rate; p50 TTFT parts there: decode 920 ms, prefill 300 ms/);
  });

  test('rows without a split (a real unit) say the stage is unknown and why; the report has the section', () => {
    const m = reportOf([unitRow(1, undefined), unitRow(6, undefined, 20, 'pd1', 900)]);
    assert.equal(m.limitingStages?.[0]?.stage, 'unknown');
    assert.match(m.limitingStages?.[0]?.because ?? '', /no per-role TTFT split \(neither the simulated router’s nor the workers’ \/metrics\)/);
    assert.match(renderReportMarkdown(m), /### P\/D units: the limiting stage[\s\S]*\| chat \| `sglang` pd1 \| unknown \|/);
  });

  test("a real unit's rows: the stage from its workers' /metrics means against the mean TTFT; a worker without metrics says so", () => {
    const metricRow = (rate: number, means: [number, number, number | null, number, number], meanTtft: number, notes: string[] = []): Row => {
      const r = unitRow(rate, undefined, 20, 'pd1', 0);
      const [pq, pf, tr, dq, fd] = means;
      (r.metrics as Record<string, number>).mean_ttft_ms = meanTtft;
      (r.metrics as Record<string, number>).p50_ttft_ms = meanTtft;
      (r.sla as { passed: boolean }).passed = meanTtft <= 1000;
      return { ...r, pd_metrics: { basis: 'worker_metrics', mean_ms: { prefill_queue_ms: pq, prefill_ms: pf, transfer_ms: tr, decode_queue_ms: dq, first_decode_ms: fd, tpot_ms: 20 }, requests: { prefill: 60, decode: 60 }, workers_read: { prefill: '2/2', decode: '1/1' }, sources: {}, notes } };
    };
    const m = reportOf([metricRow(1, [5, 200, 10, 3, 20], 250), metricRow(6, [40, 210, 12, 800, 25], 1100)]);
    const got = m.limitingStages?.[0];
    assert.deepEqual([got?.stage, got?.rate, got?.overSla], ['decode', 6, true]);
    assert.match(got?.because ?? '', /mean TTFT parts \(workers’ \/metrics\) grew from 1 req\/s: decode \+802 ms/);
    // A transfer the metrics do not give on its own stays in the decode queue; the router's rest is what the mean TTFT holds beyond.
    const router = reportOf([metricRow(1, [5, 200, null, 3, 20], 240), metricRow(6, [5, 200, null, 3, 20], 1200)]).limitingStages?.[0];
    assert.equal(router?.stage, 'router');
    const none = reportOf([metricRow(1, [5, 200, 10, 3, 20], 250), { ...metricRow(6, [5, 200, 10, 3, 20], 1100), pd_metrics: { basis: 'worker_metrics', mean_ms: { prefill_queue_ms: null, prefill_ms: null, transfer_ms: null, decode_queue_ms: null, first_decode_ms: null, tpot_ms: null }, requests: { prefill: 0, decode: 0 }, workers_read: { prefill: '0/2', decode: '0/1' }, sources: {}, notes: ['2 of 2 prefill workers answered no /metrics (SGLang serves them only with --enable-metrics)'] } }]).limitingStages?.[0];
    assert.equal(none?.stage, 'unknown');
    assert.match(none?.because ?? '', /workers’ \/metrics gave no complete split \(2 of 2 prefill workers answered no \/metrics \(SGLang serves them only with --enable-metrics\)\)/);
  });
});
