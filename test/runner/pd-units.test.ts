// P/D units run as one candidate on the simulated engine: every worker and the router started from the unit's exact
// commands, measured through the router, the whole unit's GPUs in its rows, every process gone after teardown; a unit
// whose KV transfers fail is invalid, not a pass; a unit whose worker cannot start fails naming it, with nothing left.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import type { RunEvent } from '../../src/runner';
import { cleanup, groupAlive, planYaml, runOnSim, tempDir } from '../support/runner';

const SGLANG = `base_server_flags:
  model_path: Qwen/Qwen3-8B
  context_length: 4096
disaggregation:
  transfer_backend: mooncake
  router: {policy: round_robin}
  prefill: {workers: 1}
  decode: {workers: 1}
  search_space:
    prefill.workers: [1, 2]`;

const rowsOf = (rows: ReadonlyArray<Record<string, unknown>>, id: string) => rows.filter((r) => r.framework === 'sglang' && r.candidate_id === id);
const reasonOf = (r: Record<string, unknown> | undefined): string => (typeof r?.failure_reason === 'string' ? r.failure_reason : '');

describe('P/D units on the simulated engine', () => {
  test('each unit is launched from its commands, measured through its router, charged all its GPUs, and leaves no process', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    try {
      const pids = new Map<string, Set<number>>();
      const run = await runOnSim(planYaml({ frameworks: { sglang: SGLANG } }), {
        outDir: path.join(dir, 'run'),
        skipSmoke: true,
        strategy: 'grid',
        onEvent: (e: RunEvent) => {
          if (e.type === 'server' && e.pid && (e.state === 'waiting' || e.state === 'ready')) {
            const set = pids.get(e.candidateId) ?? new Set<number>();
            set.add(e.pid);
            pids.set(e.candidateId, set);
          }
        },
      });
      assert.equal(run.result.status, 'completed');
      // Preflight captured the router's help and version on the target, beside the workers' (the framework's).
      const manifest = JSON.parse(readFileSync(path.join(run.outDir, 'manifest.json'), 'utf8')) as { frameworks: Record<string, { router?: { ok: boolean; file?: string; version?: string } }> };
      const router = manifest.frameworks.sglang?.router;
      assert.deepEqual([router?.ok, router?.version], [true, '0.2.4'], JSON.stringify(router));
      assert.match(readFileSync(path.join(run.outDir, router?.file ?? 'missing'), 'utf8'), /--pd-disaggregation/);
      const rows = run.result.rows as unknown as Array<Record<string, unknown>>;
      for (const [id, gpus, processes] of [['pd1', 2, 3], ['pd2', 3, 4]] as const) {
        const mine = rowsOf(rows, id);
        assert.ok(mine.length > 0, `no rows for ${id}`);
        for (const r of mine) {
          assert.equal(r.status, 'ok', `${id}: ${reasonOf(r)}`);
          assert.equal((r.hardware as { gpu_count: number }).gpu_count, gpus);
          assert.equal(String(r.server_command).split('\n').length, processes);
          assert.match(String(r.benchmark_command), / --base-url http:\/\/127\.0\.0\.1:8000 /, 'the reproduce command targets the router');
          assert.ok(((r.metrics as { completed?: number }).completed ?? 0) > 0);
          // The router's split of the modelled TTFT, and a floor probed through the router, on every unit row.
          const split = r.pd_split as { samples: number; p50: Record<string, number> } | undefined;
          assert.ok(split && split.samples > 0, `${id}: no pd_split`);
          assert.ok((split.p50.prefill_ms ?? 0) > 0 && (split.p50.transfer_ms ?? 0) > 0 && (split.p50.first_decode_ms ?? 0) > 0, JSON.stringify(split.p50));
          assert.notEqual((r.ttft_floor as { action: string }).action, 'unmeasured', JSON.stringify(r.ttft_floor));
          // The unit's energy: every worker's modelled counter, output tokens from its decode workers.
          const e = r.energy as { basis: string; gpus: number; j_per_output_token: number | null; output_tokens: number };
          assert.deepEqual([e.basis, e.gpus], ['modelled', gpus]);
          assert.ok((e.j_per_output_token ?? 0) > 0 && e.output_tokens > 0, JSON.stringify(e));
          assert.deepEqual(r.pd_unit, { transfer_backend: 'mooncake', prefill_workers: id === 'pd1' ? 1 : 2, decode_workers: 1, prefill_tp: 1, decode_tp: 1, gpus });
          // Its workers were asked for their /metrics around each trial: SGLang serves none without --enable-metrics, and the row says so.
          const pm = r.pd_metrics as { mean_ms: Record<string, number | null>; notes: string[] };
          assert.ok(Object.values(pm.mean_ms).every((v) => v === null), JSON.stringify(pm));
          assert.match(pm.notes.join('\n'), /prefill workers answered no \/metrics \(SGLang serves them only with --enable-metrics\)/);
        }
        for (const r of rowsOf(rows, 'baseline')) {
          assert.equal(r.pd_split, undefined, 'an aggregated server has no split');
          assert.equal((r.energy as { basis: string }).basis, 'modelled');
        }
        assert.equal(pids.get(id)?.size, processes, `${id}: every process of the unit was started and tracked`);
        for (const pid of pids.get(id) ?? []) assert.equal(groupAlive(pid), false, `${id}: process group ${pid} is still alive after teardown`);
      }
    } finally {
      cleanup(dir);
    }
  });

  test("the workers' own /metrics give each stage's mean (vLLM NIXL, SGLang with --enable-metrics), agreeing with the simulated router's split", { timeout: 120_000 }, async () => {
    const dir = tempDir();
    try {
      const vllm = 'base_server_flags:\n  model: Qwen/Qwen3-8B\n  max_model_len: 4096\ndisaggregation:\n  transfer_backend: nixl\n  prefill: {workers: 1}\n  decode: {workers: 1}';
      const sglang = SGLANG.replace('  context_length: 4096\n', '  context_length: 4096\n  enable_metrics: true\n').replace(/\n {2}search_space:[\s\S]*$/, '');
      const run = await runOnSim(planYaml({ frameworks: { sglang, vllm }, benchmark: 'request_rates: [2]', dataset: 'num_prompts: 24\nscenario_names: [chat]\ninput_len: [1024]\noutput_len: [32]' }), { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid', candidates: ['pd1'] });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const rows = (run.result.rows as unknown as Array<Record<string, unknown>>).filter((r) => r.candidate_id === 'pd1');
      assert.deepEqual(new Set(rows.map((r) => r.framework)), new Set(['sglang', 'vllm']));
      for (const r of rows) {
        assert.equal(r.status, 'ok', reasonOf(r));
        const pm = r.pd_metrics as { mean_ms: Record<string, number | null>; requests: Record<string, number>; workers_read: Record<string, string>; sources: Record<string, string>; notes: string[] };
        const split = (r.pd_split as { p50: Record<string, number> }).p50;
        const fw = String(r.framework);
        assert.deepEqual(pm.workers_read, { prefill: '1/1', decode: '1/1' }, fw);
        // Every measured request (and the trial's few warm-ups) once per role: not its tokens.
        const completed = (r.metrics as { completed: number }).completed;
        for (const role of ['prefill', 'decode']) assert.ok((pm.requests[role] ?? 0) >= completed && (pm.requests[role] ?? 0) <= completed + 10, `${fw}: ${JSON.stringify(pm.requests)} for ${completed} completed`);
        assert.match(pm.sources.prefill_ms ?? '', fw === 'vllm' ? /^vllm:request_prefill_time_seconds \(prefill workers\)$/ : /^sglang:per_stage_req_latency_seconds\{stage="prefill_forward"\} \(prefill workers\)$/);
        // At 2 req/s the requests barely queue: each mean sits near the router's median (all modelled on the simulator).
        for (const k of ['prefill_ms', 'transfer_ms', 'first_decode_ms']) {
          const mean = pm.mean_ms[k];
          assert.ok(typeof mean === 'number' && Math.abs(mean - (split[k] as number)) <= 0.25 * (split[k] as number) + 2, `${fw} ${k}: metrics mean ${mean} vs split p50 ${split[k]}`);
        }
        assert.ok(typeof pm.mean_ms.tpot_ms === 'number' && pm.mean_ms.tpot_ms > 0, `${fw}: ${JSON.stringify(pm.mean_ms)}`);
        assert.deepEqual(pm.notes, [], `${fw}: ${pm.notes.join('; ')}`);
      }
    } finally {
      cleanup(dir);
    }
  });

  test('a unit whose KV transfers all fail returns 0 output tokens: its trials are invalid, not a pass', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    try {
      const plan = planYaml({ frameworks: { sglang: SGLANG.replace('    prefill.workers: [1, 2]', '    prefill.workers: [1]') } });
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid', simExtraOptions: '--sim-fault pd-transfer' });
      const rows = run.result.rows as unknown as Array<Record<string, unknown>>;
      const unit = rowsOf(rows, 'pd1');
      assert.ok(unit.length > 0);
      for (const r of unit) {
        assert.notEqual(r.status, 'ok');
        assert.notEqual((r.sla as { passed?: boolean } | undefined)?.passed, true, 'a unit that generated nothing must not pass');
        assert.match(reasonOf(r), /without any output token|returned 0 output tokens/);
      }
      // The aggregated baseline has no transfer to fail.
      for (const r of rowsOf(rows, 'baseline')) assert.equal(r.status, 'ok');
    } finally {
      cleanup(dir);
    }
  });

  test('a router option the captured router help does not list skips the units before any launch, naming it', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    try {
      const plan = planYaml({ frameworks: { sglang: SGLANG.replace('  router: {policy: round_robin}', '  router: {policy: round_robin, flags: {no_such_option: 3}}').replace('    prefill.workers: [1, 2]', '    prefill.workers: [1]') } });
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid' });
      const unit = rowsOf(run.result.rows as unknown as Array<Record<string, unknown>>, 'pd1');
      assert.equal(unit.length, 1);
      assert.equal(unit[0]?.status, 'skipped');
      assert.match(reasonOf(unit[0]), /router option --no-such-option not in the captured help\/sglang_router_help\.txt/);
    } finally {
      cleanup(dir);
    }
  });

  test("a unit whose decode worker cannot start fails naming that worker, and its prefill worker is stopped", { timeout: 120_000 }, async () => {
    const dir = tempDir();
    try {
      const plan = planYaml({ frameworks: { sglang: SGLANG.replace('  decode: {workers: 1}', '  decode: {workers: 1, flags: {mem_fraction_static: 0.01}}').replace('    prefill.workers: [1, 2]', '    prefill.workers: [1]') } });
      const pids: number[] = [];
      const run = await runOnSim(plan, {
        outDir: path.join(dir, 'run'),
        skipSmoke: true,
        strategy: 'grid',
        onEvent: (e: RunEvent) => {
          if (e.type === 'server' && e.candidateId === 'pd1' && e.pid && e.state === 'waiting') pids.push(e.pid);
        },
      });
      const rows = run.result.rows as unknown as Array<Record<string, unknown>>;
      const unit = rowsOf(rows, 'pd1');
      assert.equal(unit.length, 1);
      assert.notEqual(unit[0]?.status, 'ok');
      assert.match(reasonOf(unit[0]), /^decode worker 0: /);
      assert.ok(pids.length >= 1);
      for (const pid of pids) assert.equal(groupAlive(pid), false, `process group ${pid} is still alive`);
    } finally {
      cleanup(dir);
    }
  });
});
