// `autobench doctor` on the ssh test host (a real OpenSSH server on 127.0.0.1 whose sessions find the simulator's CLIs):
// one problem of each kind it checks planted on the host and reported with its fix.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import * as path from 'node:path';
import { skipWhenMissing } from '../support/requirements';
import { oldNodeShims, sshdMissing, startSshd, type Sshd } from '../support/sshd';
import { cleanup, clientBundle, planYaml, SIM_BIN, simBundle, tempDir } from '../support/runner';
import { freePort } from '../../src/runner/target';
import { runDoctor, type DoctorCheck, type DoctorReport } from '../../src/runner/doctor';

const skip = skipWhenMissing(sshdMissing());

function check(r: DoctorReport, scope: string, name: string): DoctorCheck {
  const c = r.sections.find((s) => s.scope === scope)?.checks.find((x) => x.name === name);
  assert.ok(c, `no ${scope}/${name} check in ${JSON.stringify(r, null, 1)}`);
  return c;
}

/** The host's own programs: nvidia-smi naming a process on GPU 0, and a vllm that is the simulator as vLLM 0.10.2 (its --help=all a keyword search). */
function hostBin(dir: string): string {
  const bin = path.join(dir, 'fake-bin');
  mkdirSync(bin);
  const smi = `#!/bin/sh\ncase "$1" in\n  --query-gpu=*) echo '0, GPU-bbbb, NVIDIA H100 80GB HBM3, 41000, 81559, 99, 550.54.15' ;;\n  --query-compute-apps=*) echo 'GPU-bbbb, 777, python3, 40000' ;;\nesac\n`;
  writeFileSync(path.join(bin, 'nvidia-smi'), smi);
  writeFileSync(path.join(bin, 'vllm'), `#!/bin/sh\nAUTOBENCH_SIM_OPTS='--sim-version 0.10.2' exec ${SIM_BIN}/vllm "$@"\n`);
  for (const f of ['nvidia-smi', 'vllm']) chmodSync(path.join(bin, f), 0o755);
  return bin;
}

describe('autobench doctor on the ssh test host', { skip }, () => {
  let sshd: Sshd;
  let dir = '';
  let configPath = '';
  let knownHostsPath = '';

  before(async () => {
    const js = await simBundle();
    process.env.AUTOBENCH_CLIENT_JS = await clientBundle();
    dir = tempDir('autobench-doctor-ssh-');
    // Node on the host says v18: too old for the load client (the shims still run the real node).
    const old = oldNodeShims(dir, process.execPath);
    sshd = await startSshd({
      extraConfig: `SetEnv PATH=${hostBin(dir)}:${SIM_BIN}:${old}:/usr/bin:/bin AUTOBENCH_SIM_JS=${js} XDG_CACHE_HOME=${path.join(dir, 'cache')}`,
    });
    configPath = sshd.writeConfig();
    knownHostsPath = path.join(dir, 'known_hosts');
    writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
  });

  after(async () => {
    delete process.env.AUTOBENCH_CLIENT_JS;
    await sshd?.close();
    cleanup(dir);
  });

  test('a CLI not on PATH, a keyword-search help, a plan flag it does not list, a busy GPU, Node 18, a port in use and a --host unreachable through the forward: each reported with its fix', { timeout: 240_000 }, async () => {
    const busyPort = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((res) => holder.listen(busyPort, '127.0.0.1', res));
    try {
      const planText = planYaml({
        frameworks: {
          // vLLM 0.10.2 has no --nnodes, and its --host names an address the forward (to the host's 127.0.0.1) never reaches.
          vllm: 'base_server_flags:\n  max_model_len: 4096\n  nnodes: 1\n  host: 127.0.0.3',
          sglang: 'server_command: sglang-nowhere serve\nbase_server_flags:\n  context_length: 4096',
          tensorrt_llm: `backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096\n  port: ${busyPort}`,
        },
      });
      const r = await runDoctor({
        planText,
        planPath: path.join(dir, 'plan.yaml'),
        target: 'ssh:sshd-test',
        ssh: { configPath, knownHostsPath, agent: false },
        gpus: [0],
      });
      assert.equal(r.ok, false);
      assert.equal(r.host, 'sshd-test');
      const cli = check(r, 'sglang', 'cli');
      assert.equal(cli.status, 'problem');
      assert.match(cli.detail, /'sglang-nowhere' is not on the PATH of sshd-test/);
      assert.match(cli.fix ?? '', /install SGLang/);
      assert.match(check(r, 'vllm', 'version').detail, /^0\.10\.2 /);
      assert.match(check(r, 'vllm', 'help').detail, /passed over: vllm serve --help=all: a keyword search/);
      const flags = check(r, 'vllm', 'plan-flags');
      assert.equal(flags.status, 'problem');
      assert.match(flags.detail, /'nnodes'/);
      const gpus = check(r, 'target', 'gpus');
      assert.equal(gpus.status, 'problem');
      assert.match(gpus.detail, /GPU 0 runs pid 777 \(python3, 40000 MiB\)/);
      const node = check(r, 'target', 'node');
      assert.equal(node.status, 'warn', 'without Node >= 20 the client runs here through the forward: a run can still start');
      assert.match(node.detail, /no Node >= 20 on the host \(found v18\.19\.0/);
      assert.match(node.fix ?? '', /install Node >= 20 .*AUTOBENCH_BRING_NODE=1/);
      const port = check(r, 'tensorrt_llm', 'port');
      assert.equal(port.status, 'problem');
      assert.match(port.detail, new RegExp(`port ${busyPort} on sshd-test is in use`));
      assert.match(check(r, 'vllm', 'bind').detail, /binds 127\.0\.0\.3 \(the candidate's --host\); reached from here through the ssh port forward/);
      const reach = check(r, 'vllm', 'reach');
      assert.equal(reach.status, 'problem', reach.detail);
      assert.match(reach.fix ?? '', /host: 0\.0\.0\.0 in frameworks\.vllm\.base_server_flags/);
    } finally {
      holder.close();
    }
  });
});
