// The playbook's ranking, one key at a time: which of two rows wins a (framework, scenario), and why.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePyJson, type PyObject } from '../../../src/core/py/json';
import { bestByFrameworkAndScenario, rankKey, rankRows, scenarioOf, sortByRankDesc, WORST } from '../../../src/core/results/rank';

function row(json: string): PyObject {
  const r = parsePyJson(json);
  assert.ok(r.ok && r.value instanceof Map);
  return r.value;
}

/** A passing ok row on `chat` with the given metrics/hardware overrides (JSON fragments). */
function cand(id: string, metrics: string, extra = ''): PyObject {
  return row(`{"framework": "sglang", "candidate_id": "${id}", "status": "ok", "workload": {"scenario": "chat"}, "sla": {"passed": true}, "metrics": {${metrics}}${extra}}`);
}

/** Which candidate wins when both compete for the same (framework, scenario). */
function winner(...rows: PyObject[]): string {
  const best = bestByFrameworkAndScenario(rankRows(rows));
  assert.equal(best.length, 1);
  const id = best[0]?.row.get('candidate_id');
  assert.equal(typeof id, 'string');
  return id as string;
}

describe('rank key', () => {
  test('status ok first, then sla passed', () => {
    const ok = row('{"framework": "f", "candidate_id": "ok", "status": "ok", "sla": {"passed": false}, "metrics": {"request_throughput": 1}}');
    const failed = row('{"framework": "f", "candidate_id": "failed", "status": "failed", "sla": {"passed": true}, "metrics": {"request_throughput": 99}}');
    const passed = row('{"framework": "f", "candidate_id": "passed", "status": "ok", "sla": {"passed": true}, "metrics": {"request_throughput": 0.5}}');
    assert.deepEqual(
      sortByRankDesc(rankRows([failed, ok, passed])).map((r) => r.row.get('candidate_id')),
      ['passed', 'ok', 'failed'],
    );
  });

  test('higher request throughput wins; missing throughput ranks as 0', () => {
    assert.equal(winner(cand('a', '"request_throughput": 9.5'), cand('b', '"request_throughput": 10')), 'b');
    assert.equal(winner(cand('none', '"output_token_throughput": 5000'), cand('zero', '"request_throughput": 0.001')), 'zero');
    assert.equal(rankKey(cand('x', ''))[2], 0);
  });

  test('then higher output token throughput', () => {
    assert.equal(winner(cand('a', '"request_throughput": 10, "output_token_throughput": 900'), cand('b', '"request_throughput": 10.0, "output_token_throughput": 1000')), 'b');
  });

  test('then lower p50 TTFT, falling back to mean, else worst', () => {
    const m = '"request_throughput": 10, "output_token_throughput": 100';
    assert.equal(winner(cand('slow', `${m}, "p50_ttft_ms": 200`), cand('fast', `${m}, "p50_ttft_ms": 100`)), 'fast');
    // p50 beats the mean when both exist: the p50 decides even if the mean says otherwise.
    assert.equal(winner(cand('p50', `${m}, "p50_ttft_ms": 100, "mean_ttft_ms": 900`), cand('mean', `${m}, "mean_ttft_ms": 150`)), 'p50');
    // A null p50 falls back to the mean; a missing TTFT is the worst value.
    assert.equal(winner(cand('null-p50', `${m}, "p50_ttft_ms": null, "mean_ttft_ms": 120`), cand('none', m)), 'null-p50');
    assert.equal(rankKey(cand('none', m))[4], -WORST);
    // A p50 that is present but not a number ranks as the worst, without falling back to the mean.
    assert.equal(rankKey(cand('bad', `${m}, "p50_ttft_ms": "n/a", "mean_ttft_ms": 1`))[4], -WORST);
  });

  test('then lower p50 TPOT, falling back to mean', () => {
    const m = '"request_throughput": 10, "output_token_throughput": 100, "p50_ttft_ms": 50';
    assert.equal(winner(cand('a', `${m}, "p50_tpot_ms": 30`), cand('b', `${m}, "p50_tpot_ms": 20`)), 'b');
    assert.equal(winner(cand('mean', `${m}, "mean_tpot_ms": 20`), cand('none', m)), 'mean');
  });

  test('then fewer GPUs; a missing GPU count is the worst', () => {
    const m = '"request_throughput": 10, "output_token_throughput": 100, "p50_ttft_ms": 50, "p50_tpot_ms": 20';
    assert.equal(winner(cand('eight', m, ', "hardware": {"gpu_count": 8}'), cand('four', m, ', "hardware": {"gpu_count": 4}')), 'four');
    assert.equal(winner(cand('unknown', m), cand('eight', m, ', "hardware": {"gpu_count": 8}')), 'eight');
    assert.equal(winner(cand('null', m, ', "hardware": {"gpu_count": null}'), cand('eight', m, ', "hardware": {"gpu_count": 8}')), 'eight');
  });

  test('numbers written as strings count through float(), like the script', () => {
    assert.equal(winner(cand('num', '"request_throughput": 10'), cand('str', '"request_throughput": " 10.5 "')), 'str');
    assert.equal(rankKey(cand('junk', '"request_throughput": "fast"'))[2], 0);
  });

  test('the best is replaced only by a strictly better row: ties keep the first', () => {
    const m = '"request_throughput": 10';
    assert.equal(winner(cand('first', m), cand('second', m)), 'first');
  });

  test('only status ok with sla.passed true may win; string booleans read the playbook way', () => {
    const mk = (id: string, passed: string, status = 'ok') =>
      row(`{"framework": "f", "candidate_id": "${id}", "status": "${status}", "sla": {"passed": ${passed}}, "metrics": {"request_throughput": 1}}`);
    const best = bestByFrameworkAndScenario(rankRows([mk('no', '"no"'), mk('on', '"on"'), mk('spaced', '" true"'), mk('failed', 'true', 'failed')]));
    assert.equal(best.length, 0);
    for (const yes of ['"Yes"', '"y"', '"TRUE"', '"1"', 'true', '1']) assert.equal(bestByFrameworkAndScenario(rankRows([mk('x', yes)])).length, 1, yes);
  });
});

describe('scenario', () => {
  test('first truthy of workload.scenario, scenario_name, dataset_scenario, dataset_name, kind, top-level scenario', () => {
    assert.equal(scenarioOf(row('{"workload": {"scenario": "a", "scenario_name": "b"}}')), 'a');
    assert.equal(scenarioOf(row('{"workload": {"scenario": "", "scenario_name": "b"}}')), 'b');
    assert.equal(scenarioOf(row('{"workload": {"scenario": null, "dataset_scenario": "c"}}')), 'c');
    assert.equal(scenarioOf(row('{"workload": {"dataset_name": "d", "kind": "e"}}')), 'd');
    assert.equal(scenarioOf(row('{"workload": {"kind": "custom"}, "scenario": "top"}')), 'custom');
    assert.equal(scenarioOf(row('{"workload": {}, "scenario": "top"}')), 'top');
    assert.equal(scenarioOf(row('{"workload": {"scenario": 0}}')), 'default');
    assert.equal(scenarioOf(row('{"workload": {"scenario": 7}}')), '7');
    assert.equal(scenarioOf(row('{"workload": {"scenario": 1.5}}')), '1.5');
    assert.equal(scenarioOf(row('{"workload": "chat"}')), 'default');
    assert.equal(scenarioOf(row('{}')), 'default');
  });
});
