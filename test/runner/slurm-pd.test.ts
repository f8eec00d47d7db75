// P/D units on the real test cluster's two-node partition (n1, n2: two slurmd on this machine, each node a network
// namespace with 2 fake GPUs; the simulator's CLIs on the nodes): a 1P1D unit is one job on one node, a 2P1D unit one
// job on both (pack: the prefill workers and the router on the first node, the decode worker on the second, the router
// naming it at its node's address); both are measured through the router and ready only once it counts every worker;
// nothing of a unit is left after teardown or a cancel (no job in squeue, no engine process). Placed job_per_role, the
// 2P1D unit is two jobs: the prefill workers with the router, and the decode worker.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../src/runner';
import { planYaml, runOnSim, simBundle } from '../support/runner';
import { jobPrefix, liveJobs, runCommand, simProcesses, slurmSuite } from '../support/slurm';
import { validateJson } from '../../src/core/config/schema-check';

const PREFIX = jobPrefix('slurm-pd');

const PLAN = planYaml({
  dataset: 'num_prompts: 12\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [32]',
  benchmark: 'framework_set: [sglang]\nrequest_rates: [2]',
  sla: 'max_p50_e2e_ms: 100000',
  frameworks: {
    sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\ndisaggregation:\n  transfer_backend: mooncake\n  router: {policy: round_robin}\n  prefill: {workers: 1}\n  decode: {workers: 1}\n  search_space:\n    prefill.workers: [1, 2]',
  },
});

interface JobRec {
  job_id: string;
  candidate: string;
  purpose: string;
  state: string;
  nodes: string[];
  node_count: number;
  gpus_per_node: number;
  gpus: number;
}

/** A job's steps as accounting has them: `NodeList|SubmitLine` per step, waiting a little for slurmdbd to have them all. */
async function steps(jobId: string, want: number): Promise<string[]> {
  let lines: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await runCommand('sacct', ['-n', '-P', '-j', jobId, '-o', 'JobID,NodeList,SubmitLine']);
    lines = r.stdout.split('\n').filter((l) => /^\d+\.\d+\|/.test(l) && /launch_server|launch_router|trtllm-serve/.test(l)).map((l) => l.split('|').slice(1).join('|'));
    if (lines.length >= want) return lines;
    await new Promise((res) => setTimeout(res, 500));
  }
  return lines;
}

