import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import * as path from 'node:path';
import { cleanup, cliBundle, planYaml, SIM_BIN, simBundle, tempDir } from '../support/runner';
import { freePort } from '../../src/runner/target';

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'problem';
  detail: string;
  fix?: string;
}
interface Report {
  target: string;
  ok: boolean;
  sections: Array<{ scope: string; checks: Check[] }>;
}

let cli = '';
let simJs = '';
let work = '';

/** The built CLI as a user runs it: `node dist/cli.js doctor ... --json`, in an environment of the test's making. */
function doctor(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{
  code: number | null;
  report: Report | undefined;
  stdout: string;
  stderr: string;
}> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cli, 'doctor', ...args], {
      env: {
        ...env,
        AUTOBENCH_SIM_JS: simJs,
        AUTOBENCH_NODE: process.execPath,
        NO_COLOR: '1',
      },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => {
      let report: Report | undefined;
      try {
        report = JSON.parse(stdout) as Report;
      } catch {
        report = undefined;
      }
      resolve({ code, report, stdout, stderr });
    });
  });
}

function check(r: Report | undefined, scope: string, name: string): Check {
  const c = r?.sections.find((s) => s.scope === scope)?.checks.find((x) => x.name === name);
  assert.ok(c, `no ${scope}/${name} check in ${JSON.stringify(r, null, 1)}`);
  return c;
}

function writePlan(name: string, frameworks: Parameters<typeof planYaml>[0]['frameworks']): string {
  const file = path.join(work, name);
  writeFileSync(file, planYaml({ frameworks }));
  return file;
}

