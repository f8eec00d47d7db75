import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { checkConfigText } from '../../src/core/config/check';
import { validateJson } from '../../src/core/config/schema-check';
import { cleanup, planYaml, runOnSim, SIM_BIN, tempDir } from '../support/runner';

/** SGLang's help as the simulator prints it, plus a flag only this snapshot knows (so the plan passes validation and preflight catches it). */
function snapshotWithExtraFlag(dir: string): string {
  const helpDir = path.join(dir, 'snapshots');
  mkdirSync(helpDir);
  const help = execFileSync(path.join(SIM_BIN, 'python'), ['-m', 'sglang.launch_server', '--help'], { env: { ...process.env, PATH: `${SIM_BIN}${path.delimiter}${process.env.PATH ?? ''}` }, encoding: 'utf8' });
  const marker = '  --max-running-requests MAX_RUNNING_REQUESTS\n';
  assert.ok(help.includes(marker));
  writeFileSync(path.join(helpDir, 'sglang_launch_server.txt'), help.replace(marker, `  --made-up-flag MADE_UP_FLAG\n                        Only this snapshot lists it.\n${marker}`));
  return helpDir;
}

// Two scenarios under one E2E limit: 8 output tokens finish well inside it, 1000 cannot (every decode step costs modelled time,
// and a loaded machine only makes the simulator slower).
const PLAN = planYaml({
  dataset: 'num_prompts: 6\nscenario_names: [tiny, long]\ninput_len: [32, 256]\noutput_len: [8, 1000]',
  benchmark: 'framework_set: [sglang, vllm, tensorrt_llm]\nrequest_rates: [inf]',
  sla: 'max_p50_e2e_ms: 3000\nmin_success_rate: 0.99',
  frameworks: {
    sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\nsearch_space:\n  made_up_flag: [1]',
    // Every candidate asks for more memory than the GPU has; c1 also names a dtype the CLI rejects.
    vllm: 'base_server_flags:\n  gpu_memory_utilization: 0.995\n  max_model_len: 4096\nsearch_space:\n  dtype: [bogus, auto]',
    tensorrt_llm: 'backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: trt\n  max_seq_len: 4096',
    tokenspeed: 'base_server_flags:\n  max_model_len: 4096',
  },
});

