// A run's prompt sets for every dataset kind: fresh prompts per trial set (file datasets: the next unsent rows, and a
// warning with a record when the file runs out), generated kinds per seed, a trace's timing kept, bad files before launch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRunPlan } from '../../src/core/plan/build';
import { PlanError, type RunPlan } from '../../src/core/plan/types';
import type { Scenario } from '../../src/core/config/model';
import { Workloads } from '../../src/runner/workloads';
import { planYaml } from '../support/runner';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'autobench-workloads-'));
  const custom = Array.from({ length: 10 }, (_, i) => JSON.stringify({ prompt: `Question number ${i}: what is ${i} plus ${i}?`, output_len: 5 + i }));
  writeFileSync(join(dir, 'rows.jsonl'), `${custom.join('\n')}\n`);
  const convs = Array.from({ length: 12 }, (_, i) => ({ conversations: [{ from: 'human', value: `Tell me about topic ${i} in some detail please` }, { from: 'gpt', value: `Topic ${i} is interesting because of many things` }] }));
  writeFileSync(join(dir, 'share.json'), JSON.stringify(convs));
  const trace = [0, 250, 600, 1000].map((t, i) => JSON.stringify({ timestamp: 5000 + t, input_length: 40 + i, output_length: 8, hash_ids: [i % 2, 7 + i] }));
  writeFileSync(join(dir, 'trace.jsonl'), `${trace.join('\n')}\n`);
  writeFileSync(join(dir, 'bad.jsonl'), '{"prompt": "ok", "output_len": 3}\n{"prompt": 5}\n');
});
after(() => rmSync(dir, { recursive: true, force: true }));

function plan(dataset: string, benchmark?: string, vllm = 'base_server_flags:\n  max_model_len: 4096'): RunPlan {
  const p = readRunPlan({ text: planYaml({ dataset, frameworks: { vllm }, ...(benchmark ? { benchmark } : {}) }), path: join(dir, 'p.plan.yaml') });
  assert.deepEqual(p.problems, []);
  return p;
}
const sc = (p: RunPlan): Scenario => p.scenarios[0] as Scenario;
const texts = (w: { rows: { prompt: unknown }[] }) => w.rows.map((r) => JSON.stringify(r.prompt));

