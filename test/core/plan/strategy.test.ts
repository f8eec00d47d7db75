// The search strategy: the plan's search.strategy read into the plan (grid, adaptive, the default, a bad value that
// keeps the plan from running), --strategy over the plan over the default, and --force's FRAMEWORK:ID / ID.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { checkConfigText } from '../../../src/core/config/check';
import { schemaKeysAt } from '../../../src/core/config/schema-check';
import { readRunPlan } from '../../../src/core/plan/build';
import { DEFAULT_SEARCH_STRATEGY, SEARCH_STRATEGIES, isForced, parseForced, resolveStrategy } from '../../../src/core/plan/strategy';
import { assertRunnable, PlanError } from '../../../src/core/plan/types';
import { planYaml, REPO } from '../../support/runner';

const at = path.join(REPO, 'configs/examples/x.plan.yaml');
const VLLM = { vllm: 'enabled: true\nserver_command: vllm serve\nbase_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [8, 64]' };
const withSearch = (search: string) => planYaml({ frameworks: VLLM, search });
const plan = (search: string) => readRunPlan({ text: withSearch(search), path: at });

describe('search.strategy in the plan', () => {
  test('grid and adaptive are read as the plan wrote them', () => {
    for (const name of ['grid', 'adaptive'] as const) {
      const p = plan(`max_candidates_per_framework: 3\nstrategy: ${name}`);
      assert.deepEqual(p.problems, []);
      assert.deepEqual(p.searchStrategy, { name, source: 'plan' });
    }
  });

  test('unset: the one default, and budget.strategy (candidate order) is a different thing', () => {
    const p = plan('max_candidates_per_framework: 3\ncandidate_generation: coverage_first');
    assert.deepEqual(p.problems, []);
    assert.deepEqual(p.searchStrategy, { name: DEFAULT_SEARCH_STRATEGY, source: 'default' });
    assert.equal(p.budget.strategy, 'coverage_first');
    // No search block at all: the default too.
    assert.deepEqual(readRunPlan({ text: withSearch('max_candidates_per_framework: 3').replace(/^search:\n.*\n/m, ''), path: at }).searchStrategy, { name: DEFAULT_SEARCH_STRATEGY, source: 'default' });
  });

  test('a bad value keeps the plan from running, naming the allowed values; the editor gets the schema finding', () => {
    const cases: Array<[string, string]> = [
      ['fast', "'fast'"],
      ['Adaptive', "'Adaptive'"],
      ['3', '3'],
      ['null', 'null'],
      ['[grid]', '["grid"]'],
    ];
    for (const [written, shown] of cases) {
      const p = plan(`max_candidates_per_framework: 3\nstrategy: ${written}`);
      assert.equal(p.problems.length, 1, written);
      assert.match(p.problems[0] ?? '', new RegExp(`^search\\.strategy must be grid or adaptive, got ${shown.replace(/[[\]]/g, '\\$&')} \\(grid: .*; adaptive: .*\\)$`), written);
      assert.throws(() => assertRunnable(p), PlanError);
    }
    const text = withSearch('max_candidates_per_framework: 3\nstrategy: fast');
    const f = checkConfigText(text, { kind: 'auto' }).findings.find((x) => x.path.join('.') === 'search.strategy');
    assert.ok(f, 'a finding on search.strategy');
    assert.match(f.message, /^search\.strategy: expected one of grid, adaptive; got "fast"$/);
    assert.equal(text.slice(f.range[0], f.range[1]), 'fast');
  });

  test('the schema offers both values with descriptions (hover and completion read it), in configs and plans alike', () => {
    const clean = checkConfigText(withSearch('max_candidates_per_framework: 3\nstrategy: adaptive'), { kind: 'auto' }).findings.filter((x) => x.path[0] === 'search');
    assert.deepEqual(clean, []);
    for (const kind of ['cookbook', 'plan'] as const) {
      const key = schemaKeysAt(kind, ['search']).find((k) => k.name === 'strategy');
      assert.deepEqual(key?.values, [...SEARCH_STRATEGIES], kind);
      assert.match(key?.description ?? '', /grid measures every one.*adaptive predicts each with the engine model/, kind);
    }
  });
});

describe('resolveStrategy', () => {
  test('--strategy over the plan over the default', () => {
    const fromPlan = plan('max_candidates_per_framework: 3\nstrategy: adaptive');
    const unset = plan('max_candidates_per_framework: 3');
    assert.deepEqual(resolveStrategy(fromPlan, {}), { name: 'adaptive', source: 'plan' });
    assert.deepEqual(resolveStrategy(fromPlan, { strategy: 'grid' }), { name: 'grid', source: 'option' });
    assert.deepEqual(resolveStrategy(unset, {}), { name: DEFAULT_SEARCH_STRATEGY, source: 'default' });
    assert.deepEqual(resolveStrategy(unset, { strategy: 'adaptive' }), { name: 'adaptive', source: 'option' });
    assert.deepEqual(resolveStrategy(unset, { strategy: undefined }), { name: DEFAULT_SEARCH_STRATEGY, source: 'default' });
  });
});

describe('--force values', () => {
  test('FRAMEWORK:ID names one candidate, a bare ID that id in every framework', () => {
    assert.deepEqual(parseForced('vllm:c3'), { framework: 'vllm', candidate: 'c3' });
    assert.deepEqual(parseForced('baseline'), { candidate: 'baseline' });
    assert.deepEqual(parseForced(' tensorrt_llm:c10 '), { framework: 'tensorrt_llm', candidate: 'c10' });
    assert.match(parseForced('vlm:c3') as string, /^unknown framework 'vlm' in 'vlm:c3'; give FRAMEWORK:ID with one of sglang, vllm, tensorrt_llm, tokenspeed, or just ID$/);
    for (const bad of ['', 'vllm:', 'c 3', 'vllm:c3:x']) assert.equal(typeof parseForced(bad), 'string', bad);
  });

  test('isForced matches the framework when one is given, every framework otherwise', () => {
    const force = ['vllm:c3', 'c1'];
    assert.equal(isForced(force, 'vllm', 'c3'), true);
    assert.equal(isForced(force, 'sglang', 'c3'), false);
    assert.equal(isForced(force, 'sglang', 'c1'), true);
    assert.equal(isForced(force, 'vllm', 'c1'), true);
    assert.equal(isForced(force, 'vllm', 'c2'), false);
    assert.equal(isForced(undefined, 'vllm', 'c3'), false);
  });
});