/** A folder of fake host programs: nvidia-smi printing the given CSV, a trtllm-serve whose --help lists no flag. */
function fakeBin(gpuCsv: string, appsCsv: string): string {
  const dir = path.join(work, `bin-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  const smi = `#!/bin/sh\ncase "$1" in\n  --query-gpu=*) printf '%s\\n' '${gpuCsv}' ;;\n  --query-compute-apps=*) printf '%s' '${appsCsv}' ;;\nesac\n`;
  writeFileSync(path.join(dir, 'nvidia-smi'), smi);
  writeFileSync(path.join(dir, 'trtllm-serve'), '#!/bin/sh\necho "Usage: trtllm-serve [OPTIONS] COMMAND"\nexit 0\n');
  chmodSync(path.join(dir, 'nvidia-smi'), 0o755);
  chmodSync(path.join(dir, 'trtllm-serve'), 0o755);
  return dir;
}

const VLLM = (extra: string) => `base_server_flags:\n  max_model_len: 4096${extra}`;

describe('autobench doctor on the simulator and the local host (the built CLI)', () => {
  before(async () => {
    [cli, simJs] = await Promise.all([cliBundle(), simBundle()]);
    work = tempDir('autobench-doctor-test-');
  });
  after(() => cleanup(work));

  test('the simulator, no plan: the CLI, its version, its help, the port, the bind address and the reach all ok; exit 0', { timeout: 120_000 }, async () => {
    const r = await doctor(['--frameworks', 'vllm', '--json'], process.env);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    for (const name of ['cli', 'version', 'help', 'port', 'bind', 'reach']) assert.equal(check(r.report, 'vllm', name).status, 'ok', name);
    assert.match(check(r.report, 'vllm', 'version').detail, /^\d+\.\d+\.\d+ \(read with `vllm --version`\)/);
    assert.match(check(r.report, 'vllm', 'help').detail, /^\d+ flags \(vllm serve --help=all/);
    assert.equal(
      r.report?.sections.some((s) => s.scope === 'sglang'),
      false,
      '--frameworks vllm checks vLLM only',
    );
  });

  test('the simulator with a plan: a CLI not on PATH, a plan flag the help does not list and a --host the client cannot reach, each a problem with its fix; exit 1', { timeout: 120_000 }, async () => {
    const plan = writePlan('sim-plan.yaml', {
      vllm: VLLM('\n  nnodes: 1\n  host: 127.0.0.2'),
      sglang: 'server_command: sglang-nowhere serve\nbase_server_flags:\n  context_length: 4096',
    });
    // vLLM 0.11.0 has no --nnodes (it came in 0.11.2): its --help=all does not list it.
    const r = await doctor([plan, '--json'], {
      ...process.env,
      AUTOBENCH_SIM_OPTS: '--sim-version 0.11.0',
    });
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.equal(r.report?.ok, false);
    const cliCheck = check(r.report, 'sglang', 'cli');
    assert.equal(cliCheck.status, 'problem');
    assert.match(cliCheck.detail, /'sglang-nowhere' is not on the PATH/);
    assert.match(cliCheck.fix ?? '', /install SGLang .*server_command/);
    const flags = check(r.report, 'vllm', 'plan-flags');
    assert.equal(flags.status, 'problem', flags.detail);
    assert.match(flags.detail, /'nnodes'/);
    assert.match(flags.fix ?? '', /frameworks\.vllm/);
    assert.match(check(r.report, 'vllm', 'bind').detail, /binds 127\.0\.0\.2 \(the candidate's --host\)/);
    const reach = check(r.report, 'vllm', 'reach');
    assert.equal(reach.status, 'problem');
    assert.match(reach.detail, /127\.0\.0\.1:\d+\): ECONNREFUSED/);
    assert.match(reach.fix ?? '', /host: 0\.0\.0\.0/);
  });

  test("the simulator as vLLM 0.10.2: --help=all's keyword search is named and passed over for --help", { timeout: 120_000 }, async () => {
    const r = await doctor(['--frameworks', 'vllm', '--json'], {
      ...process.env,
      AUTOBENCH_SIM_OPTS: '--sim-version 0.10.2',
    });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const help = check(r.report, 'vllm', 'help');
    assert.equal(help.status, 'ok');
    assert.match(help.detail, /vllm serve --help: .*passed over: vllm serve --help=all: a keyword search/);
  });

  test('the local host: busy and missing GPUs, a port in use and a CLI whose help lists no flag, each reported with its fix', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((res) => holder.listen(port, '0.0.0.0', res));
    try {
      const bin = fakeBin('0, GPU-aaaa, NVIDIA H100 80GB HBM3, 30000, 81559, 97, 550.54.15', 'GPU-aaaa, 4242, python3, 29000\n');
      const plan = writePlan('local-plan.yaml', {
        vllm: VLLM(`\n  port: ${port}`),
        tensorrt_llm: `backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096\n  port: ${await freePort()}`,
      });
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PATH: `${bin}:${SIM_BIN}:${process.env.PATH ?? ''}`,
      };
      delete env.CUDA_VISIBLE_DEVICES;
      const r = await doctor([plan, '--target', 'local', '--gpus', '0', '--json'], env);
      assert.equal(r.code, 1, r.stderr + r.stdout);
      const gpus = check(r.report, 'target', 'gpus');
      assert.equal(gpus.status, 'problem');
      assert.match(gpus.detail, /CUDA_VISIBLE_DEVICES=\(unset\); wanted GPU 0; nvidia-smi: 0: NVIDIA H100 80GB HBM3, 30000\/81559 MiB used; GPU 0 runs pid 4242/);
      assert.match(gpus.fix ?? '', /stop the processes/);
      const p = check(r.report, 'vllm', 'port');
      assert.equal(p.status, 'problem');
      assert.match(p.detail, new RegExp(`port ${port} on localhost is in use`));
      assert.match(p.fix ?? '', /port: N in frameworks\.vllm\.base_server_flags/);
      const help = check(r.report, 'tensorrt_llm', 'help');
      assert.equal(help.status, 'warn');
      assert.match(help.detail, /no flag list captured/);
      assert.match(help.fix ?? '', /--help-dir/);
      assert.equal(check(r.report, 'target', 'client').status, 'ok');
      // GPU 3 is not on the host: missing, never changed to fit.
      const missing = await doctor([plan, '--target', 'local', '--gpus', '3', '--frameworks', 'tensorrt_llm', '--json'], env);
      const g = check(missing.report, 'target', 'gpus');
      assert.equal(g.status, 'problem');
      assert.match(g.detail, /GPU 3 requested but the host has 1 GPU/);
      assert.match(g.fix ?? '', /--gpus/);
    } finally {
      holder.close();
    }
  });

  test('usage errors exit 2; the text report names each problem and its fix', { timeout: 120_000 }, async () => {
    const bad = await doctor(['--target', 'mars'], process.env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--target must be sim, local, ssh:HOST or slurm/);
    const two = await doctor(['a.yaml', 'b.yaml'], process.env);
    assert.equal(two.code, 2);
    const plan = writePlan('text-plan.yaml', {
      sglang: 'server_command: sglang-nowhere serve\nbase_server_flags:\n  context_length: 4096',
    });
    const text = await doctor([plan], process.env);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /PROBLEM +cli +'sglang-nowhere' is not on the PATH[^\n]*\n +fix: install SGLang/);
    assert.match(text.stdout, /1 problem, \d+ warnings?: a run cannot start/);
  });
});
