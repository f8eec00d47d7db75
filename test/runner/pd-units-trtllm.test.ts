// A TensorRT-LLM P/D unit run as one candidate on the simulated engine: its options files and front end config written
// in the unit's folder, workers and `trtllm-serve disaggregated` started from the unit's exact commands, ready by the
// front end's /health, measured through it with the TTFT split on every row, every process gone after teardown; a unit
// whose KV transfers fail is invalid, not a pass.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { RunEvent } from '../../src/runner';
import { cleanup, groupAlive, planYaml, runOnSim, tempDir } from '../support/runner';

const TRTLLM = `enabled: true
backend_policy: fixed_pytorch
base_server_flags:
  backend: pytorch
  max_seq_len: 4096
disaggregation:
  transfer_backend: UCX
  router: {policy: load_balancing}
  prefill: {workers: 1, llm_api_options: {kv_cache_config: {free_gpu_memory_fraction: 0.8}}}
  decode: {workers: 1}`;

const rowsOf = (rows: ReadonlyArray<Record<string, unknown>>, id: string) => rows.filter((r) => r.framework === 'tensorrt_llm' && r.candidate_id === id);
const reasonOf = (r: Record<string, unknown> | undefined): string => (typeof r?.failure_reason === 'string' ? r.failure_reason : '');

describe('TensorRT-LLM P/D units on the simulated engine', () => {
  test('a 1P1D unit is measured through trtllm-serve disaggregated, rows ok with pd_split, nothing left after teardown', { timeout: 180_000 }, async () => {
    const dir = tempDir();
    try {
      const pids = new Set<number>();
      const run = await runOnSim(planYaml({ frameworks: { tensorrt_llm: TRTLLM } }), {
        outDir: path.join(dir, 'run'),
        skipSmoke: true,
        strategy: 'grid',
        onEvent: (e: RunEvent) => {
          if (e.type === 'server' && e.candidateId === 'pd1' && e.pid && (e.state === 'waiting' || e.state === 'ready')) pids.add(e.pid);
        },
      });
      assert.equal(run.result.status, 'completed');
      const manifest = JSON.parse(readFileSync(path.join(run.outDir, 'manifest.json'), 'utf8')) as { frameworks: Record<string, { router?: { ok: boolean; file?: string; version?: string } }> };
      const router = manifest.frameworks.tensorrt_llm?.router;
      assert.equal(router?.ok, true, JSON.stringify(router));
      assert.match(readFileSync(path.join(run.outDir, router?.file ?? 'missing'), 'utf8'), /--config_file/);
      const rows = run.result.rows as unknown as Array<Record<string, unknown>>;
      const unit = rowsOf(rows, 'pd1');
      assert.ok(unit.length > 0, JSON.stringify(rows.map((r) => [r.candidate_id, r.status, r.failure_reason])));
      for (const r of unit) {
        assert.equal(r.status, 'ok', reasonOf(r));
        assert.equal((r.hardware as { gpu_count: number }).gpu_count, 2);
        const command = String(r.server_command);
        assert.match(command, /^mkdir -p pd1\ncat > pd1\/prefill\.yaml <<'EOF'\n/, 'the row reproduces the files, then the processes');
        assert.match(command, /\ntrtllm-serve disaggregated --config_file pd1\/disagg\.yaml --request_timeout 3600$/);
        assert.ok(((r.metrics as { completed?: number }).completed ?? 0) > 0);
        const split = r.pd_split as { samples: number; p50: Record<string, number> } | undefined;
        assert.ok(split && split.samples > 0, 'no pd_split');
        assert.ok((split.p50.prefill_ms ?? 0) > 0 && (split.p50.transfer_ms ?? 0) > 0, JSON.stringify(split.p50));
      }
      // The files as the unit's commands name them, in the launch's folder of the run directory.
      const launches = readdirSync(path.join(run.outDir, 'units')).filter((d) => d.startsWith('tensorrt_llm-pd1-'));
      assert.ok(launches.length > 0);
      const folder = path.join(run.outDir, 'units', launches[0] as string);
      assert.match(readFileSync(path.join(folder, 'pd1/prefill.yaml'), 'utf8'), /^kv_cache_config:\n {2}free_gpu_memory_fraction: 0\.8\ndisable_overlap_scheduler: true\ncache_transceiver_config:\n {2}backend: UCX\n$/);
      assert.ok(existsSync(path.join(folder, 'pd1/disagg.yaml')));
      assert.equal(pids.size, 3, 'two workers and the front end were started and tracked');
      for (const pid of pids) assert.equal(groupAlive(pid), false, `process group ${pid} is still alive after teardown`);
    } finally {
      cleanup(dir);
    }
  });

  test('a unit whose KV transfers all fail is invalid, not a pass', { timeout: 180_000 }, async () => {
    const dir = tempDir();
    try {
      const run = await runOnSim(planYaml({ frameworks: { tensorrt_llm: TRTLLM } }), { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid', simExtraOptions: '--sim-fault pd-transfer' });
      const unit = rowsOf(run.result.rows as unknown as Array<Record<string, unknown>>, 'pd1');
      assert.ok(unit.length > 0);
      for (const r of unit) {
        assert.notEqual(r.status, 'ok');
        assert.notEqual((r.sla as { passed?: boolean } | undefined)?.passed, true, 'a unit that generated nothing must not pass');
        assert.match(reasonOf(r), /without any output token|returned 0 output tokens/);
      }
    } finally {
      cleanup(dir);
    }
  });
});
