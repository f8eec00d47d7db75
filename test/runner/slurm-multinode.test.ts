// --target slurm across nodes on the real test cluster's two-node partition (n1, n2: two slurmd on this machine, 2 fake
// GPUs each) with the simulator's CLIs on the nodes: a 4-GPU candidate runs as one job on both nodes (--nodes=2, the
// framework's own multi-node launch under one srun step, both ranks joined), its rows validate, are simulated and name
// the nodes; an uneven split, TensorRT-LLM and multi_node: false are skipped with the reason; cancel leaves no job and
// no engine process on either node.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../src/runner';
import { cleanup, planYaml, runOnSim, simBundle, tempDir } from '../support/runner';
import { cancelJobs, ensureSlurm, jobPrefix, runCommand, type SlurmCluster } from '../support/slurm';
import { validateJson } from '../../src/core/config/schema-check';

const PREFIX = jobPrefix('slurm-mn');

/** SGLang at TP 4 (2 nodes × 2 GPUs: its baseline) and TP 3 (no even split), vLLM at TP 2 × PP 2 (two candidates), TensorRT-LLM at TP 4. */
const PLAN = planYaml({
  dataset: 'num_prompts: 12\nscenario_names: [chat]\ninput_len: [128]\noutput_len: [32]',
  benchmark: 'framework_set: [sglang, vllm, tensorrt_llm]\nrequest_rates: [4]',
  sla: 'max_p50_e2e_ms: 100000',
  frameworks: {
    sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\n  max_running_requests: 8\n  tp_size: 4\nsearch_space:\n  tp_size: [3]',
    vllm: 'base_server_flags:\n  max_model_len: 4096\n  tensor_parallel_size: 2\n  pipeline_parallel_size: 2\nsearch_space:\n  max_num_seqs: [8]',
    tensorrt_llm: 'backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096\n  tp_size: 4\nsearch_space:\n  max_batch_size: [8]',
  },
}).replace('  gpu_count: 1\n', '  multi_node: true\n');

interface JobRec {
  job_id: string;
  framework: string;
  candidate: string;
  purpose: string;
  state: string;
  node: string | null;
  nodes: string[];
  node_count: number;
  gpus: number;
  gpus_per_node: number;
}
const manifestOf = (out: string) => JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { slurm: { partition: string; jobs: JobRec[] } };

async function liveJobs(): Promise<string[]> {
  const q = await runCommand('squeue', ['-h', '-o', '%i|%j']);
  return q.stdout.split('\n').filter((l) => l.split('|')[1]?.startsWith(PREFIX));
}

async function simProcesses(): Promise<string[]> {
  const js = await simBundle();
  const r = await runCommand('ps', ['-eo', 'pid=,args=']);
  return r.stdout.split('\n').filter((l) => l.includes(js) && !l.includes(' ps '));
}

/** Every server log of a run, by its directory name. */
function serverLogs(out: string): Map<string, string> {
  const dir = path.join(out, 'servers');
  return new Map(readdirSync(dir).map((d) => [d, readFileSync(path.join(dir, d, 'server.log'), 'utf8')]));
}

