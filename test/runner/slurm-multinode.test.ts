// --target slurm across nodes on the real test cluster's two-node partition (n1, n2: two slurmd on this machine, 2 fake
// GPUs each) with the simulator's CLIs on the nodes: a 4-GPU candidate runs as one job on both nodes (--nodes=2, the
// framework's own multi-node launch under one srun step, both ranks joined; TensorRT-LLM as one MPI world of 4 tasks
// under srun --mpi=pmix, rank 0 serving), its rows validate, are simulated and name the nodes; an uneven split and
// multi_node: false are skipped with the reason; cancel leaves no job and no engine process on either node.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../src/runner';
import { planYaml, runOnSim, simBundle } from '../support/runner';
import { jobPrefix, liveJobs, runCommand, simProcesses, type SlurmCluster, slurmSuite } from '../support/slurm';
import { validateJson } from '../../src/core/config/schema-check';

const PREFIX = jobPrefix('slurm-mn');

/** SGLang at TP 4 (2 nodes × 2 GPUs: its baseline) and TP 3 (no even split), vLLM and TensorRT-LLM at TP 2 × PP 2 (two candidates each). */
const PLAN = planYaml({
  dataset: 'num_prompts: 12\nscenario_names: [chat]\ninput_len: [128]\noutput_len: [32]',
  benchmark: 'framework_set: [sglang, vllm, tensorrt_llm]\nrequest_rates: [4]',
  sla: 'max_p50_e2e_ms: 100000',
  frameworks: {
    sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\n  max_running_requests: 8\n  tp_size: 4\nsearch_space:\n  tp_size: [3]',
    vllm: 'base_server_flags:\n  max_model_len: 4096\n  tensor_parallel_size: 2\n  pipeline_parallel_size: 2\nsearch_space:\n  max_num_seqs: [8]',
    tensorrt_llm: 'backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096\n  tp_size: 2\n  pp_size: 2\nsearch_space:\n  max_batch_size: [8]',
  },
}).replace('  gpu_count: 1\n', '  multi_node: true\n')
  // TensorRT-LLM's MPI plugin: the test cluster's slurmd has pmix but not the PMIx library (`srun --mpi=pmix` fails to
  // load it); pmi2 works, and gives every task its SLURM_PROCID all the same.
  .concat('\nslurm:\n  mpi: pmi2\n');

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



/** Every server log of a run, by its directory name. */
function serverLogs(out: string): Map<string, string> {
  const dir = path.join(out, 'servers');
  return new Map(readdirSync(dir).map((d) => [d, readFileSync(path.join(dir, d, 'server.log'), 'utf8')]));
}

/** The server step's accounting lines of a job (`ID.N|NNodes|NTasks|NodeList`), waiting a little for slurmdbd to have them. */
async function serverSteps(jobId: string): Promise<string[]> {
  let steps: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await runCommand('sacct', ['-n', '-P', '-j', jobId, '-o', 'JobID,NNodes,NTasks,NodeList']);
    steps = r.stdout.split('\n').filter((l) => /^\d+\.\d+\|/.test(l));
    if (steps.some((l) => l.split('|')[2] === '4')) return steps;
    await new Promise((res) => setTimeout(res, 500));
  }
  return steps;
}

/**
 * The jobs' allocation lines (`ID|NNodes|NodeList|AllocTRES`), waiting a little until slurmdbd lists every node of
 * each: its NodeList can lag the allocation (CI once read `101|2|n1|...node=2` just after the job ended).
 */
async function allocations(ids: string[], nodes: number): Promise<string[]> {
  let lines: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await runCommand('sacct', ['-n', '-P', '-X', '-j', ids.join(','), '-o', 'JobID,NNodes,NodeList,AllocTRES']);
    lines = r.stdout.split('\n').filter((l) => /^\d+\|/.test(l));
    const listed = await Promise.all(lines.map(async (l) => (await runCommand('scontrol', ['show', 'hostnames', l.split('|')[2] ?? ''])).stdout.trim().split('\n').length));
    if (lines.length === ids.length && listed.every((n) => n === nodes)) return lines;
    await new Promise((res) => setTimeout(res, 500));
  }
  return lines;
}