describe('runner on the simulated engine: every status', () => {
  test('ok, SLA-failing, skipped (unknown flag at preflight, unsupported backend, early stop), oom, failed at launch, user-excluded', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    try {
      const helpDir = snapshotWithExtraFlag(dir);
      const launched: Array<{ pid: number; cmdline: string[] }> = [];
      const run = await runOnSim(PLAN, {
        outDir: path.join(dir, 'run'),
        helpDir,
        // Statuses only: no repeats of the finalists (test/runner/verdicts.test.ts covers them).
        repeats: 0,
        // Every candidate launched (the grid): the adaptive strategy would skip some by prediction.
        strategy: 'grid',
        onEvent: (e) => {
          if (e.type === 'server' && e.state === 'ready' && e.pid && existsSync(`/proc/${e.pid}/cmdline`)) {
            launched.push({ pid: e.pid, cmdline: readFileSync(`/proc/${e.pid}/cmdline`, 'utf8').split('\0').filter(Boolean) });
          }
        },
      });
      assert.equal(run.result.status, 'completed');
      const rows = run.result.rows;
      const find = (fw: string, cand: string | undefined, scenario: string) => rows.filter((r) => r.framework === fw && r.candidate_id === cand && r.scenario === scenario);

      // sglang baseline: measured in both scenarios, one passing the SLA, one failing it.
      const [tiny] = find('sglang', 'baseline', 'tiny');
      const [long] = find('sglang', 'baseline', 'long');
      assert.equal(tiny?.status, 'ok');
      assert.equal(tiny?.sla?.passed, true, JSON.stringify(tiny?.sla));
      assert.ok((tiny?.metrics?.request_throughput ?? 0) > 0);
      assert.equal(long?.status, 'ok');
      assert.equal(long?.sla?.passed, false);
      assert.match(long?.sla?.reasons?.join('; ') ?? '', /p50 E2E [\d.]+ ms > 3000 ms/);

      // sglang c1: its flag is in the plan's snapshot but not in the CLI's own --help.
      const [c1] = find('sglang', 'c1', 'tiny');
      assert.equal(c1?.status, 'skipped');
      assert.match(c1?.failure_reason ?? '', /unknown flag 'made_up_flag' \(not in the captured sglang_launch_server\.txt\)/);

      // vllm: baseline out of memory, c1 rejected by the CLI, then the framework stops early.
      const [oom] = find('vllm', 'baseline', 'tiny');
      assert.equal(oom?.status, 'oom');
      assert.match(oom?.failure_reason ?? '', /out of memory: .*gpu-memory-utilization/i);
      const log = path.join(run.outDir, oom?.artifacts?.server_log ?? 'missing');
      assert.match(readFileSync(log, 'utf8'), /less than desired GPU memory utilization/);
      const [bad] = find('vllm', 'c1', 'tiny');
      assert.equal(bad?.status, 'failed');
      assert.match(bad?.failure_reason ?? '', /rejected its command line: .*invalid choice: 'bogus'/);
      const [early] = find('vllm', 'c2', 'long');
      assert.equal(early?.status, 'skipped');
      assert.match(early?.failure_reason ?? '', /stopped early/);

      const [trt] = find('tensorrt_llm', 'baseline', 'tiny');
      assert.equal(trt?.status, 'skipped');
      assert.match(trt?.failure_reason ?? '', /^unsupported: /);
      const [excluded] = find('tokenspeed', undefined, 'tiny');
      assert.equal(excluded?.status, 'user_excluded');

      // Every row is a schema-valid, simulated row; every (framework, candidate, scenario) has one.
      for (const r of rows) {
        assert.deepEqual(validateJson('result-row', r), [], JSON.stringify(r));
        assert.equal(r.simulated, true);
        assert.match(r.hardware?.gpu_model ?? '', /\(simulated\)$/);
      }
      assert.equal(rows.length, 2 * (2 + 3 + 1 + 1));

      // The servers ran the candidate's exact command line.
      const check = checkConfigText(PLAN, { kind: 'auto' });
      const baselineArgv = check.candidateLists.find((p) => p.framework === 'sglang')?.candidates[0]?.argv ?? [];
      assert.equal(tiny?.server_command, check.candidateLists.find((p) => p.framework === 'sglang')?.candidates[0]?.command);
      if (process.platform === 'linux') assert.ok(launched.length > 0, 'server pids seen');
      if (launched.length) assert.ok(launched.some((l) => l.cmdline.slice(-baselineArgv.length + 3).join(' ') === baselineArgv.slice(3).join(' ')), JSON.stringify(launched));

      // Artifacts: captured help and versions, manifest, raw trial output, the three summaries.
      const manifest = JSON.parse(readFileSync(path.join(run.outDir, 'manifest.json'), 'utf8')) as { simulated: boolean; status: string; frameworks: { sglang: { version: { version: string }; smoke: { ok: boolean } } } };
      assert.equal(manifest.simulated, true);
      assert.equal(manifest.status, 'completed');
      // The simulator answers with the release it stands in for, as the engine would; the manifest says it was simulated.
      assert.equal(manifest.frameworks.sglang.version.version, '0.5.7');
      assert.ok(existsSync(path.join(run.outDir, 'help', 'sglang_launch_server.txt')));
      assert.ok(existsSync(path.join(run.outDir, 'help', 'vllm_serve_all.txt')));
      assert.ok(existsSync(path.join(run.outDir, tiny?.artifacts?.raw_result ?? 'missing')));
      assert.equal(manifest.frameworks.sglang.smoke.ok, true);
      const md = readFileSync(path.join(run.outDir, 'summary.md'), 'utf8');
      assert.match(md, /Simulated/);
      assert.ok(existsSync(path.join(run.outDir, 'summary.csv')));
    } finally {
      cleanup(dir);
    }
  });

  test('a server that never answers within the health timeout is a timeout, with its log tail', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    try {
      const plan = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' } });
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), simExtraOptions: '--sim-startup-delay 30', healthTimeoutS: 1, skipSmoke: true });
      const row = run.result.rows.find((r) => r.framework === 'vllm');
      assert.equal(row?.status, 'timeout');
      assert.match(row?.failure_reason ?? '', /no answer to GET \/v1\/models within 1 s.*KV cache/);
    } finally {
      cleanup(dir);
    }
  });
});