describe('P/D units on Slurm (real cluster, two nodes, simulated engine on the nodes)', { timeout: 600_000 }, () => {
  const suite = slurmSuite(PREFIX);
  const outDir = suite.outDir;
  const run = (out: string, o: Parameters<typeof runOnSim>[1] = {}) =>
    runOnSim(PLAN, { outDir: out, target: `slurm:${suite.cluster().twoNodes.partition}`, simOnNodes: true, maxParallel: 1, strategy: 'grid', repeats: 0, skipSmoke: true, ...o });

  test('1P1D is one job on one node, 2P1D one job on both with each process where the layout puts it; measured through the router; nothing left', async () => {
    const [head, second] = suite.cluster().twoNodes.nodes as [string, string];
    const out = outDir('run');
    const { result } = await run(out);
    assert.equal(result.status, 'completed', result.reason);
    for (const r of result.rows) assert.deepEqual(validateJson('result-row', r), [], JSON.stringify(r));
    for (const id of ['pd1', 'pd2']) {
      const rows = result.rows.filter((r) => r.candidate_id === id);
      assert.ok(rows.length > 0 && rows.every((r) => r.status === 'ok'), JSON.stringify(rows.map((r) => [r.status, r.failure_reason])));
      for (const r of rows) assert.equal(r.hardware?.gpu_count, id === 'pd1' ? 2 : 3);
    }
    const jobs = (JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { slurm: { jobs: JobRec[] } }).slurm.jobs.filter((j) => j.purpose === 'search');
    const pd1 = jobs.find((j) => j.candidate === 'pd1');
    const pd2 = jobs.find((j) => j.candidate === 'pd2');
    assert.deepEqual([pd1?.state, pd1?.node_count, pd1?.gpus_per_node], ['COMPLETED', 1, 2], JSON.stringify(pd1));
    assert.deepEqual([pd2?.state, pd2?.node_count, pd2?.gpus_per_node, pd2?.nodes], ['COMPLETED', 2, 2, [head, second]], JSON.stringify(pd2));
    // Slurm's accounting of pd2's steps: both prefill workers and the router on the first node, the decode worker on the second.
    const s2 = await steps(pd2?.job_id ?? '', 4);
    const on = (re: RegExp): string[] => s2.filter((l) => re.test(l)).map((l) => l.split('|')[0] ?? '');
    assert.deepEqual(on(/--disaggregation-mode prefill/), [head, head], s2.join('\n'));
    assert.deepEqual(on(/--disaggregation-mode decode/), [second], s2.join('\n'));
    assert.deepEqual(on(/launch_router/), [head], s2.join('\n'));
    // The router named the decode worker at its node's address, not loopback.
    const addr = /\bNodeAddr=(\S+)/.exec((await runCommand('scontrol', ['show', 'node', second])).stdout)?.[1] ?? '';
    assert.ok(s2.some((l) => /launch_router/.test(l) && l.includes(`--decode http://${addr}:`)), s2.join('\n'));
    assert.deepEqual(await liveJobs(PREFIX), []);
    assert.deepEqual(await simProcesses(await simBundle()), []);
  });

  test('job_per_role: 2P1D is a prefill job (both prefill workers and the router) and a decode job, measured through the router; rows name both jobs; nothing left', async () => {
    const out = outDir('per-role');
    const plan = PLAN.replace(/^( +)transfer_backend: mooncake\n/m, '$1transfer_backend: mooncake\n$1placement: job_per_role\n');
    assert.notEqual(plan, PLAN);
    const { result } = await runOnSim(plan, { outDir: out, target: `slurm:${suite.cluster().twoNodes.partition}`, simOnNodes: true, maxParallel: 1, strategy: 'grid', repeats: 0, skipSmoke: true, candidates: ['pd2'] });
    assert.equal(result.status, 'completed', result.reason);
    const rows = result.rows.filter((r) => r.candidate_id === 'pd2');
    assert.ok(rows.length > 0 && rows.every((r) => r.status === 'ok'), JSON.stringify(rows.map((r) => [r.status, r.failure_reason])));
    const jobs = (JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { slurm: { jobs: Array<JobRec & { role?: string }> } }).slurm.jobs.filter((j) => j.purpose === 'search');
    assert.deepEqual(jobs.map((j) => [j.role, j.state, j.node_count, j.gpus_per_node, j.gpus]), [['prefill', 'COMPLETED', 1, 2, 2], ['decode', 'COMPLETED', 1, 1, 1]], JSON.stringify(jobs));
    const [pj, dj] = jobs as [JobRec, JobRec];
    for (const r of rows) assert.equal(r.hardware?.slurm_job_id, `${pj.job_id},${dj.job_id}`);
    const ps = await steps(pj.job_id, 3);
    assert.equal(ps.filter((l) => /--disaggregation-mode prefill/.test(l)).length, 2, ps.join('\n'));
    assert.equal(ps.filter((l) => /launch_router/.test(l)).length, 1, ps.join('\n'));
    const ds = await steps(dj.job_id, 1);
    assert.deepEqual(ds.map((l) => /--disaggregation-mode decode/.test(l)), [true], ds.join('\n'));
    // The router names the decode worker at the decode job's node address.
    const addr = /\bNodeAddr=(\S+)/.exec((await runCommand('scontrol', ['show', 'node', dj.nodes[0] ?? ''])).stdout)?.[1] ?? '';
    assert.ok(ps.some((l) => /launch_router/.test(l) && l.includes(`--decode http://${addr}:`)), ps.join('\n'));
    assert.deepEqual(await liveJobs(PREFIX), []);
    assert.deepEqual(await simProcesses(await simBundle()), []);
  });

  test('TensorRT-LLM 2P1D over both nodes: its files in the run directory (shared), the front end naming the decode worker at its node, measured through it; nothing left', async () => {
    const [head, second] = suite.cluster().twoNodes.nodes as [string, string];
    const out = outDir('trtllm');
    const trt = 'backend_policy: fixed_pytorch\nbase_server_flags:\n  backend: pytorch\n  max_seq_len: 4096\ndisaggregation:\n  transfer_backend: UCX\n  prefill: {workers: 2}\n  decode: {workers: 1}';
    const plan = planYaml({ dataset: 'num_prompts: 12\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [32]', benchmark: 'framework_set: [tensorrt_llm]\nrequest_rates: [2]', sla: 'max_p50_e2e_ms: 100000', frameworks: { tensorrt_llm: trt } });
    const { result } = await runOnSim(plan, { outDir: out, target: `slurm:${suite.cluster().twoNodes.partition}`, simOnNodes: true, maxParallel: 1, strategy: 'grid', repeats: 0, skipSmoke: true, candidates: ['pd1'] });
    assert.equal(result.status, 'completed', result.reason);
    const rows = result.rows.filter((r) => r.candidate_id === 'pd1');
    assert.ok(rows.length > 0 && rows.every((r) => r.status === 'ok'), JSON.stringify(rows.map((r) => [r.status, r.failure_reason])));
    const job = (JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { slurm: { jobs: JobRec[] } }).slurm.jobs.find((j) => j.purpose === 'search' && j.candidate === 'pd1');
    assert.deepEqual([job?.node_count, job?.nodes], [2, [head, second]], JSON.stringify(job));
    const s = await steps(job?.job_id ?? '', 4);
    const on = (re: RegExp): string[] => s.filter((l) => re.test(l)).map((l) => l.split('|')[0] ?? '');
    assert.deepEqual(on(/pd1\/prefill\.yaml/), [head, head], s.join('\n'));
    assert.deepEqual(on(/pd1\/decode\.yaml/), [second], s.join('\n'));
    assert.deepEqual(on(/trtllm-serve disaggregated/), [head], s.join('\n'));
    // The front end's config as written for the job: every interface, the decode worker at its node's address.
    const units = path.join(out, 'units');
    const folder = readdirSync(units).find((d) => d.startsWith('tensorrt_llm-pd1-')) ?? 'missing';
    const cfg = readFileSync(path.join(units, folder, 'pd1', 'disagg.yaml'), 'utf8');
    const addr = /\bNodeAddr=(\S+)/.exec((await runCommand('scontrol', ['show', 'node', second])).stdout)?.[1] ?? '';
    assert.match(cfg, /^hostname: 0\.0\.0\.0$/m, cfg);
    assert.ok(cfg.includes(`- ${addr}:`), cfg);
    assert.deepEqual(await liveJobs(PREFIX), []);
    assert.deepEqual(await simProcesses(await simBundle()), []);
  });

  test('cancel while a two-node unit runs: no job stays in squeue, no process of the unit on either node', async () => {
    const out = outDir('cancel');
    const abort = new AbortController();
    const onEvent = (e: RunEvent): void => {
      if (e.type === 'trial-start' && e.candidateId === 'pd2') abort.abort();
    };
    const { result } = await run(out, { signal: abort.signal, onEvent });
    assert.equal(result.status, 'cancelled', result.reason);
    assert.deepEqual(await liveJobs(PREFIX), []);
    assert.deepEqual(await simProcesses(await simBundle()), []);
  });
});
