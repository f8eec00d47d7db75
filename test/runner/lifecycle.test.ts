import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { newSearch, nextRate, recordRound } from '../../src/runner/rate-search';
import { captureHelpSnapshots, type RunEvent } from '../../src/runner';
import { loadSnapshotFlags } from '../../src/core/config/snapshot-flags';
import { REPO } from '../support/runner';
import { cleanup, filesUnder, groupAlive, planYaml, readRowsFile, runOnSim, simBundle, tempDir } from '../support/runner';

const FAKE_TOKEN = 'hf_FakeTokenForTheRunnerTest0123456789';

describe('runner lifecycle on the simulated engine', () => {
  test('the rate search records every round as a row, and the rounds are the bisection of their own verdicts', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    try {
      const plan = planYaml({
        dataset: 'num_prompts: 6\nscenario_names: [long]\ninput_len: [64]\noutput_len: [400]',
        benchmark: 'request_rates: null\nqps: {lower: 0, upper: 40, tolerance: 0.5, max_rounds: 4}',
        // 400 output tokens cannot finish under 1.5 s: every round fails, so the search probes the upper bound, then bisects down max_rounds times.
        sla: 'max_p50_e2e_ms: 1500',
        frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' },
      });
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid' });
      const rounds = run.result.rows.filter((r) => r.framework === 'vllm');
      assert.deepEqual(rounds.map((r) => r.trial?.rate), [40, 20, 10, 5, 2.5]);
      const cfg = { lower: 0, upper: 40, tolerance: 0.5, relTolerance: 0.02, maxRounds: 4 };
      const state = newSearch();
      for (const r of rounds) {
        assert.equal(r.status, 'ok');
        assert.equal((r.trial as { mode?: string }).mode, 'search');
        assert.equal(r.trial?.round, state.rounds.length + 1);
        assert.equal(r.trial?.rate, nextRate(cfg, state));
        assert.equal(r.workload?.request_rate, r.trial?.rate);
        recordRound(state, r.trial?.rate as number, r.sla?.passed === true);
      }
      assert.equal(nextRate(cfg, state), undefined, 'the search ended where the rows end');
      const manifest = JSON.parse(readFileSync(path.join(run.outDir, 'manifest.json'), 'utf8')) as { frameworks: { vllm: { searches: Record<string, string> } } };
      assert.match(Object.values(manifest.frameworks.vllm.searches)[0] ?? '', /no rate met the SLA after 5 rounds \(max-rounds; not closed: nothing passes, 2\.5 fails after 4 bisection rounds/);
    } finally {
      cleanup(dir);
    }
  });

  for (const named of [true, false]) {
    test(`HF_TOKEN ${named ? 'named (secretEnv) reaches the server by name' : 'set but not named reaches no server'}, and no artifact file contains its value`, { timeout: 60_000 }, async () => {
      const dir = tempDir();
      try {
        const plan = planYaml({ frameworks: { sglang: 'base_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096' } });
        let environ = '';
        const run = await runOnSim(plan, {
          outDir: path.join(dir, 'run'),
          baseEnv: { ...process.env, HF_TOKEN: FAKE_TOKEN, AUTOBENCH_SIM_JS: await simBundle(), AUTOBENCH_NODE: process.execPath },
          secrets: (name) => (name === 'HF_TOKEN' ? FAKE_TOKEN : undefined),
          ...(named ? { secretEnv: ['HF_TOKEN'] } : {}),
          onEvent: (e: RunEvent) => {
            if (e.type === 'server' && e.state === 'ready' && e.pid && existsSync(`/proc/${e.pid}/environ`)) environ = readFileSync(`/proc/${e.pid}/environ`, 'utf8');
          },
        });
        assert.equal(run.result.status, 'completed');
        if (process.platform === 'linux') {
          assert.ok(environ.length > 0, 'the server was seen');
          assert.equal(environ.split('\0').includes(`HF_TOKEN=${FAKE_TOKEN}`), named, named ? 'the server got the token in its environment' : 'an unnamed token reached the server');
        }
        const files = filesUnder(run.outDir);
        assert.ok(files.length > 8);
        for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes(FAKE_TOKEN), `${f} holds the token`);
      } finally {
        cleanup(dir);
      }
    });
  }

  test('cancel mid-trial: the server group is gone, finished rows are kept, the run says cancelled', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    try {
      const plan = planYaml({
        dataset: 'num_prompts: 40\nscenario_names: [a, b]\ninput_len: [64, 64]\noutput_len: [16, 2000]',
        benchmark: 'request_rates: [inf]',
        frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' },
      });
      const ac = new AbortController();
      let pid = 0;
      const run = await runOnSim(plan, {
        outDir: path.join(dir, 'run'),
        skipSmoke: true,
        signal: ac.signal,
        onEvent: (e) => {
          if (e.type === 'server' && e.state === 'ready' && e.pid) pid = e.pid;
          // Scenario a finishes and is a row; cancel once scenario b's requests are streaming.
          if (e.type === 'trial-progress' && e.scenario === 'b' && e.completed + e.failed < e.total) ac.abort();
        },
      });
      assert.equal(run.result.status, 'cancelled');
      assert.ok(pid > 0);
      assert.equal(groupAlive(pid), false, `server group ${pid} still alive`);
      const rows = readRowsFile(run.outDir);
      assert.deepEqual(rows.filter((r) => r.framework === 'vllm').map((r) => r.scenario), ['a']);
      const manifest = JSON.parse(readFileSync(path.join(run.outDir, 'manifest.json'), 'utf8')) as { status: string };
      assert.equal(manifest.status, 'cancelled');
      assert.ok(existsSync(path.join(run.outDir, 'summary.md')));
    } finally {
      cleanup(dir);
    }
  });

  test('capture help snapshots from a target: files validate --help-dir reads, one per framework the plan does not leave out', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    try {
      const planPath = path.join(REPO, 'configs/examples/demo.plan.yaml');
      const got = await captureHelpSnapshots({ planText: readFileSync(planPath, 'utf8'), planPath, target: 'sim', dir, baseEnv: { ...process.env, AUTOBENCH_SIM_JS: await simBundle(), AUTOBENCH_NODE: process.execPath } });
      assert.deepEqual(got.map((g) => [g.framework, g.ok]), [['sglang', true], ['vllm', true], ['tensorrt_llm', true]]);
      assert.match(got.find((g) => g.framework === 'vllm')?.command ?? '', /^vllm serve --help=all$/);
      const flags = loadSnapshotFlags(dir).flags;
      assert.equal(flags.vllm?.source, 'snapshot');
      assert.ok((flags.vllm?.flags.length ?? 0) > 50);
      assert.equal(flags.sglang?.source, 'snapshot');
      assert.equal(flags.tensorrt_llm?.source, 'snapshot');
    } finally {
      cleanup(dir);
    }
  });
});
