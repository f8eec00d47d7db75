// `autobench doctor --target slurm` on the test cluster (its node reached at a NodeAddr that is not loopback, the
// simulator's CLIs on the node): one job placed to look inside, problems planted on the node and reported with their fix.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { oldNodeShims } from '../support/sshd';
import { clientBundle, planYaml, SIM_BIN, simBundle } from '../support/runner';
import { cancelJobs, ensureSlurm, jobPrefix, liveJobs, runFolders, type SlurmCluster } from '../support/slurm';
import { runDoctor, type DoctorCheck, type DoctorReport } from '../../src/runner/doctor';

const PREFIX = jobPrefix('doctor-slurm');

function check(r: DoctorReport, scope: string, name: string): DoctorCheck {
  const c = r.sections.find((s) => s.scope === scope)?.checks.find((x) => x.name === name);
  assert.ok(c, `no ${scope}/${name} check in ${JSON.stringify(r, null, 1)}`);
  return c;
}

describe('autobench doctor on the Slurm test cluster', { timeout: 300_000 }, () => {
  let cluster: SlurmCluster;
  let dir = '';
  const { outDir, cleanupAll } = runFolders(PREFIX);
  before(async () => {
    cluster = await ensureSlurm();
    process.env.AUTOBENCH_CLIENT_JS = await clientBundle();
    dir = mkdtempSync(path.join(tmpdir(), 'autobench-doctor-slurm-'));
  });
  after(async () => {
    delete process.env.AUTOBENCH_CLIENT_JS;
    await cancelJobs(PREFIX);
    cleanupAll();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a CLI not on PATH, a keyword-search help, a plan flag it does not list, a GPU in use, Node 18, a --host 127.0.0.1 the login host cannot reach; the runner's own --host 0.0.0.0 for SGLang said", async () => {
    assert.doesNotMatch(cluster.nodeAddr, /^127\./, 'the test cluster must reach its node at an address that is not loopback');
    const bin = path.join(dir, 'fake-bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'nvidia-smi'), `#!/bin/sh\ncase "$1" in\n  --query-gpu=*) echo '0, GPU-cccc, NVIDIA H100 80GB HBM3, 52000, 81559, 99, 550.54.15' ;;\n  --query-compute-apps=*) echo 'GPU-cccc, 999, python3, 51000' ;;\nesac\n`);
    chmodSync(path.join(bin, 'nvidia-smi'), 0o755);
    const old = oldNodeShims(dir, process.execPath);
    const planText = planYaml({
      frameworks: {
        vllm: 'base_server_flags:\n  max_model_len: 4096\n  nnodes: 1\n  host: 127.0.0.1',
        sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096',
        tensorrt_llm: 'server_command: trtllm-nowhere serve\nbackend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096',
      },
    });
    const baseEnv: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${bin}:${old}:${process.env.PATH ?? ''}`,
      AUTOBENCH_NODE: path.join(old, 'node'),
      AUTOBENCH_SIM_JS: await simBundle(),
      AUTOBENCH_SIM_OPTS: '--sim-version 0.10.2',
    };
    delete baseEnv.CUDA_VISIBLE_DEVICES;
    const r = await runDoctor({
      planText,
      planPath: path.join(dir, 'plan.yaml'),
      target: 'slurm',
      simOnNodes: true,
      baseEnv,
      outDir: outDir('doctor'),
      simBinDir: SIM_BIN,
    });
    assert.equal(r.ok, false);
    assert.equal(r.host, cluster.node, 'the checks ran in a job on the node');
    const cli = check(r, 'tensorrt_llm', 'cli');
    assert.equal(cli.status, 'problem');
    assert.match(cli.fix ?? '', /install TensorRT-LLM/);
    assert.match(check(r, 'vllm', 'help').detail, /passed over: vllm serve --help=all: a keyword search/);
    const flags = check(r, 'vllm', 'plan-flags');
    assert.equal(flags.status, 'problem');
    assert.match(flags.detail, /'nnodes'/);
    const gpus = check(r, 'target', 'gpus');
    assert.equal(gpus.status, 'problem', gpus.detail);
    assert.match(gpus.detail, /runs pid 999/);
    const node = check(r, 'target', 'node');
    assert.equal(node.status, 'warn');
    assert.match(node.detail, /found v18\.19\.0/);
    // SGLang binds 127.0.0.1 by default: the runner adds --host 0.0.0.0, and the login host reaches the listener at NodeAddr.
    assert.match(check(r, 'sglang', 'bind').detail, /binds 0\.0\.0\.0 \(the runner adds --host 0\.0\.0\.0: sglang alone would bind 127\.0\.0\.1\); reached from the login host, at the node's address/);
    const ok = check(r, 'sglang', 'reach');
    assert.equal(ok.status, 'ok', ok.detail);
    assert.match(ok.detail, new RegExp(`\\(${cluster.nodeAddr.replace(/\./g, '\\.')}:\\d+\\): reached`));
    // vLLM's own --host 127.0.0.1 is kept: unreachable from the login host.
    const reach = check(r, 'vllm', 'reach');
    assert.equal(reach.status, 'problem', reach.detail);
    assert.match(reach.detail, /answers only on its own node/);
    assert.match(reach.fix ?? '', /host: 0\.0\.0\.0/);
    assert.deepEqual(await liveJobs(PREFIX), [], 'the job doctor placed is released');
  });
});
