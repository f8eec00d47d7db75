// Trustworthy verdicts on the simulated engine: failing requests never pass, broken outputs are invalid with the reason, cache bias is removed and recorded per framework, a saturating server gets a bracket, summary.json names winners or ties.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { cleanup, planYaml, runOnSim, tempDir } from '../support/runner';

type Row = Record<string, unknown> & { status: string; sla?: { passed?: boolean; reasons?: string[] }; failure_reason?: string | null; trial?: { mode?: string } };
const measured = (rows: Row[]) => rows.filter((r) => r.trial?.mode === 'fixed' || r.trial?.mode === 'search' || r.trial?.mode === 'repeat');

describe('trustworthy verdicts (simulated engine)', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanup));
  const out = () => {
    const d = tempDir();
    dirs.push(d);
    return path.join(d, 'run');
  };

  test('a plan without min_success_rate, 20% of requests failing: no trial passes, and why', { timeout: 120_000 }, async () => {
    const plan = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' }, dataset: 'num_prompts: 40\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [32]', benchmark: 'request_rates: [4, inf]' });
    const { result } = await runOnSim(plan, { outDir: out(), simExtraOptions: '--sim-error-rate 0.2', skipSmoke: true, repeats: 0 });
    const rows = measured(result.rows as unknown as Row[]);
    assert.equal(rows.length, 2);
    for (const r of rows) {
      assert.notEqual(r.sla?.passed, true);
      assert.equal(r.status, 'failed');
      assert.match(r.failure_reason ?? '', /^invalid measurement: \d+ of 40 requests failed \(/);
    }
    const md = readFileSync(result.summary?.markdown ?? '', 'utf8');
    assert.match(md, /min_success_rate \| 0\.99 \(default: the plan sets none\)/);
  });

  test('a busy machine (the simulated engine held 500 ms every second): each trial is measured again, then invalid as host-bound, never a pass', { timeout: 120_000 }, async () => {
    const plan = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' }, dataset: 'num_prompts: 120\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [64]', benchmark: 'request_rates: [2]' });
    // 120 prompts at 2 req/s: 60 modelled seconds, 3 s of wall time at the tests' speed 20, so every attempt sees holds.
    const { result } = await runOnSim(plan, { outDir: out(), simExtraOptions: '--sim-host-stall 500', skipSmoke: true, repeats: 0, strategy: 'grid' });
    const [r] = measured(result.rows as unknown as Row[]) as Array<Row & { validity?: { environmental?: boolean; remeasured?: string[] } }>;
    assert.equal(r?.status, 'failed');
    assert.notEqual(r?.sla?.passed, true);
    assert.match(r?.failure_reason ?? '', /^invalid measurement: .*host-bound: the simulated engine fell behind real time/);
    assert.equal(r?.validity?.environmental, true);
    assert.equal(r?.validity?.remeasured?.length, 2, 'two earlier attempts were discarded before the verdict');
  });

  test('a server that returns 0 tokens, or fewer than asked under ignore_eos: the trial is invalid with the reason', { timeout: 120_000 }, async () => {
    const plan = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' } });
    const zero = await runOnSim(plan, { outDir: out(), simExtraOptions: '--sim-fault zero-tokens', skipSmoke: true, repeats: 0 });
    const [z] = measured(zero.result.rows as unknown as Row[]);
    assert.equal(z?.status, 'failed');
    assert.notEqual(z?.sla?.passed, true);
    // Even the warm-up gets no token, so the trial ends before measuring, with the server's failure as its reason.
    assert.match(z?.failure_reason ?? '', /0 output tokens|without any output token/);
    const short = await runOnSim(plan, { outDir: out(), simExtraOptions: '--sim-fault short-output', skipSmoke: true, repeats: 0 });
    const [s] = measured(short.result.rows as unknown as Row[]);
    assert.match(s?.failure_reason ?? '', /invalid measurement: 8 requests returned fewer tokens than requested with ignore_eos on/);
  });

  test('cache bias: vLLM rows say flushed; TensorRT-LLM (no flush route) gets fresh prompts and no prefix-cache hits after its first trial', { timeout: 180_000 }, async () => {
    const plan = planYaml({
      frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096', tensorrt_llm: 'backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096' },
      benchmark: 'framework_set: [vllm, tensorrt_llm]\nrequest_rates: [2, 4, inf]',
    });
    const { result } = await runOnSim(plan, { outDir: out(), skipSmoke: true, repeats: 0, strategy: 'grid' });
    const rows = measured(result.rows as unknown as Row[]);
    const by = (fw: string) => rows.filter((r) => r.framework === fw);
    assert.equal(by('vllm').length, 3);
    assert.equal(by('tensorrt_llm').length, 3);
    for (const r of by('vllm')) assert.equal(r.cache_policy, 'flushed');
    for (const r of by('tensorrt_llm')) {
      assert.equal(r.cache_policy, 'fresh-prompts');
      assert.equal((r.cache as { prefix_cache_hit_rate?: number } | undefined)?.prefix_cache_hit_rate, 0, 'no prompt of a later trial was sent before');
    }
    const manifest = JSON.parse(readFileSync(path.join(result.outDir, 'manifest.json'), 'utf8')) as { trial_plan: { launch_env: Record<string, Record<string, string>> } };
    assert.deepEqual(manifest.trial_plan.launch_env.vllm, { VLLM_SERVER_DEV_MODE: '1' });
  });

  test('a saturating server: the rate search reports its bracket (closed, or why not), and summary.json names a winner or the ties', { timeout: 240_000 }, async () => {
    const plan = planYaml({
      frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [4]' },
      dataset: 'num_prompts: 24\nscenario_names: [long]\ninput_len: [2048]\noutput_len: [64]',
      benchmark: 'request_rates: null\nqps: {lower: 0.5, upper: 64, tolerance: 2, max_rounds: 6}',
      sla: 'max_p50_ttft_ms: 2000\nmax_p50_tpot_ms: 100',
    }) + '\nverdict:\n  repeat_length: 4\n';
    const { result } = await runOnSim(plan, { outDir: out(), skipSmoke: true, repeats: 1, strategy: 'grid' });
    const manifest = JSON.parse(readFileSync(path.join(result.outDir, 'manifest.json'), 'utf8')) as { frameworks: { vllm: { brackets: Record<string, { best: number | null; lowestFail: number | null; closed: boolean; note: string }> } }; gpu_seconds: { by_purpose: { repeat: number; search: number } } };
    const brackets = Object.values(manifest.frameworks.vllm.brackets);
    assert.equal(brackets.length, 2);
    for (const b of brackets) {
      assert.ok(b.lowestFail !== null, `the server saturates below 64 req/s: ${b.note}`);
      assert.match(b.note, b.closed ? /^closed: / : /^not closed: .*raise/);
      if (b.closed) assert.ok(b.lowestFail - (b.best as number) <= 2);
    }
    const saturated = (result.rows as unknown as Row[]).filter((r) => (r.sla?.reasons ?? []).some((x) => /^saturated: /.test(x)) || /too short|saturated/.test(r.failure_reason ?? ''));
    assert.ok(saturated.length + (result.rows as unknown as Row[]).filter((r) => r.sla?.passed === false).length > 0);
    assert.ok(manifest.gpu_seconds.by_purpose.repeat > 0 && manifest.gpu_seconds.by_purpose.search > 0);
    // A repeat's trials are the plan's verdict.repeat_length (4) times as long as the search's would be: at least 4 x 24 prompts.
    const prompts = (mode: string) => (result.rows as unknown as Array<Row & { workload?: { num_prompts?: number } }>).filter((r) => r.trial?.mode === mode).map((r) => r.workload?.num_prompts ?? 0);
    assert.ok(prompts('repeat').length > 0 && prompts('repeat').every((n) => n >= 96), `repeat prompts ${prompts('repeat').join(',')}`);
    assert.ok(prompts('search').some((n) => n < 96), `search prompts ${prompts('search').join(',')}`);
    const summary = JSON.parse(readFileSync(result.summary?.json ?? '', 'utf8')) as { scenarios: Array<{ scenario: string; decided: boolean; winner: { framework: string; interval: [number, number | null]; repeats: number } | null; ties: unknown[] }> };
    const [s] = summary.scenarios;
    assert.equal(s?.scenario, 'long');
    assert.ok(s?.winner, 'a candidate met the SLA');
    assert.equal(s?.winner?.repeats, 1);
    assert.equal(s?.decided, s?.ties.length === 0);
  });

  test('verdict.gpu_budget_s: once the run has spent it no repeat round starts, the manifest says so, and an undecided verdict says the budget stopped it', { timeout: 120_000 }, async () => {
    const plan = planYaml({
      frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [8, 9]' },
      dataset: 'num_prompts: 16\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [32]',
      benchmark: 'request_rates: null\nqps: {lower: 0.5, upper: 32, tolerance: 2, max_rounds: 4}',
      sla: 'max_p50_ttft_ms: 2000\nmax_p50_tpot_ms: 100',
    }) + '\nverdict:\n  gpu_budget_s: 1\n';
    const { result, events } = await runOnSim(plan, { outDir: out(), skipSmoke: true, strategy: 'grid' });
    const rows = result.rows as unknown as Row[];
    assert.equal(rows.filter((r) => r.trial?.mode === 'repeat').length, 0, 'no repeat after the budget');
    const manifest = JSON.parse(readFileSync(path.join(result.outDir, 'manifest.json'), 'utf8')) as { repeats_ended?: Record<string, string> };
    assert.equal(manifest.repeats_ended?.vllm, 'budget');
    assert.ok(events.some((e) => e.type === 'log' && /no repeat 1: the run has spent \d+ of its 1 GPU-seconds/.test(e.message)));
    const summary = JSON.parse(readFileSync(result.summary?.json ?? '', 'utf8')) as { scenarios: Array<{ outcome: string; stop: string | null; summary: string }> };
    const [s] = summary.scenarios;
    assert.ok(s);
    if (s.outcome === 'undecided') {
      assert.equal(s.stop, 'budget');
      assert.match(s.summary, /undecided \(GPU budget spent\): /);
    } else assert.equal(s.stop, s.outcome === 'winner' ? 'decided' : s.outcome === 'equivalent' ? 'equivalent' : null);
  });

  test('--resume after changing num_prompts: no old row is reused, the moved-aside rows are counted and kept aside', { timeout: 120_000 }, async () => {
    const dir = out();
    const plan = (n: number) => planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' }, dataset: `num_prompts: ${n}\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [32]`, benchmark: 'request_rates: [inf]' });
    const first = await runOnSim(plan(8), { outDir: dir, skipSmoke: true, repeats: 0 });
    const before = first.result.rows.length;
    assert.ok(before >= 3);
    const again = await runOnSim(plan(10), { outDir: dir, resume: true, skipSmoke: true, repeats: 0 });
    const start = again.events.find((e) => e.type === 'run-start');
    assert.equal(start?.type === 'run-start' ? start.movedAside : -1, before);
    assert.ok(again.events.some((e) => e.type === 'log' && /row\(s\) of a changed plan were moved aside to rows\.stale\.jsonl/.test(e.message)));
    const rows = readFileSync(path.join(dir, 'rows.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
    for (const r of measured(rows)) assert.equal((r.workload as { num_prompts?: number } | undefined)?.num_prompts, 10);
    assert.equal(readFileSync(path.join(dir, 'rows.stale.jsonl'), 'utf8').trim().split('\n').length, before);
  });
});
