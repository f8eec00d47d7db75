import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
// Issue 26's plan keys, read once: qps.rel_tolerance and the search's round cap, and the top-level verdict block.
import { checkConfigText } from '../../../src/core/config/check';
import { validateJson } from '../../../src/core/config/schema-check';
import { DEFAULT_MAX_ROUNDS, DEFAULT_SEARCH_ROUNDS, DEFAULT_VERDICT } from '../../../src/core/plan/bench';
import { readRunPlan } from '../../../src/core/plan/build';
import { planYaml, REPO } from '../../support/runner';

const read = (text: string) => readRunPlan({ text, path: path.join(REPO, 'configs/examples/x.plan.yaml') });
const withQps = (qps: string, extra = '') => planYaml({ frameworks: {}, benchmark: `request_rates: null\nqps: {${qps}}` }) + extra;

describe('plan keys of the rate search and the verdict', () => {
  test('qps.rel_tolerance defaults to 2%; max_rounds caps bisection when set, else the runner bisects up to 10 rounds', () => {
    const d = read(withQps('lower: 1, upper: 12'));
    assert.deepEqual(d.problems, []);
    assert.equal(d.bench.search?.relTolerance, 0.02);
    assert.equal(d.bench.search?.tolerance, 0.1, 'qps.tolerance keeps its default in req/s');
    assert.equal(d.bench.search?.maxRounds, DEFAULT_SEARCH_ROUNDS);
    assert.equal(DEFAULT_SEARCH_ROUNDS, 10);
    assert.equal(DEFAULT_MAX_ROUNDS, 5, "the playbook's default stays for its validator");
    const set = read(withQps('lower: 1, upper: 12, tolerance: 0.5, rel_tolerance: 0.05, max_rounds: 3'));
    assert.deepEqual(set.problems, []);
    assert.deepEqual([set.bench.search?.tolerance, set.bench.search?.relTolerance, set.bench.search?.maxRounds], [0.5, 0.05, 3]);
  });

  test('a rel_tolerance outside (0, 0.5] is a plan problem', () => {
    for (const bad of ['0', '0.6', '-0.1', 'two']) {
      const p = read(withQps(`lower: 1, upper: 12, rel_tolerance: ${bad}`));
      assert.ok(p.problems.some((x) => x.includes('benchmark.qps.rel_tolerance must be a number in (0, 0.5]')), `${bad}: ${p.problems.join('; ')}`);
    }
  });

  test('verdict: always filled with its defaults; the values a plan writes; bad values are plan problems', () => {
    const d = read(withQps('lower: 1, upper: 12'));
    assert.deepEqual(d.bench.verdict, { objective: 'throughput', minEffect: 0.03, maxRepeats: 16, alpha: 0.05, repeatLength: 1 });
    assert.deepEqual(DEFAULT_VERDICT, { objective: 'throughput', minEffect: 0.03, maxRepeats: 16, alpha: 0.05, repeatLength: 1 });
    const set = read(withQps('lower: 1, upper: 12', '\nverdict:\n  min_effect: 0.05\n  max_repeats: 0\n  alpha: 0.1\n  repeat_length: 1\n'));
    assert.deepEqual(set.problems, []);
    assert.deepEqual(set.bench.verdict, { objective: 'throughput', minEffect: 0.05, maxRepeats: 0, alpha: 0.1, repeatLength: 1 });
    const partial = read(withQps('lower: 1, upper: 12', '\nverdict:\n  max_repeats: 4\n'));
    assert.deepEqual(partial.bench.verdict, { objective: 'throughput', minEffect: 0.03, maxRepeats: 4, alpha: 0.05, repeatLength: 1 });
    const bad = read(withQps('lower: 1, upper: 12', '\nverdict:\n  min_effect: 0.7\n  max_repeats: 2.5\n  alpha: 0\n  repeat_length: 9\n'));
    for (const m of ['verdict.min_effect must be a number in [0, 0.5]', 'verdict.max_repeats must be an integer of 0 or more', 'verdict.alpha must be a number in (0, 0.5]', 'verdict.repeat_length must be an integer from 1 to 8']) {
      assert.ok(bad.problems.some((x) => x.includes(m)), `${m}: ${bad.problems.join('; ')}`);
    }
    assert.deepEqual(bad.bench.verdict, DEFAULT_VERDICT, 'bad values keep the defaults');
    assert.equal(read(withQps('lower: 1, upper: 12', '\nverdict:\n  gpu_budget_s: 3600\n')).bench.verdict.gpuBudgetS, 3600);
    assert.ok(read(withQps('lower: 1, upper: 12', '\nverdict:\n  gpu_budget_s: 0\n')).problems.some((x) => x.includes('verdict.gpu_budget_s must be a positive number of GPU-seconds')));
  });

  test('verdict.objective and cost.gpu_hour_usd: read once, per_dollar without prices is a plan problem that names the fix', () => {
    const base = (extra: string) => read(withQps('lower: 1, upper: 12', extra));
    const gpu = base('\nverdict:\n  objective: per_gpu\n');
    assert.deepEqual(gpu.problems, []);
    assert.equal(gpu.bench.verdict.objective, 'per_gpu');
    const dollar = base('\nverdict:\n  objective: per_dollar\ncost:\n  gpu_hour_usd: {H100: 2.5, H200: 3.5}\n');
    assert.deepEqual(dollar.problems, []);
    assert.deepEqual([dollar.bench.verdict.objective, dollar.bench.verdict.cost], ['per_dollar', { gpuHourUsd: { H100: 2.5, H200: 3.5 } }]);
    assert.deepEqual(base('\ncost: {gpu_hour_usd: 3}\n').bench.verdict.cost, { gpuHourUsd: 3 });
    const noPrice = base('\nverdict:\n  objective: per_dollar\n');
    assert.ok(noPrice.problems.some((p) => p.includes('verdict.objective per_dollar needs GPU prices: add cost: {gpu_hour_usd: 3.5}')), noPrice.problems.join('; '));
    // The checker says it where the objective is written (the editor's diagnostic), and a run stops on it.
    const findings = checkConfigText(withQps('lower: 1, upper: 12', '\nverdict:\n  objective: per_dollar\n'), { kind: 'auto' }).findings.filter((f) => f.code === 'objective-no-price');
    assert.deepEqual(findings.map((f) => [f.severity, f.path.join('.')]), [['error', 'verdict.objective']]);
    const other = checkConfigText(withQps('lower: 1, upper: 12', '\nhardware: {gpu_model: H100, gpu_count: 1}\nverdict:\n  objective: per_dollar\ncost: {gpu_hour_usd: {B200: 6}}\n'), { kind: 'auto' }).findings.filter((f) => f.code === 'objective-price-missing');
    assert.match(other[0]?.message ?? '', /no price for hardware.gpu_model H100 \(prices for B200\)/);
    assert.equal(noPrice.bench.verdict.objective, 'throughput');
    assert.ok(base('\nverdict:\n  objective: per_token\n').problems.some((p) => p.includes('verdict.objective must be one of throughput, per_gpu, per_dollar, per_joule')));
    assert.ok(base('\ncost:\n  gpu_hour_usd: {H100: -1}\n').problems.some((p) => p.includes('cost.gpu_hour_usd must be a positive number')));
    // The schemas know both keys.
    assert.deepEqual(validateJson('plan', { model: {}, dataset: {}, frameworks: {}, verdict: { objective: 'per_joule' }, cost: { gpu_hour_usd: { H200: 3.5 } } }).filter((i) => i.path[0] === 'verdict' || i.path[0] === 'cost'), []);
    assert.equal(validateJson('plan', { model: {}, dataset: {}, frameworks: {}, verdict: { objective: 'per_watt' } }).filter((i) => i.path[0] === 'verdict').length, 1);
  });

  test('the schemas describe the new keys: a plan using them checks clean, a bad value is a schema finding', () => {
    const good = withQps('lower: 1, upper: 12, rel_tolerance: 0.02', '\nverdict:\n  min_effect: 0.03\n  max_repeats: 8\n  alpha: 0.05\n');
    // Schema findings are warnings (the playbook's rules make the errors): none for the keys, one for a bad value.
    const errors = (text: string) => checkConfigText(text, { kind: 'auto' }).findings.filter((f) => f.severity === 'error' || f.code === 'schema');
    assert.deepEqual(errors(good).map((f) => f.message), []);
    assert.ok(errors(withQps('lower: 1, upper: 12, rel_tolerance: 0.9')).some((f) => f.path.join('.') === 'benchmark.qps.rel_tolerance'));
    assert.deepEqual(errors(withQps('lower: 1, upper: 12', '\nverdict:\n  min_efect: 0.03\n')).map((f) => f.message), ["verdict: unknown key 'min_efect'; allowed keys are objective, min_effect, max_repeats, alpha, repeat_length, gpu_budget_s"]);
    // A cookbook config may carry the verdict block too: the playbook's rules say nothing of it, and its schema knows it.
    const cookbook = readFileSync(path.join(REPO, 'configs/cookbook-llm/glm-4.5.yaml'), 'utf8');
    const messages = (text: string) => errors(text).map((f) => f.message);
    assert.deepEqual(messages(`${cookbook}\nverdict:\n  min_effect: 0.05\n`), messages(cookbook));
    assert.deepEqual(messages(`${cookbook}\nverdict:\n  min_effect: 0.9\n`), [...messages(cookbook), 'verdict.min_effect: must be <= 0.5, got 0.9']);
    assert.deepEqual(validateJson('plan', { model: {}, dataset: {}, frameworks: {}, verdict: { alpha: 0.05 } }).filter((i) => i.path[0] === 'verdict'), []);
    assert.equal(validateJson('plan', { model: {}, dataset: {}, frameworks: {}, verdict: { alpha: 0.9 } }).filter((i) => i.path[0] === 'verdict').length, 1);
  });
});
