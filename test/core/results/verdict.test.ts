// Verdicts: a winner only when its SLA-capacity interval clears every other candidate's; ties otherwise; repeats that fail demote a rate; measured throughput uses its intervals.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { renderReportCsv, renderReportMarkdown } from '../../../src/core/results/report-write';
import { reportOf, search, searchRow, type Row } from '../../support/report-rows';

const model = reportOf;

describe('verdicts', () => {
  test('a winner whose confirmed rate clears every other candidate\u2019s lowest failing rate by the margin is decided', () => {
    const m = model([...search('vllm', 'c1', 12, [1, 16, 8, 12, 14, 13]), ...search('sglang', 'baseline', 9, [1, 16, 8, 12, 10, 9]), searchRow('vllm', 'c1', 12, true, 'repeat'), searchRow('vllm', 'c1', 12, true, 'repeat')]);
    const v = m.verdicts[0];
    assert.equal(v?.decided, true);
    assert.equal(v?.winner?.framework, 'vllm');
    assert.deepEqual(v?.winner?.interval, [12, 13]);
    assert.deepEqual([v?.winner?.repeats, v?.winner?.repeatsPassed], [2, 2]);
    assert.deepEqual(v?.ties, []);
    assert.ok(m.handoff, 'SGLang lost by more than the noise: a handoff note');
    assert.match(renderReportMarkdown(m), /\| chat \| winner \| `vllm` c1 \| 12\.00 \(12\.00–13\.00\) \| 2\/2 \|/);
  });

  test('overlapping intervals are a tie: both listed, no winner named, no handoff over it', () => {
    const m = model([...search('vllm', 'c1', 12, [1, 16, 8, 12, 14, 13]), ...search('sglang', 'baseline', 12.5, [1, 16, 8, 12, 14, 13, 12.5])]);
    const v = m.verdicts[0];
    assert.equal(v?.decided, false);
    assert.deepEqual([v?.winner?.framework, v?.ties.map((t) => t.framework)], ['sglang', ['vllm']]);
    assert.match(v?.summary ?? '', /^chat: tie between sglang baseline 12\.5 req\/s \(12\.5–13\), vllm c1 12 req\/s \(12–13\): the intervals overlap$/);
    assert.equal(m.handoff, null);
    assert.ok(m.best.every((b) => b.tied));
    assert.ok(m.winners.length === 2 && m.winners.every((w) => w.tied));
    const csv = renderReportCsv(m);
    assert.equal(csv.split('\r\n').filter((l) => l.includes(',tie,')).length, 2);
  });

  test('a repeat on a fresh server that fails the best rate demotes it to the next passing rate', () => {
    const rows = [...search('vllm', 'c1', 12, [1, 16, 8, 12, 14, 13]), searchRow('vllm', 'c1', 12, true, 'repeat'), searchRow('vllm', 'c1', 12, false, 'repeat')];
    const v = model(rows).verdicts[0];
    assert.deepEqual([v?.winner?.score, v?.winner?.interval], [8, [8, 13]], 'the low end drops; the high end stays the search\u2019s lowest failing rate');
    assert.deepEqual([v?.winner?.repeats, v?.winner?.repeatsPassed], [2, 1]);
  });

  test('a demoted candidate still ties with one its search reached: a failed repeat is no evidence against what another launch held', () => {
    // sglang's search held 12 (fails at 13) but a fresh server missed 12: confirmed 8, yet 12–13 stays reachable.
    const rows = [...search('sglang', 'baseline', 12, [1, 16, 8, 12, 14, 13]), searchRow('sglang', 'baseline', 12, false, 'repeat'), ...search('vllm', 'c1', 12.5, [1, 16, 8, 12, 14, 13, 12.5]), searchRow('vllm', 'c1', 12.5, true, 'repeat')];
    const v = model(rows).verdicts[0];
    assert.equal(v?.decided, false);
    assert.deepEqual([v?.winner?.framework, v?.ties.map((t) => `${t.framework} ${t.score} ${t.interval.join('-')}`)], ['vllm', ['sglang 8 8-13']]);
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
    assert.match(v?.summary ?? '', /no candidate met the SLA/);
  });
});
