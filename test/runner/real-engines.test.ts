// Issue 25 (real engines as they are), the runner side: what preflight read decides a multi-node vLLM launch (audit #6), SGLang's key file on a multi-node launch (audit #8) and the health wait of real servers (audit #16).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { LocalExecutor } from '../../src/exec';
import type { RunOptions as ExecRunOptions, RunResult } from '../../src/exec/types';
import { SlurmJobExecutor, type JobPlace } from '../../src/exec/slurm/job-executor';
import type { LocalExecutor as Local } from '../../src/exec/local';
import { removeKeyFile, spansNodes, writeKeyFile } from '../../src/runner/key-file';
import { SERVER_CONFIG_ENV } from '../../src/runner/run-secrets';
import { healthTimeoutS, REAL_HEALTH_TIMEOUT_S, RunContext } from '../../src/runner/context';
import { RunDir } from '../../src/runner/artifacts';
import type { Manifest } from '../../src/runner/run-manifest';
import { multiNodeUnsupported } from '../../src/exec/slurm/multinode';
import { readRunPlan } from '../../src/core/plan/build';
import { HELP } from '../support/fixtures';
import { planYaml } from '../support/runner';
import { cleanup, tempDir } from '../support/runner';

const CONFIG = JSON.stringify({ 'api-key': "k3y; 'x' $(y)" });

/** A login host that runs each srun step's command here (what follows `--`), recording the srun words. */
function loginHere(): { login: Local; steps: string[][] } {
  const local = new LocalExecutor({ secrets: (n) => (n === SERVER_CONFIG_ENV ? CONFIG : undefined) });
  const steps: string[][] = [];
  const login = {
    run(cmd: readonly string[], opts?: ExecRunOptions): Promise<RunResult> {
      steps.push([...cmd]);
      return local.run(cmd.slice(cmd.indexOf('--') + 1), opts);
    },
  } as unknown as Local;
  return { login, steps };
}

const place = (nodes: string[]): JobPlace => ({
  jobId: '42',
  node: nodes[0] as string,
  nodes,
  address: '10.0.0.7',
  ...(nodes.length > 1 ? { multiNode: { framework: 'sglang' as const, nodes: nodes.length, gpusPerNode: 4, headAddress: '10.0.0.7', port: 29500, serverArgv: ['python', '-m', 'sglang.launch_server'] } } : {}),
});

describe("audit #8: SGLang's --config key file on a launch that spans nodes", () => {
  test('multi-node: written 0600 under the run directory (which every node sees), then removed', async () => {
    const dir = tempDir();
    try {
      const { login, steps } = loginHere();
      const ex = new SlurmJobExecutor(login, place(['n1', 'n2']));
      assert.equal(spansNodes(ex), true);
      const shared = path.join(dir, 'run', 'keys');
      const k = await writeKeyFile(ex, shared);
      assert.ok(k.file.startsWith(`${shared}/key.`), k.file);
      assert.equal(readFileSync(k.file, 'utf8'), `${CONFIG}\n`);
      assert.equal(statSync(k.file).mode & 0o777, 0o600);
      assert.equal(statSync(k.dir).mode & 0o777, 0o700);
      assert.ok(!steps.flat().some((w) => w.includes('k3y')), 'the key never reaches an argv');
      assert.equal(await removeKeyFile(ex, k), undefined);
      assert.equal(existsSync(k.dir), false);
    } finally {
      cleanup(dir);
    }
  });

  test("one node: the host's own temp folder, as before (the run directory is not used)", async () => {
    const dir = tempDir();
    try {
      const { login } = loginHere();
      const ex = new SlurmJobExecutor(login, place(['n1']));
      assert.equal(spansNodes(ex), false);
      const k = await writeKeyFile(ex, path.join(dir, 'keys'));
      assert.ok(!k.file.startsWith(dir), k.file);
      assert.equal(existsSync(path.join(dir, 'keys')), false);
      await removeKeyFile(ex, k);
    } finally {
      cleanup(dir);
    }
  });
});

describe('audit #16: real servers get 1800 s to come up', () => {
  test('the default is 1800 s on real targets, 60 s on the simulator; --health-timeout wins', () => {
    assert.equal(REAL_HEALTH_TIMEOUT_S, 1800);
    for (const target of ['local', 'ssh', 'slurm', 'container']) assert.equal(healthTimeoutS({ target }), 1800, target);
    assert.equal(healthTimeoutS({ target: 'sim' }), 60);
    assert.equal(healthTimeoutS({ target: 'local', healthTimeoutS: 120 }), 120);
  });
});

describe("audit #6: the run's preflight capture reaches the multi-node decision", () => {
  test('a captured vLLM 0.11.0 help (no --nnodes) refuses the multi-node launch with the version; 0.11.2 allows it', () => {
    const dir = tempDir();
    try {
      const run = new RunDir(path.join(dir, 'run'));
      const plan = readRunPlan({ text: planYaml({ frameworks: { vllm: 'enabled: true\nserver_command: vllm serve' } }), path: path.join(dir, 'x.plan.yaml') });
      const stub = {} as never;
      const ctx = new RunContext({ target: 'slurm' } as never, plan, run, stub, { maxParallel: 1 } as never, stub, () => undefined, undefined);
      const facts = (version: string) => {
        mkdirSync(run.path('help'), { recursive: true });
        copyFileSync(path.join(HELP, 'vllm', `v${version}`, 'vllm_serve_all.txt'), run.path('help', `vllm-${version}.txt`));
        ctx.manifest = { frameworks: { vllm: { help: { command: 'vllm serve --help=all', file: `help/vllm-${version}.txt`, ok: true, detail: '' }, version: { command: 'vllm --version', version } } } } as unknown as Manifest;
        return ctx.cliFacts('vllm');
      };
      const argv = ['vllm', 'serve', 'm', '--tensor-parallel-size', '8'];
      assert.equal(multiNodeUnsupported('vllm', argv, facts('0.11.0')), 'vLLM 0.11.0 has no --nnodes (multi-node needs vLLM ≥ 0.11.2)');
      assert.equal(multiNodeUnsupported('vllm', argv, facts('0.11.2')), undefined);
    } finally {
      cleanup(dir);
    }
  });
});
