// The GPUs of a local/ssh launch (audit #9, issue 25 Build 4): every launch is pinned to the run's GPU ids (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER=PCI_BUS_ID), the default ids come from the host's own CUDA_VISIBLE_DEVICES, and after a stop the next launch waits for nvidia-smi to show the GPUs free, else fails naming the process that holds them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LocalExecutor } from '../../src/exec';
import { gpusFreeBeforeLaunch } from '../../src/runner/gpu-env';
import { gpuIdsOf, hostVisibleDevices } from '../../src/runner/gpu-ids';
import { launchServer, stopServer } from '../../src/runner/server';
import { freePort, openTarget } from '../../src/runner/target';
import { tempDir } from '../support/runner';

/** An nvidia-smi that reads its compute apps from a state file (empty: nothing runs). */
function fakeSmi(dir: string, state: string): string {
  const bin = path.join(dir, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  const gpus = ['0, GPU-aaaa, NVIDIA H100 80GB HBM3, 3, 81559, 0, 550.54.15', '1, GPU-bbbb, NVIDIA H100 80GB HBM3, 3, 81559, 0, 550.54.15'];
  writeFileSync(path.join(bin, 'nvidia-smi'), `#!/bin/sh\ncase "$1" in\n  --query-gpu=*) printf '%s\\n' '${gpus.join("' '")}' ;;\n  --query-compute-apps=*) cat '${state}' 2>/dev/null ;;\nesac\n`);
  chmodSync(path.join(bin, 'nvidia-smi'), 0o755);
  return bin;
}

/** A server that answers /v1/models and writes the CUDA variables it was started with. */
const SERVER_JS = `const fs=require('fs');fs.writeFileSync(process.argv[3], JSON.stringify({v:process.env.CUDA_VISIBLE_DEVICES,o:process.env.CUDA_DEVICE_ORDER}));
require('http').createServer((q,s)=>{s.setHeader('content-type','application/json');s.end(JSON.stringify({data:[{id:'m'}]}));}).listen(+process.argv[2],'127.0.0.1');`;

describe('GPUs of local and ssh launches', () => {
  test('the default GPU ids are the host session\'s CUDA_VISIBLE_DEVICES, read through the executor', async () => {
    const ex = new LocalExecutor({ baseEnv: { ...process.env, CUDA_VISIBLE_DEVICES: '2,3' } });
    const seen = await hostVisibleDevices(ex);
    assert.equal(seen, '2,3');
    assert.deepEqual(gpuIdsOf(undefined, seen, 1), [2, 3]);
    assert.deepEqual(gpuIdsOf([5], seen, 1), [5], '--gpus wins');
    assert.deepEqual(gpuIdsOf(undefined, undefined, 2), [0, 1]);
    const unset = { ...process.env };
    delete unset.CUDA_VISIBLE_DEVICES;
    assert.equal(await hostVisibleDevices(new LocalExecutor({ baseEnv: unset })), undefined);
  });

  test('a launch is pinned to the GPUs; after a stop, a GPU still held fails the next launch with the holder', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const state = path.join(dir, 'apps.csv');
    const js = path.join(dir, 'server.js');
    writeFileSync(js, SERVER_JS);
    const baseEnv = { ...process.env, PATH: `${fakeSmi(dir, state)}${path.delimiter}${process.env.PATH ?? ''}` };
    const target = await openTarget({ target: 'local', baseEnv } as unknown as Parameters<typeof openTarget>[0], () => undefined);
    try {
      target.gpus = [1];
      target.gpusWatched = true;
      // As runner/candidate.ts launch() does: the GPUs checked free, then the server started.
      const launch = async (name: string) => {
        const held = await gpusFreeBeforeLaunch(target, undefined, 300);
        if (held) return { ok: false as const, status: 'failed' as const, reason: held };
        const port = await freePort();
        return launchServer(target, { framework: 'vllm', argv: [process.execPath, js, String(port), path.join(dir, `${name}.json`)], flags: { port }, logFile: path.join(dir, `${name}.log`), secretEnv: [], healthTimeoutMs: 20_000, stopGraceMs: 1000, signal: undefined });
      };
      assert.equal(await gpusFreeBeforeLaunch(target, undefined, 300), undefined, 'nothing stopped yet: no check');
      const a = await launch('a');
      assert.ok(a.ok, JSON.stringify(a));
      assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'a.json'), 'utf8')), { v: '1', o: 'PCI_BUS_ID' });
      await stopServer(a.server, 1000);
      // What a TRT-LLM worker that outlived its server looks like to nvidia-smi.
      writeFileSync(state, 'GPU-bbbb, 4242, orted-worker, 20950\n');
      const b = await launch('b');
      assert.equal(b.ok, false);
      assert.ok(!b.ok && b.status === 'failed');
      assert.match(b.ok ? '' : b.reason, /not free after the previous server stopped.*GPU 1 runs pid 4242 \(orted-worker, 20950 MiB\)/);
      rmSync(state);
      const c = await launch('c');
      assert.ok(c.ok, JSON.stringify(c));
      await stopServer(c.server, 1000);
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