/** TensorRT-LLM's jobs: one step of 4 tasks on both nodes (Slurm's accounting), rank 0 on the head served, ranks 1-3 waited as MPI workers. */
async function assertTrtllmWorld(out: string, jobs: JobRec[], head: string, second: string): Promise<void> {
  assert.equal(jobs.length, 2, JSON.stringify(jobs));
  for (const j of jobs) {
    const steps = await serverSteps(j.job_id);
    const server = steps.filter((l) => l.split('|')[2] === '4');
    assert.equal(server.length, 1, `one 4-task step in job ${j.job_id}:\n${steps.join('\n')}`);
    const [, nnodes, , nodeList] = (server[0] as string).split('|');
    assert.equal(nnodes, '2', server[0]);
    const names = await runCommand('scontrol', ['show', 'hostnames', nodeList ?? '']);
    assert.deepEqual(names.stdout.trim().split('\n'), [head, second], server[0]);
  }
  const logs = [...serverLogs(out)].filter(([d]) => d.startsWith('tensorrt_llm-') && !d.includes('smoke'));
  assert.ok(logs.length >= 1, [...serverLogs(out).keys()].join(', '));
  // How the ranks end is srun's: the runner's TERM makes srun kill the step (SIGKILL after its grace), as for every framework.
  for (const [dir, log] of logs) {
    assert.match(log, new RegExp(`rank 0 of 4 on ${head}: serving HTTP`), `${dir}:\n${log}`);
    // Block distribution: tasks 0-1 on the head, 2-3 on the second node.
    for (const [rank, node] of [[1, head], [2, second], [3, second]] as const) {
      assert.match(log, new RegExp(`rank ${rank} of 4 on ${node}: MPI worker, no HTTP server on this rank`), `${dir}:\n${log}`);
    }
    assert.match(log, /simulated trtllm-llmapi-launch\): mpi_rank 3 of 4/, log);
  }
}

