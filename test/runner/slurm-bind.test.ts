// --target slurm where the node is reached at a NodeAddr that is not loopback (the test cluster's network namespaces):
// SGLang and TensorRT-LLM, which bind loopback by default, are launched with --host 0.0.0.0 and measured, smoke
// included (audit #1); a TensorRT-LLM server leaves nothing on the node after its stop or a cancel, its orted child
// in a process group of its own included.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../src/runner';
import { planYaml, runOnSim, simBundle } from '../support/runner';
import { jobPrefix, liveJobs, nodeProcesses, simProcesses, type SlurmCluster, slurmSuite } from '../support/slurm';

const PREFIX = jobPrefix('slurm-bind');

const PLAN = planYaml({
  dataset: 'num_prompts: 8\nscenario_names: [chat]\ninput_len: [128]\noutput_len: [16]',
  benchmark: 'framework_set: [sglang, tensorrt_llm]\nrequest_rates: [inf]',
  frameworks: {
    sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096',
    tensorrt_llm: 'backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096',
  },
});

const jobsOf = (out: string): string[] => (JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { slurm: { jobs: Array<{ job_id: string }> } }).slurm.jobs.map((j) => j.job_id);

describe('--target slurm at a non-loopback NodeAddr: engines that bind loopback by default', { timeout: 600_000 }, () => {
  const suite = slurmSuite(PREFIX);
  const outDir = suite.outDir;
  let cluster: SlurmCluster;
  before(() => {
    cluster = suite.cluster();
  });

  test('SGLang and TensorRT-LLM are launched with --host 0.0.0.0, pass the smoke from the login host and are measured; rows keep the command; nothing is left on the node', async () => {
    assert.doesNotMatch(cluster.nodeAddr, /^127\./, 'the test cluster must reach its node at an address that is not loopback');
    const out = outDir('measured');
    const { result, events } = await runOnSim(PLAN, { outDir: out, target: 'slurm', simOnNodes: true, maxParallel: 2, strategy: 'grid', repeats: 0, healthTimeoutS: 60 });
    assert.equal(result.status, 'completed', result.reason);
    for (const fw of ['sglang', 'tensorrt_llm']) {
      const ok = result.rows.filter((r) => r.framework === fw && r.status === 'ok');
      assert.ok(ok.length >= 1, `${fw}: ${JSON.stringify(result.rows.filter((r) => r.framework === fw).map((r) => `${r.status}: ${r.failure_reason ?? ''}`))}`);
      for (const r of ok) {
        assert.equal((r.hardware as { host?: string }).host, cluster.node);
        // The load client ran as a step on the node, against the server's 127.0.0.1 there (inside the node's namespace).
        assert.equal((r.client as { placement?: string }).placement, 'host', JSON.stringify(r.client));
        assert.doesNotMatch(String(r.server_command), /--host/, 'the row keeps the candidate command as the user wrote it');
      }
      const said = events.filter((e): e is Extract<RunEvent, { type: 'log' }> => e.type === 'log' && e.message.startsWith(`${fw} `) && e.message.includes('--host 0.0.0.0 added'));
      assert.ok(said.length >= 2, `${fw}: the smoke's and the candidate's launch each say what they added`);
    }
    assert.deepEqual(await liveJobs(PREFIX), []);
    assert.deepEqual(nodeProcesses(cluster.node, jobsOf(out)), [], 'a process of a stopped server is left on the node');
    assert.deepEqual(await simProcesses(await simBundle()), []);
  });

  test('cancel while TensorRT-LLM serves: no process of its server (orted and its worker included) is left on the node', async () => {
    const out = outDir('cancel');
    const ac = new AbortController();
    let ready = false;
    let seen: string[] = [];
    const onEvent = (e: RunEvent): void => {
      if (e.type === 'server' && e.state === 'ready' && e.framework === 'tensorrt_llm') {
        ready = true;
        // The scan below sees the server's tree on the node: its MPI daemon runs there now.
        seen = nodeProcesses(cluster.node).filter((p) => /\borted\b/.test(p));
      }
      if (ready && e.type === 'trial-progress' && !ac.signal.aborted) ac.abort();
    };
    const trt = planYaml({ frameworks: { tensorrt_llm: 'backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096' }, dataset: 'num_prompts: 200\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [256]' });
    const { result } = await runOnSim(trt, { outDir: out, target: 'slurm', simOnNodes: true, strategy: 'grid', repeats: 0, skipSmoke: true, simSpeed: 1, onEvent, signal: ac.signal });
    assert.equal(result.status, 'cancelled', result.reason);
    assert.ok(ready, 'the TensorRT-LLM server came up before the cancel');
    assert.ok(seen.length >= 1, 'an orted of the server ran on the node while it served');
    assert.deepEqual(await liveJobs(PREFIX), []);
    assert.deepEqual(nodeProcesses(cluster.node, jobsOf(out)), [], 'a process of the cancelled server is left on the node');
    assert.deepEqual(await simProcesses(await simBundle()), []);
  });
});
