// autobench predict covers P/D units (issue 28 item 6): each unit's roles simulated on their shares of the load and
// composed, so adaptive can rank and skip units like servers; its relative error is widened for the composition and
// said; at an operating point the unit's TTFT is its two legs added, its TPOT the decode worker's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readRunPlan } from '../../src/core/plan/build';
import { predictPlan, PRIOR_REL_ERROR } from '../../src/predict/plan';
import { predictAt } from '../../src/predict/at';
import { predictUnitPoint, UNIT_APPROXIMATION, unitEngines } from '../../src/predict/unit';
import { predictOptions } from '../../src/predict/engine';
import { REPO } from '../support/runner';

const file = path.join(REPO, 'configs/examples/disagg.plan.yaml');
const plan = readRunPlan({ text: readFileSync(file, 'utf8'), path: file });
const sglang = plan.frameworks.find((f) => f.framework === 'sglang');
const unitsOnly = new Set((sglang?.candidates ?? []).filter((c) => c.unit).map((c) => `sglang ${c.id}`));

describe('predict: P/D units', () => {
  test("every unit is predicted from its roles, on every scenario, with the composition's error said and added", () => {
    const p = predictPlan(plan, { only: unitsOnly });
    assert.equal(p.candidates.length, unitsOnly.size);
    for (const c of p.candidates) {
      assert.equal(c.status, 'ok', `${c.candidate}: ${c.reason ?? ''}`);
      assert.equal(c.basis, UNIT_APPROXIMATION);
      assert.ok(c.relError > PRIOR_REL_ERROR, String(c.relError));
      for (const s of c.scenarios) assert.ok(s.capacity > 0, `${c.candidate} ${s.scenario}`);
    }
    // Long prompts: one prefill worker bounds 1P1D (TTFT); a second one lifts the unit until its decode worker bounds it (TPOT).
    const cap = (id: string, sc: string) => p.candidates.find((c) => c.candidate === id)?.scenarios.find((s) => s.scenario === sc)?.capacity ?? 0;
    const [pd1, pd2] = ['pd1', 'pd2'].map((id) => sglang?.candidates.find((c) => c.id === id));
    assert.deepEqual([pd1?.unit?.workers, pd2?.unit?.workers], [{ prefill: 1, decode: 1 }, { prefill: 2, decode: 1 }]);
    assert.ok(cap('pd2', 'long-prompt') > 1.1 * cap('pd1', 'long-prompt'), `${cap('pd2', 'long-prompt')} vs ${cap('pd1', 'long-prompt')}`);
    const sc = plan.scenarios.find((s) => s.name === 'long-prompt');
    assert.ok(sc && pd1 && pd2);
    const over = (c: typeof pd1) => {
      const made = unitEngines('sglang', c, predictOptions('H200'));
      assert.ok(made.ok);
      return predictUnitPoint(made.engines, sc, 1.15 * cap(c.id, 'long-prompt'), null, plan.sla).reasons.join('; ');
    };
    assert.match(over(pd1), /^p50 TTFT /);
    assert.match(over(pd2), /^p50 TPOT /);
  });

  test("at a rate the unit's TTFT is its prefill leg plus its decode leg (which waits for the KV); Mooncake over TCP adds the transfer", () => {
    const cand = sglang?.candidates.find((c) => c.id === 'pd1');
    assert.ok(cand?.unit);
    const made = unitEngines('sglang', cand, predictOptions('H200'));
    assert.ok(made.ok);
    const sc = plan.scenarios.find((s) => s.name === 'long-prompt');
    assert.ok(sc);
    const rdma = predictUnitPoint(made.engines, sc, 1, null, plan.sla);
    const tcp = predictUnitPoint({ ...made.engines, decode: { ...made.engines.decode, settings: { ...made.engines.decode.settings, pd: { role: 'decode', backend: 'mooncake_tcp' } } } }, sc, 1, null, plan.sla);
    // 3000 prompt tokens of Qwen3-32B's KV (256 KiB a token) at 0.36 GB/s: about 2.2 s more.
    assert.ok(tcp.p50TtftMs - rdma.p50TtftMs > 1500, `${rdma.p50TtftMs} vs ${tcp.p50TtftMs}`);
    assert.equal(tcp.passed, false, 'over the 1500 ms TTFT limit');
    const at = predictAt(plan, { point: { kind: 'rate', rate: 1 }, requests: 32 }, { only: new Set(['sglang pd1']) });
    const row = at.points.find((x) => x.scenario === 'long-prompt');
    assert.equal(row?.status, 'ok');
    assert.equal(row?.gpus, 2);
    assert.ok((row?.p50_ttft_ms ?? 0) > 0 && (row?.p50_tpot_ms ?? 0) > 0, JSON.stringify(row));
  });
});
