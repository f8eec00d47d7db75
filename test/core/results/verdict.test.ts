// Verdicts by test on per-launch capacities: a winner only when its lead is significant and at least min_effect,
// 'equivalent' when the differences are shown to be within it, 'undecided' otherwise; fixed-point measurements keep
// their throughput intervals.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { renderReportCsv, renderReportMarkdown } from '../../../src/core/results/report-write';
import { scenarioVerdict } from '../../../src/core/results/verdict';
import { prepareWork } from '../../../src/core/results/report/work';
import { fromPlainJson, type PyObject } from '../../../src/core/py/json';
import type { RunFacts } from '../../../src/core/results/run-facts';
import { curveRow, launches, reportOf, search, searchRow, type Row } from '../../support/report-rows';
import { readRows } from '../../../src/core/results/rows';
import { buildReport } from '../../../src/core/results/report';

const model = reportOf;
const RATES = [1, 16, 8, 12, 10, 11, 11.5];

describe('verdicts', () => {
  test('each launch is read where its latency curve meets the limit: the search between its pass and fail, a repeat off that curve', () => {
    const m = model(launches('vllm', 'c1', [11.2, 11.0, 11.4], RATES));
    const c = m.verdicts[0]?.winner;
    assert.equal(c?.launches, 3);
    const caps = c?.capacities ?? [];
    // (rate/cap)^4 is read log-linearly between the search's 11 (pass) and 11.5 (fail); repeats at 11 shift that curve.
    assert.ok(caps.every((x, i) => Math.abs(x - [11.2, 11.0, 11.4][i]!) < 0.08), JSON.stringify(caps));
    assert.equal(c?.interval_kind, 'ci');
  });

  // Six launches each: the 16-look boundary's early looks, on 2-3 launches and few degrees of freedom, ask for more than a 30% lead.
  test('a lead well outside the noise is a winner, with its effect, interval and launches', () => {
    const m = model([...launches('vllm', 'c1', [12.1, 11.9, 12.0, 12.2, 12.05, 11.95], RATES.concat([12.5])), ...launches('sglang', 'baseline', [9.0, 9.2, 8.9, 9.1, 9.05, 8.95], RATES)]);
    const v = m.verdicts[0];
    assert.equal(v?.outcome, 'winner');
    assert.equal(v?.decided, true);
    assert.equal(v?.winner?.framework, 'vllm');
    assert.ok(v?.effect !== undefined && v.effect > 0.25 && v.effect < 0.45, String(v?.effect));
    assert.ok(v?.ci && v.ci[0] > 0.03, JSON.stringify(v?.ci));
    assert.equal(v?.noise?.measured, true);
    assert.match(v?.summary ?? '', /^chat: vllm c1 beats sglang baseline by \d+\.\d% \(\d+(\.\d+)?% CI \d+\.\d–\d+\.\d%\), 6 launches each \(vllm c1 12\.\d+ req\/s; launch noise \d+(\.\d+)?% measured\)$/);
    assert.ok(m.handoff, 'a decided winner gets the handoff note');
    assert.match(renderReportMarkdown(m), /\| chat \| winner \| `vllm` c1 \| 12\.\d\d \(95% CI 1\d\.\d+–1\d\.\d+\) \| 6 \| \d\/5 \|/);
  });

  test('candidates whose launches agree within a fraction of the minimum effect are equivalent: itself an answer', () => {
    const a = [10.0, 10.02, 9.98, 10.01, 9.99, 10.0, 10.01, 9.99];
    const b = [10.01, 9.99, 10.0, 10.02, 9.98, 10.0, 9.99, 10.01];
    const m = model([...launches('vllm', 'c1', a, RATES), ...launches('sglang', 'baseline', b, RATES)]);
    const v = m.verdicts[0];
    assert.equal(v?.outcome, 'equivalent', v?.summary);
    assert.equal(v?.decided, false);
    assert.match(v?.summary ?? '', /equivalent within 3%/);
    assert.equal(renderReportCsv(m).split('\r\n').filter((l) => l.includes(',equivalent,')).length > 0, true);
  });

  test('a small lead the launches cannot settle is undecided, both listed, no handoff over it', () => {
    const m = model([...launches('vllm', 'c1', [10.4, 10.0, 10.6], RATES), ...launches('sglang', 'baseline', [10.0, 10.3, 9.8], RATES)]);
    const v = m.verdicts[0];
    assert.equal(v?.outcome, 'undecided');
    assert.deepEqual([v?.winner?.framework, v?.ties.map((t) => t.framework)], ['vllm', ['sglang']]);
    assert.match(v?.summary ?? '', /^chat: undecided/);
    assert.equal(m.handoff, null);
    assert.ok(m.best.every((b) => b.tied));
    assert.equal(renderReportCsv(m).split('\r\n').filter((l) => l.includes(',undecided,')).length, 2);
  });

  test('with no candidate launched twice the noise is assumed, said so, and only a clear difference is decided', () => {
    const clear = model([...search('vllm', 'c1', 12, [1, 16, 8, 12, 14, 13]), ...search('sglang', 'baseline', 6, [1, 16, 8, 4, 6, 7])]).verdicts[0];
    assert.equal(clear?.outcome, 'winner', clear?.summary);
    assert.equal(clear?.noise?.measured, false);
    assert.match(clear?.summary ?? '', /launch noise assumed 5% \(no candidate was launched twice\)/);
    assert.equal(clear?.winner?.interval_kind, 'bracket');
    const close = model([...search('vllm', 'c1', 12, [1, 16, 8, 12, 14, 13]), ...search('sglang', 'baseline', 12.5, [1, 16, 8, 12, 14, 13, 12.5])]).verdicts[0];
    assert.equal(close?.outcome, 'undecided');
  });

  test('a repeat that missed the SLA is a slower launch, not a lost one; one that errored is not counted', () => {
    const rows: Row[] = [...launches('vllm', 'c1', [12.0, 11.9], [1, 16, 8, 12, 14, 13]), curveRow('vllm', 'c1', 12, 10, 'repeat', 2)];
    const errored = { ...curveRow('vllm', 'c1', 12, 12, 'repeat', 3), status: 'failed', metrics: {} };
    const v = model([...rows, errored]).verdicts[0];
    const caps = v?.winner?.capacities ?? [];
    assert.equal(caps.length, 3, JSON.stringify(caps));
    assert.ok((caps[2] ?? 99) < 12 && (caps[2] ?? 0) > 9, `the missed repeat reads below the rate it ran: ${JSON.stringify(caps)}`);
  });

  test('fixed-rate measurements rank by throughput with their bootstrap intervals', () => {
    const fixed = (fw: string, t: number, iv: [number, number]): Row => ({ ...searchRow(fw, 'baseline', Infinity, true), trial: { mode: 'fixed', rate: 'inf', concurrency: 8, round: 0 }, metrics: { request_throughput: t, p50_ttft_ms: 100, success_rate: 1 }, intervals: { request_throughput: iv } });
    const apart = model([fixed('vllm', 10, [9.5, 10.5]), fixed('sglang', 7, [6.6, 7.4])]).verdicts[0];
    assert.deepEqual([apart?.decided, apart?.winner?.framework], [true, 'vllm']);
    const close = model([fixed('vllm', 10, [9.5, 10.5]), fixed('sglang', 9.8, [9.2, 10.3])]).verdicts[0];
    assert.deepEqual([close?.decided, close?.ties.map((t) => t.framework)], [false, ['sglang']]);
  });

  test('no SLA-passing candidate: no winner, said so', () => {
    const v = model(search('vllm', 'c1', 0.5, [1, 16])).verdicts[0];
    assert.equal(v?.winner, null);
    assert.equal(v?.outcome, 'none');
    assert.match(v?.summary ?? '', /no candidate met the SLA/);
  });

  test('stop: why launching ended — decided, equivalent, or for an undecided scenario what ended its frameworks\' repeats', () => {
    const rows = [...launches('vllm', 'c1', [10.4, 9.6, 10.9], RATES), ...launches('sglang', 'baseline', [10.0, 10.5, 9.4], RATES)];
    const work = prepareWork(rows.map((r, i) => ({ line: i + 1, data: fromPlainJson(r) as PyObject })), {} as RunFacts);
    const at = (ended?: Record<string, 'decided' | 'max_repeats' | 'budget' | 'off'>) => scenarioVerdict(work, 'chat', ended ? { repeatsEnded: ended } : {});
    assert.equal(at().outcome, 'undecided');
    assert.equal(at().stop, undefined, 'rows alone do not say');
    assert.equal(at({ vllm: 'max_repeats', sglang: 'decided' }).stop, 'max_repeats');
    assert.equal(at({ vllm: 'max_repeats', sglang: 'budget' }).stop, 'budget');
    assert.equal(at({ vllm: 'off', sglang: 'off' }).stop, 'repeats_off');
    const across = at({ vllm: 'decided', sglang: 'decided' });
    assert.equal(across.stop, 'across_frameworks');
    assert.match(across.summary, /^chat: undecided \(each framework's own repeats ended; .*\): /);
    const won = scenarioVerdict(prepareWork([...launches('vllm', 'c1', [12.1, 11.9, 12.0, 12.2, 12.05, 11.95], RATES.concat([12.5])), ...launches('sglang', 'baseline', [9.0, 9.2, 8.9, 9.1, 9.05, 8.95], RATES)].map((r, i) => ({ line: i + 1, data: fromPlainJson(r) as PyObject })), {} as RunFacts), 'chat', { repeatsEnded: { vllm: 'decided', sglang: 'decided' } });
    assert.equal(won.stop, 'decided');
  });
});

describe('verdict.objective: per GPU, per dollar, per joule', () => {
  // A 3-GPU P/D unit with more req/s than a 1-GPU server, but less per GPU; its GPUs also draw more power.
  const withCosts = (rows: Row[], gpus: number, watts: number | undefined, model = 'H200'): Row[] =>
    rows.map((r) => ({ ...r, hardware: { gpu_model: model, gpu_count: gpus }, metrics: { ...(r.metrics as object), output_token_throughput: 200 * (r.trial as { rate: number }).rate }, ...(watts ? { energy: { basis: 'modelled', joules: watts * 60, seconds: 60, mean_power_w: watts, output_tokens: 1000, j_per_output_token: (watts * 60) / 1000 } } : {}) }));
  const rows = (unitWatts = 1500): Row[] => [
    ...withCosts(launches('sglang', 'pd1', [12.0, 12.1, 11.9, 12.05], [1, 16, 8, 12, 14, 13, 12.5]), 3, unitWatts),
    ...withCosts(launches('sglang', 'c1', [9.0, 9.1, 8.9, 9.05], RATES), 1, 560),
  ];
  const facts = (verdict: RunFacts['verdict']): RunFacts => ({ scenarios: [], versions: {}, frameworks: [], substitutions: [], problems: [], verdict });
  const build = (rs: Row[], verdict: RunFacts['verdict']) => {
    const read = readRows(rs.map((r) => JSON.stringify(r)).join('\n'), 'rows.jsonl');
    assert.ok(read.ok);
    return buildReport(read.rows, { rowsFile: 'rows.jsonl', runFacts: facts(verdict) });
  };

  test('throughput ranks the unit first; per GPU, per dollar and per joule rank the one-GPU server first, and the report shows all four', () => {
    const thr = build(rows(), {}).verdicts[0];
    assert.equal(thr?.winner?.candidate, 'pd1');
    for (const objective of ['per_gpu', 'per_dollar', 'per_joule'] as const) {
      const m = build(rows(), { objective, cost: { gpuHourUsd: { H200: 3.5 } } });
      const v = m.verdicts[0];
      assert.equal(v?.winner?.candidate, 'c1', `${objective}: ${v?.summary}`);
      assert.equal(v?.outcome, 'winner', v?.summary);
      assert.equal(v?.objective, objective);
      assert.match(v?.summary ?? "", new RegExp(`^chat \\(per ${objective.slice(4)}\\): sglang c1 beats sglang pd1`, "i"));
      const md = renderReportMarkdown(m);
      assert.match(md, /### Per GPU, per dollar, per joule/);
      // c1 at ~9 req/s on 1 GPU at $3.5/h, 200/0.98 output tokens per request (the rows' output over request throughput).
      const c1 = v?.ranked?.find((c) => c.candidate === 'c1');
      assert.ok(c1 && Math.abs((c1.usd_per_m_output_tokens ?? 0) - (3.5 / 3600 / (c1.score * (200 / 0.98))) * 1e6) < 1e-3, JSON.stringify(c1));
      assert.equal(c1?.gpus, 1);
      assert.equal(v?.ranked?.find((c) => c.candidate === 'pd1')?.gpus, 3);
      assert.match(md, /\| Scenario \| Candidate \| GPUs \| Req\/s \| Req\/s per GPU[^|]*\| \$ per 1M output tokens[^|]*\| J per output token[^|]*\|/);
      assert.ok(md.includes('(ranked)'));
    }
  });

  test('a candidate the objective cannot price is left out of the test and said so, not ranked as zero', () => {
    // The unit's rows carry no energy block.
    const v = build(rows(0), { objective: 'per_joule' }).verdicts[0];
    assert.equal(v?.winner?.candidate, 'c1');
    assert.deepEqual(v?.ranked?.map((c) => c.candidate), ['c1']);
    assert.deepEqual(v?.unpriced?.map((c) => [c.candidate, c.unpriced]), [['pd1', 'its trials have no energy reading']]);
    assert.match(v?.summary ?? '', /not compared per joule: sglang pd1 \(its trials have no energy reading\)$/);
  });
});