describe('--target slurm across two nodes (real Slurm cluster, simulated engine on the nodes)', { timeout: 600_000 }, () => {
  let cluster: SlurmCluster;
  const dirs: string[] = [];
  before(async () => {
    cluster = await ensureSlurm();
  });
  after(async () => {
    await cancelJobs(PREFIX);
    dirs.forEach(cleanup);
  });
  const outDir = (name: string): string => {
    const d = tempDir();
    dirs.push(d);
    return path.join(d, `${PREFIX.replace(/^autobench-/, '')}${name}`);
  };
  const run = (plan: string, out: string, o: Parameters<typeof runOnSim>[1] = {}) =>
    runOnSim(plan, { outDir: out, target: `slurm:${cluster.twoNodes.partition}`, simOnNodes: true, maxParallel: 1, strategy: 'grid', repeats: 0, skipSmoke: true, ...o });

  test('a 4-GPU candidate is one job on both nodes, both ranks ran; uneven and TensorRT-LLM are skipped with the reason', async () => {
    assert.equal(cluster.twoNodes.gpusPerNode, 2, 'the two-node partition has 2 GPUs a node');
    const [head, second] = cluster.twoNodes.nodes as [string, string];
    const out = outDir('run');
    const { result } = await run(PLAN, out);
    assert.equal(result.status, 'completed', result.reason);
    const m = manifestOf(out);
    assert.equal(m.slurm.partition, cluster.twoNodes.partition);
    const jobs = m.slurm.jobs.filter((j) => j.purpose === 'search');
    assert.deepEqual(jobs.map((j) => `${j.framework} ${j.candidate}`).sort(), ['sglang baseline', 'vllm baseline', 'vllm c1'], JSON.stringify(m.slurm.jobs));
    for (const j of jobs) {
      assert.equal(j.state, 'COMPLETED', JSON.stringify(j));
      assert.deepEqual([j.node_count, j.gpus, j.gpus_per_node, j.nodes], [2, 4, 2, [head, second]], JSON.stringify(j));
    }
    // Slurm's own accounting: one allocation on both nodes with 2 GPUs each.
    const acct = await runCommand('sacct', ['-n', '-P', '-X', '-j', jobs.map((j) => j.job_id).join(','), '-o', 'JobID,NNodes,NodeList,AllocTRES']);
    for (const j of jobs) {
      const line = acct.stdout.split('\n').find((l) => l.startsWith(`${j.job_id}|`)) ?? '';
      const [, nnodes, nodeList, tres] = line.split('|');
      assert.equal(nnodes, '2', line);
      const names = await runCommand('scontrol', ['show', 'hostnames', nodeList ?? '']);
      assert.deepEqual(names.stdout.trim().split('\n'), [head, second], line);
      assert.match(tres ?? '', /gres\/gpu=4/, line);
    }
    for (const r of result.rows) {
      assert.deepEqual(validateJson('result-row', r), [], JSON.stringify(r));
      assert.equal(r.simulated, true);
    }
    const ok = result.rows.filter((r) => r.status === 'ok');
    assert.deepEqual([...new Set(ok.map((r) => r.framework))].sort(), ['sglang', 'vllm']);
    for (const r of ok) {
      const hw = r.hardware as { host: string; nodes: string[]; multi_node: boolean; slurm_job_id: string };
      assert.deepEqual([hw.host, hw.nodes, hw.multi_node], [head, [head, second], true], JSON.stringify(hw));
      assert.equal((r.client as { placement?: string }).placement, 'host', 'the client ran on the head node');
      const cmd = String(r.multi_node_command);
      assert.ok(cmd.startsWith(`${String(r.server_command)} --nnodes 2 --node-rank 0 `), cmd);
      assert.match(cmd, r.framework === 'vllm' ? / --master-addr 127\.0\.0\.1 --master-port \d+$/ : / --dist-init-addr 127\.0\.0\.1:\d+$/);
    }
    // Both ranks ran: the head took rank 1 at its rendezvous port, and rank 1 (on the second node, no HTTP) joined it.
    const logs = serverLogs(out);
    for (const fw of ['sglang', 'vllm']) {
      const log = [...logs].find(([d]) => d.startsWith(`${fw}-`) && !d.includes('smoke'))?.[1] ?? '';
      assert.match(log, /head \(rank 0 of 2\): node rank 1 joined/, `${fw} log:\n${log}`);
      assert.match(log, /node rank 1 of 2: joined the head at 127\.0\.0\.1:\d+/, `${fw} log:\n${log}`);
    }
    const skipped = result.rows.filter((r) => r.status === 'skipped').map((r) => `${String(r.framework)}: ${String(r.failure_reason)}`);
    assert.equal(skipped.length, 3, skipped.join('\n'));
    assert.ok(skipped.some((s) => /^sglang: .*3 GPUs do not split evenly over 2 nodes/.test(s)), skipped.join('\n'));
    assert.ok(skipped.some((s) => /^tensorrt_llm: .*needs 2 nodes of 2 GPUs; TensorRT-LLM runs across nodes as one MPI world/.test(s)), skipped.join('\n'));
    assert.deepEqual(await liveJobs(), []);
    assert.deepEqual(await simProcesses(), []);
  });

  test('multi_node: false: a candidate needing more GPUs than a node has is skipped with the reason, nothing submitted', async () => {
    const out = outDir('single');
    const plan = PLAN.replace('  multi_node: true\n', '  multi_node: false\n');
    const { result } = await run(plan, out, { frameworks: ['sglang'] });
    assert.equal(result.status, 'completed', result.reason);
    const reasons = result.rows.filter((r) => r.status === 'skipped').map((r) => String(r.failure_reason));
    assert.equal(reasons.length, 2, reasons.join('\n'));
    assert.ok(reasons.some((s) => /needs 4 GPUs \(--gres=gpu:4\) on one node; the nodes of partition autobench2n have at most 2, and hardware\.multi_node is not true/.test(s)), reasons.join('\n'));
    assert.deepEqual(manifestOf(out).slurm.jobs, []);
  });

  test('cancel: no job left in squeue and no engine process on either node', async () => {
    const out = outDir('cancel');
    const ac = new AbortController();
    let ready = 0;
    const onEvent = (e: RunEvent): void => {
      if (e.type === 'server' && e.state === 'ready') ready++;
      if (e.type === 'row' && e.row.status === 'ok') ac.abort();
    };
    const { result } = await run(PLAN, out, { onEvent, signal: ac.signal, frameworks: ['sglang'] });
    assert.equal(result.status, 'cancelled');
    assert.ok(ready >= 1);
    assert.deepEqual(await liveJobs(), [], 'no job of the run is queued or running');
    // Both nodes' engines were processes of this machine, started by the two slurmd: none is left.
    assert.deepEqual(await simProcesses(), []);
    const jobs = manifestOf(out).slurm.jobs;
    assert.ok(jobs.length >= 1 && jobs.every((j) => j.node_count === 2 && (j.state === 'CANCELLED' || j.state === 'COMPLETED')), JSON.stringify(jobs));
  });
});