describe('run workloads per dataset kind', () => {
  test('custom: each set the next unsent rows, a set keeps its rows; past the file end rows are re-sent, warned and recorded', () => {
    const p = plan('kind: custom\npath: rows.jsonl\nnum_prompts: 4\nscenario_names: [qa]\ninput_len: [64]\noutput_len: [16]');
    const w = Workloads.open(p, undefined, true);
    const warned: string[] = [];
    w.onWarn = (m) => warned.push(m);
    const s0 = w.for(sc(p), 0);
    const s1 = w.for(sc(p), 1);
    assert.equal(w.for(sc(p), 0), s0, 'a set is built once');
    assert.deepEqual(s0.rows.map((r) => r.outputLen), [5, 6, 7, 8]);
    assert.deepEqual(s1.rows.map((r) => r.outputLen), [9, 10, 11, 12]);
    assert.ok(s0.rows.every((r) => r.scenario === 'qa'));
    assert.equal(s1.reusedRows, undefined);
    assert.equal(warned.length, 0);
    const s2 = w.for(sc(p), 2);
    assert.deepEqual(s2.rows.map((r) => r.outputLen), [13, 14, 5, 6]);
    assert.equal(s2.reusedRows, 2);
    assert.deepEqual(w.reused, [{ scenario: 'qa', set: 2, factor: 1, rows: 2, of: 4 }]);
    assert.equal(warned.length, 1);
    assert.match(warned[0] as string, /custom .*rows\.jsonl: 10 usable rows are too few for fresh prompts: prompt set 2 of scenario qa re-sends 2 of its 4 rows .*cache-biased, not a verdict\. Give a larger file or a smaller dataset\.num_prompts/);
    assert.ok(s2.notes.some((n) => /cache-biased/.test(n)), 'the trial\'s notes carry it too');
    assert.deepEqual(w.benchFlags(4), ['--dataset-name', 'custom', '--num-prompts', '4', '--dataset-path', join(dir, 'rows.jsonl')]);
  });

  test('sharegpt: the file shuffled once by the seed, sets disjoint', () => {
    const p = plan('kind: sharegpt\npath: share.json\nnum_prompts: 5\ninput_len: [64]\noutput_len: [16]');
    const w = Workloads.open(p, undefined, true);
    const a = texts(w.for(sc(p), 0));
    const b = texts(w.for(sc(p), 7));
    assert.equal(a.length, 5);
    assert.deepEqual(a.filter((t) => b.includes(t)), []);
    assert.notDeepEqual([...a, ...b], [...a, ...b].slice().sort(), 'shuffled, not in file order');
    assert.equal(sc(p).name, 'sharegpt');
  });

  test('generated-shared-prefix: a set per seed; a lengthened trial has factor times the groups', () => {
    const p = plan('kind: generated-shared-prefix\ngsp: {num_groups: 2, prompts_per_group: 3, system_prompt_len: 40, question_len: 8, output_len: 6}\ninput_len: [64]\noutput_len: [16]');
    const w = Workloads.open(p, undefined, true);
    const s0 = w.for(sc(p), 0);
    const s1 = w.for(sc(p), 1);
    assert.equal(s0.rows.length, 6);
    assert.deepEqual(texts(s0).filter((t) => texts(s1).includes(t)), []);
    assert.equal(w.for(sc(p), 1, 2).rows.length, 12);
    assert.ok(s0.rows.every((r) => r.outputLen === 6));
  });

  test('mooncake with timestamps: the trace\'s timing kept (x slowdown, in modelled time), fresh prompt text per set', () => {
    const p = plan('kind: mooncake\npath: trace.jsonl\nmooncake: {slowdown_factor: 2}\nnum_prompts: 4\ninput_len: [64]\noutput_len: [16]');
    const w = Workloads.open(p, undefined, true, 1 / 4);
    const s0 = w.for(sc(p), 0);
    const s1 = w.for(sc(p), 1);
    assert.equal(s0.timed, true);
    assert.deepEqual(s0.rows.map((r) => r.arrivalMs), [0, 125, 300, 500]);
    assert.deepEqual(s1.rows.map((r) => r.arrivalMs), [0, 125, 300, 500]);
    assert.deepEqual(s0.rows.map((r) => r.promptLen), [40, 41, 42, 43]);
    assert.deepEqual(texts(s0).filter((t) => texts(s1).includes(t)), []);
  });

  test('builtin-text: each scenario at its lengths, a set of its own per trial', () => {
    const p = plan('kind: builtin-text\nnum_prompts: 6\nscenario_names: [short, long]\ninput_len: [200, 900]\noutput_len: [20, 90]');
    const w = Workloads.open(p, undefined, true);
    const [a, b] = p.scenarios as [Scenario, Scenario];
    const s0 = w.for(a, 0);
    assert.ok(s0.rows.every((r) => r.outputLen === 20 && r.promptLen <= 200 && r.promptLen >= 190), JSON.stringify(s0.rows.map((r) => r.promptLen)));
    assert.ok(w.for(b, 0).rows.every((r) => r.outputLen === 90 && r.promptLen >= 890));
    assert.notDeepEqual(texts(w.for(a, 1)), texts(s0));
    assert.equal(w.benchFlags(6), undefined, 'the benchmark command\'s --random-* flags rebuild it');
  });

  test('random ids on a plan with speculative candidates: every set says they understate acceptance; builtin-text does not', () => {
    const spec = "base_server_flags:\n  max_model_len: 4096\n  speculative_config: '{\"method\": \"ngram\"}'";
    const ids = plan('kind: random-ids\nnum_prompts: 3\ninput_len: [64]\noutput_len: [16]', undefined, spec);
    const notes = Workloads.open(ids, undefined, true).for(sc(ids), 4).notes.join('\n');
    assert.match(notes, /random-ids prompts understate speculative decoding acceptance \(vllm baseline: speculative_config\): measure those candidates with dataset\.kind builtin-text/);
    const text = plan('num_prompts: 3\ninput_len: [64]\noutput_len: [16]', undefined, spec);
    assert.equal(text.bench.datasetKind, 'builtin-text');
    assert.doesNotMatch(Workloads.open(text, undefined, true).for(sc(text)).notes.join('\n'), /understate/);
  });

  test('a file the builder refuses stops the run before any launch, naming the key and the line', () => {
    const p = plan('kind: custom\npath: bad.jsonl\ninput_len: [64]\noutput_len: [16]');
    assert.throws(
      () => Workloads.open(p, undefined, true),
      (e: unknown) => e instanceof PlanError && /^dataset\.path \(dataset\.kind custom\): .*bad\.jsonl:2: /.test(e.problems[0] ?? ''),
    );
  });
});