describe('--target slurm across two nodes (real Slurm cluster, simulated engine on the nodes)', { timeout: 600_000 }, () => {
  const suite = slurmSuite(PREFIX);
  const outDir = suite.outDir;
  let cluster: SlurmCluster;
  before(() => {
    cluster = suite.cluster();
  });
  const run = (plan: string, out: string, o: Parameters<typeof runOnSim>[1] = {}) =>
    runOnSim(plan, { outDir: out, target: `slurm:${cluster.twoNodes.partition}`, simOnNodes: true, maxParallel: 1, strategy: 'grid', repeats: 0, skipSmoke: true, ...o });

  test('a 4-GPU candidate is one job on both nodes, every rank ran (TensorRT-LLM: 4 MPI tasks in one step); an uneven split is skipped with the reason', async () => {
    assert.equal(cluster.twoNodes.gpusPerNode, 2, 'the two-node partition has 2 GPUs a node');
    const [head, second] = cluster.twoNodes.nodes as [string, string];
    // The head's NodeAddr (not loopback: each test node is a network namespace): the ranks meet there.
    const headAddr = /\bNodeAddr=(\S+)/.exec((await runCommand('scontrol', ['show', 'node', head])).stdout)?.[1] ?? '';
    assert.ok(headAddr && !headAddr.startsWith('127.'), `NodeAddr of ${head}: ${headAddr}`);
    const out = outDir('run');
    const { result } = await run(PLAN, out);
    assert.equal(result.status, 'completed', result.reason);
    const m = manifestOf(out);
    assert.equal(m.slurm.partition, cluster.twoNodes.partition);
    const jobs = m.slurm.jobs.filter((j) => j.purpose === 'search');
    assert.deepEqual(jobs.map((j) => `${j.framework} ${j.candidate}`).sort(), ['sglang baseline', 'tensorrt_llm baseline', 'tensorrt_llm c1', 'vllm baseline', 'vllm c1'], JSON.stringify(m.slurm.jobs));
    for (const j of jobs) {
      assert.equal(j.state, 'COMPLETED', JSON.stringify(j));
      assert.deepEqual([j.node_count, j.gpus, j.gpus_per_node, j.nodes], [2, 4, 2, [head, second]], JSON.stringify(j));
    }
    // Slurm's own accounting: one allocation on both nodes with 2 GPUs each.
    const acct = await allocations(jobs.map((j) => j.job_id), 2);
    for (const j of jobs) {
      const line = acct.find((l) => l.startsWith(`${j.job_id}|`)) ?? '';
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
    assert.deepEqual([...new Set(ok.map((r) => r.framework))].sort(), ['sglang', 'tensorrt_llm', 'vllm']);
    for (const r of ok) {
      const hw = r.hardware as { host: string; nodes: string[]; multi_node: boolean; slurm_job_id: string };
      assert.deepEqual([hw.host, hw.nodes, hw.multi_node], [head, [head, second], true], JSON.stringify(hw));
      assert.equal((r.client as { placement?: string }).placement, 'host', 'the client ran on the head node');
      const cmd = String(r.multi_node_command);
      // SGLang and trtllm-serve bind loopback unless told: reached from the login host, they are launched with --host 0.0.0.0.
      const bind = r.framework === 'sglang' || r.framework === 'tensorrt_llm' ? ' --host 0.0.0.0' : '';
      if (r.framework === 'tensorrt_llm') {
        assert.equal(cmd, `trtllm-llmapi-launch ${String(r.server_command)}${bind}`, 'every MPI task ran the launcher and the candidate\'s command');
        continue;
      }
      assert.ok(cmd.startsWith(`${String(r.server_command)}${bind} --nnodes 2 --node-rank 0 `), cmd);
      const at = headAddr.replace(/\./g, '\\.');
      assert.match(cmd, r.framework === 'vllm' ? new RegExp(` --master-addr ${at} --master-port \\d+$`) : new RegExp(` --dist-init-addr ${at}:\\d+$`));
    }
    // Both ranks ran: the head took rank 1 at its rendezvous port, and rank 1 (on the second node, no HTTP) joined it.
    const logs = serverLogs(out);
    for (const fw of ['sglang', 'vllm']) {
      const log = [...logs].find(([d]) => d.startsWith(`${fw}-`) && !d.includes('smoke'))?.[1] ?? '';
      assert.match(log, /head \(rank 0 of 2\): node rank 1 joined/, `${fw} log:\n${log}`);
      assert.match(log, new RegExp(`node rank 1 of 2: joined the head at ${headAddr.replace(/\./g, '\\.')}:\\d+`), `${fw} log:\n${log}`);
    }
    await assertTrtllmWorld(out, jobs.filter((j) => j.framework === 'tensorrt_llm'), head, second);
    const skipped = result.rows.filter((r) => r.status === 'skipped').map((r) => `${String(r.framework)}: ${String(r.failure_reason)}`);
    assert.equal(skipped.length, 1, skipped.join('\n'));
    assert.ok(skipped.some((s) => /^sglang: .*3 GPUs do not split evenly over 2 nodes/.test(s)), skipped.join('\n'));
    assert.deepEqual(await liveJobs(PREFIX), []);
    assert.deepEqual(await simProcesses(await simBundle()), []);
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

  for (const fw of ['sglang', 'tensorrt_llm'] as const) {
    test(`cancel (${fw}): no job left in squeue and no engine process on either node`, async () => {
      const out = outDir(`cancel-${fw}`);
      const ac = new AbortController();
      let ready = 0;
      const onEvent = (e: RunEvent): void => {
        if (e.type === 'server' && e.state === 'ready') ready++;
        if (e.type === 'row' && e.row.status === 'ok') ac.abort();
      };
      const { result } = await run(PLAN, out, { onEvent, signal: ac.signal, frameworks: [fw] });
      assert.equal(result.status, 'cancelled');
      assert.ok(ready >= 1);
      assert.deepEqual(await liveJobs(PREFIX), [], 'no job of the run is queued or running');
      // Both nodes' engines were processes of this machine, started by the two slurmd: none is left.
      assert.deepEqual(await simProcesses(await simBundle()), []);
      const jobs = manifestOf(out).slurm.jobs;
      assert.ok(jobs.length >= 1 && jobs.every((j) => j.node_count === 2 && (j.state === 'CANCELLED' || j.state === 'COMPLETED')), JSON.stringify(jobs));
    });
  }
});
