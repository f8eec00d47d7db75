// SLA verdicts recomputed from metrics: reasons a user can act on, and the edge cases (missing
// metrics, success rate, string booleans, stale `sla.passed`, plan limits over row limits).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePyJson, type PyObject } from '../../../src/core/py/json';
import { evaluateSla, limitsFrom } from '../../../src/core/results/sla';

function row(json: string): PyObject {
  const r = parsePyJson(json);
  assert.ok(r.ok && r.value instanceof Map);
  return r.value;
}

const LIMITS = '"max_p50_ttft_ms": 2000, "max_p50_tpot_ms": 80, "min_success_rate": 0.99';
const ok = (metrics: string, sla = LIMITS) => row(`{"framework": "vllm", "status": "ok", "sla": {${sla}}, "metrics": {${metrics}}}`);

describe('SLA evaluation', () => {
  test('a miss names the target, the value and the limit', () => {
    const v = evaluateSla(ok('"p50_ttft_ms": 2140, "p50_tpot_ms": 81.5, "success_rate": 0.95'));
    assert.equal(v.passed, false);
    assert.deepEqual(v.reasons, ['p50 TTFT 2140 ms > 2000 ms', 'p50 TPOT 81.5 ms > 80 ms', 'success rate 0.95 < 0.99']);
  });

  test('a value equal to its limit passes', () => {
    const v = evaluateSla(ok('"p50_ttft_ms": 2000, "p50_tpot_ms": 80, "success_rate": 0.99'));
    assert.equal(v.passed, true);
    assert.deepEqual(v.reasons, []);
  });

  test('a metric the SLA needs but the row lacks fails, and says so', () => {
    const v = evaluateSla(ok('"p50_tpot_ms": 20, "success_rate": 1.0'));
    assert.equal(v.passed, false);
    assert.deepEqual(v.reasons, ['p50 TTFT not measured (limit 2000 ms)']);
    const nulls = evaluateSla(ok('"p50_ttft_ms": null, "p50_tpot_ms": 20, "success_rate": 1'));
    assert.deepEqual(nulls.reasons, ['p50 TTFT not measured (limit 2000 ms)']);
  });

  test('median counts as p50; mean does not', () => {
    assert.equal(evaluateSla(ok('"median_ttft_ms": 100, "p50_tpot_ms": 20, "success_rate": 1')).passed, true);
    assert.equal(evaluateSla(ok('"mean_ttft_ms": 100, "p50_tpot_ms": 20, "success_rate": 1')).passed, false);
  });

  test('success rate from completed/failed when the rate itself is missing', () => {
    const v = evaluateSla(ok('"p50_ttft_ms": 1, "p50_tpot_ms": 1, "completed": 98, "failed": 2', '"min_success_rate": 0.99'));
    assert.deepEqual(v.reasons, ['success rate 0.98 < 0.99']);
    assert.equal(evaluateSla(ok('"completed": 100, "failed": 0', '"min_success_rate": 0.99')).passed, true);
    assert.deepEqual(evaluateSla(ok('', '"min_success_rate": 0.99')).reasons, ['success rate not measured (needs ≥ 0.99)']);
  });

  test('a row that did not finish fails with its status, once', () => {
    const v = evaluateSla(row(`{"framework": "vllm", "status": "oom", "sla": {${LIMITS}, "passed": false}}`));
    assert.equal(v.passed, false);
    assert.deepEqual(v.reasons, ['status oom: not measured']);
    assert.equal(v.disagrees, false);
  });

  test('a stale sla.passed is flagged; string booleans are read the playbook way', () => {
    const said = (p: string) => evaluateSla(ok('"p50_ttft_ms": 2140, "p50_tpot_ms": 20, "success_rate": 1', `${LIMITS}, "passed": ${p}`));
    for (const yes of ['true', '"yes"', '"Y"', '"1"', '"TRUE"']) {
      const v = said(yes);
      assert.equal(v.asWritten, true, yes);
      assert.equal(v.disagrees, true, yes);
    }
    for (const no of ['false', '"no"', '"on"', '" true"', '0', 'null']) {
      const v = said(no);
      assert.equal(v.asWritten, false, no);
      assert.equal(v.disagrees, false, no);
    }
  });

  test('without any limit the row keeps its own verdict', () => {
    const yes = evaluateSla(row('{"framework": "f", "status": "ok", "sla": {"passed": true}}'));
    assert.equal(yes.passed, true);
    assert.equal(yes.unjudged, true);
    const no = evaluateSla(row('{"framework": "f", "status": "ok", "sla": {"passed": "no"}}'));
    assert.equal(no.passed, false);
    assert.match(no.reasons[0] ?? '', /no SLA limits were recorded/);
    assert.equal(evaluateSla(row('{"framework": "f", "status": "ok"}')).passed, true);
  });

  test("a plan's limits replace the row's own", () => {
    const r = ok('"p50_ttft_ms": 1500, "p50_tpot_ms": 20, "success_rate": 1');
    assert.equal(evaluateSla(r).passed, true);
    const plan = limitsFrom(row('{"max_p50_ttft_ms": 1000}'));
    assert.deepEqual(evaluateSla(r, plan).reasons, ['p50 TTFT 1500 ms > 1000 ms']);
  });

  test('deprecated keys are applied and reported; numbers as strings are read', () => {
    const l = limitsFrom(row('{"max_p99_ttft_ms": 3000, "max_tpot_ms": "50", "passed": true, "max_p50_e2e_ms": true}'));
    assert.deepEqual(l.limits, { max_p99_ttft_ms: 3000, max_p50_tpot_ms: 50 });
    assert.deepEqual(l.deprecated, ['max_p99_ttft_ms', 'max_tpot_ms']);
    const v = evaluateSla(ok('"p99_ttft_ms": 3500, "p50_tpot_ms": 10'), l);
    assert.deepEqual(v.reasons, ['p99 TTFT 3500 ms > 3000 ms']);
  });
});
