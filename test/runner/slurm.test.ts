// --target slurm on a real one-node Slurm cluster (tools/slurm-host, 2 fake GPUs) with the simulator's CLIs on the node:
// candidates run as concurrent jobs with their client beside the server, rows are schema-valid and simulated, cancel
// leaves no job and no server, a candidate asking for more GPUs than a node has is skipped with the reason, kill -9
// then --resume loses and repeats nothing.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../src/runner';
import { cliBundle, groupAlive, planYaml, readRowsFile, runOnSim, serverPids, simBundle } from '../support/runner';
import { jobPrefix, liveJobs, runCommand, simProcesses, type SlurmCluster, slurmSuite } from '../support/slurm';
import { validateJson } from '../../src/core/config/schema-check';

const PREFIX = jobPrefix('slurm');

/** Two frameworks, two candidates each, one small scenario, a short search, no repeats by default. */
const PLAN = planYaml({
  dataset: 'num_prompts: 12\nscenario_names: [chat]\ninput_len: [128]\noutput_len: [32]',
  benchmark: 'framework_set: [sglang, vllm]\nrequest_rates: null\nqps: {lower: 0, upper: 40, tolerance: 4, max_rounds: 2}',
  sla: 'max_p50_e2e_ms: 1200',
  frameworks: {
    sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\nsearch_space:\n  max_running_requests: [4]',
    vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [4]',
  },
});

interface JobRec {
  job_id: string;
  framework: string;
  candidate: string;
  purpose: string;
  state: string;
  node: string | null;
  started_at: string | null;
  ended_at: string | null;
  times_from: string;
}
const manifestOf = (out: string) => JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { status: string; slurm: { partition: string; max_parallel: number; jobs: JobRec[] }; live_servers: unknown[] };


/** Times of a run's jobs as accounting has them (sacct): [start, end] in ms. */
async function accounted(ids: string[]): Promise<Map<string, [number, number]>> {
  const r = await runCommand('sacct', ['-n', '-P', '-X', `-j`, ids.join(','), '-o', 'JobID,Start,End']);
  const out = new Map<string, [number, number]>();
  for (const line of r.stdout.trim().split('\n')) {
    const [id, s, e] = line.split('|');
    if (id && s && e) out.set(id, [Date.parse(s), Date.parse(e)]);
  }
  return out;
}

/** Per job, its load-client steps as sacct recorded them: 'serve' (one client for the job's trials) or 'once' (a client per trial). */
async function clientSteps(ids: string[]): Promise<Map<string, string[]>> {
  const r = await runCommand('sacct', ['-n', '-P', '-j', ids.join(','), '-o', 'JobID,SubmitLine']);
  const out = new Map<string, string[]>();
  for (const line of r.stdout.split('\n')) {
    const m = /^(\d+)\.\d+\|srun .*client-node\.js (--serve|--spec)/.exec(line);
    if (m) out.set(m[1] as string, [...(out.get(m[1] as string) ?? []), m[2] === '--serve' ? 'serve' : 'once']);
  }
  return out;
}

/**
 * The processes of group `pgid` that still run, as `pid state args`. A zombie is not running: here PID 1 reaps the
 * orphans slurmstepd's kill leaves behind seconds later, and kill(-pgid, 0) would still find them.
 */
function liveMembers(pgid: number): string[] {
  if (!groupAlive(pgid)) return [];
  const out: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(`${name} ${fields[0]} ${readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ')}`);
    } catch {
      /* gone while reading */
    }
  }
  return out;
}


describe('--target slurm (real Slurm cluster, simulated engine on the node)', { timeout: 600_000 }, () => {
  const suite = slurmSuite(PREFIX);
  const outDir = suite.outDir;
  let cluster: SlurmCluster;
  before(() => {
    cluster = suite.cluster();
  });
  const slurmRun = (out: string, o: Parameters<typeof runOnSim>[1] = {}) => runOnSim(PLAN, { outDir: out, target: 'slurm', simOnNodes: true, maxParallel: 2, strategy: 'grid', repeats: 0, skipSmoke: true, ...o });

  test('two candidates at once, each its own job on its own GPU; rows schema-valid, simulated, naming node and job', async () => {
    assert.ok(cluster.gpus >= 2, `the test cluster has ${cluster.gpus} GPUs`);
    const out = outDir('parallel');
    const { result } = await slurmRun(out);
    assert.equal(result.status, 'completed', result.reason);
    const m = manifestOf(out);
    assert.equal(m.slurm.partition, cluster.partition);
    assert.equal(m.slurm.max_parallel, 2);
    const search = m.slurm.jobs.filter((j) => j.purpose === 'search');
    assert.equal(search.length, 4, JSON.stringify(m.slurm.jobs));
    for (const j of search) assert.equal(j.state, 'COMPLETED', JSON.stringify(j));
    // Accounting (sacct) has the jobs' times, and at least two overlapped.
    const times = await accounted(search.map((j) => j.job_id));
    assert.equal(times.size, 4);
    const spans = [...times.values()];
    const overlaps = spans.some((a, i) => spans.some((b, k) => k > i && a[0] < b[1] && b[0] < a[1]));
    assert.ok(overlaps, `no two jobs overlapped: ${JSON.stringify([...times])}`);
    assert.ok(search.every((j) => j.times_from === 'sacct'), 'the manifest took the times from sacct');
    const rows = result.rows.filter((r) => r.status === 'ok');
    assert.ok(rows.length >= 4);
    for (const r of result.rows) {
      assert.deepEqual(validateJson('result-row', r), [], JSON.stringify(r));
      assert.equal(r.simulated, true);
    }
    for (const r of rows) {
      // The load client ran in the job too, on the server's node, against its loopback.
      assert.equal((r.client as { placement?: string }).placement, 'host', JSON.stringify(r.client));
      const hw = r.hardware as { host: string; slurm_job_id: string };
      assert.equal(hw.host, cluster.node);
      assert.ok(search.some((j) => j.job_id === hw.slurm_job_id && j.candidate === r.candidate_id && j.framework === r.framework), JSON.stringify(hw));
    }
    // One load client served all of a job's trials: a single srun step, not a step and a Node start per trial.
    const steps = await clientSteps(search.map((j) => j.job_id));
    for (const j of search) {
      const trials = rows.filter((r) => (r.hardware as { slurm_job_id: string }).slurm_job_id === j.job_id).length;
      assert.ok(trials >= 2, `job ${j.job_id} measured ${trials} trial(s)`);
      assert.deepEqual(steps.get(j.job_id), ['serve'], `job ${j.job_id}'s client steps for its ${trials} trials`);
    }
    assert.deepEqual(await liveJobs(PREFIX), []);
    assert.deepEqual(await simProcesses(await simBundle()), []);
  });

  test('a candidate asking for more GPUs than a node has is skipped with the reason; the others run', async () => {
    const out = outDir('toobig');
    const big = PLAN.replace('  gpu_count: 1\n', `  gpu_count: ${cluster.gpus + 1}\n`);
    const { result } = await runOnSim(big, { outDir: out, target: 'slurm', simOnNodes: true, maxParallel: 2, strategy: 'grid', repeats: 0, skipSmoke: true, frameworks: ['vllm'] });
    assert.equal(result.status, 'completed', result.reason);
    const skipped = result.rows.filter((r) => r.framework === 'vllm' && r.status === 'skipped');
    assert.equal(skipped.length, 2, JSON.stringify(result.rows.map((r) => [r.candidate_id, r.status, r.failure_reason])));
    for (const r of skipped) assert.match(String(r.failure_reason), new RegExp(`needs ${cluster.gpus + 1} GPUs .*at most ${cluster.gpus}`));
    assert.deepEqual(manifestOf(out).slurm.jobs, [], 'nothing was submitted');
  });

  test('cancel: the run stops, no job of it stays in squeue and no server process is left', async () => {
    const out = outDir('cancel');
    const ac = new AbortController();
    const pids: number[] = [];
    const onEvent = (e: RunEvent): void => {
      if (e.type === 'server' && e.state === 'ready' && e.pid) pids.push(e.pid);
      if (e.type === 'row' && e.row.status === 'ok') ac.abort();
    };
    const { result } = await slurmRun(out, { onEvent, signal: ac.signal });
    assert.equal(result.status, 'cancelled');
    assert.ok(pids.length >= 1);
    assert.deepEqual(await liveJobs(PREFIX), [], 'no job of the run is queued or running');
    for (const p of [...pids, ...serverPids(out)]) assert.deepEqual(liveMembers(p), [], `server group ${p} survived`);
    // The engines ran inside the jobs (started by slurmd, not by us): none of them is left either.
    assert.deepEqual(await simProcesses(await simBundle()), []);
    const m = manifestOf(out);
    assert.deepEqual(m.live_servers, []);
    assert.ok(m.slurm.jobs.length >= 1 && m.slurm.jobs.every((j) => j.state === 'CANCELLED' || j.state === 'COMPLETED'), JSON.stringify(m.slurm.jobs));
  });

  test('kill -9 of the runner, then --resume: the old jobs are cancelled, no trial lost or measured twice', async () => {
    const [cli, simJs] = await Promise.all([cliBundle(), simBundle()]);
    const out = outDir('resume');
    const plan = path.join(path.dirname(out), 'slurm.plan.yaml');
    writeFileSync(plan, PLAN);
    const env = { ...process.env, AUTOBENCH_SIM_JS: simJs, AUTOBENCH_NODE: process.execPath, NO_COLOR: '1' };
    // --out relative to the working directory, as a user types it (sbatch must get absolute paths).
    const args = ['run', plan, '--target', 'slurm', '--sim-on-nodes', '--max-parallel', '2', '--strategy', 'grid', '--repeats', '0', '--out', path.basename(out), '--sim-speed', '20', '--no-calibration'];
    const first = spawn(process.execPath, [cli, ...args], { env, stdio: 'ignore', cwd: path.dirname(out) });
    const deadline = Date.now() + 120_000;
    while (!(existsSync(path.join(out, 'rows.jsonl')) && readRowsFile(out).filter((r) => r.status === 'ok').length >= 2)) {
      assert.ok(Date.now() < deadline && first.exitCode === null, 'two measured rows before the kill');
      await new Promise((r) => setTimeout(r, 50));
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('close', r));
    const beforeKeys = readRowsFile(out).map((r) => (r.trial as { key: string }).key);
    const stale = manifestOf(out).slurm.jobs.filter((j) => j.state === 'RUNNING' || j.state === 'PENDING');
    const second = await runCommand(process.execPath, [cli, ...args, '--resume'], 300_000, path.dirname(out)).catch((e: Error) => ({ code: 1, stdout: '', stderr: e.message }));
    assert.equal(second.code, 0, second.stderr);
    for (const j of stale) assert.match(second.stderr, new RegExp(`cancelling Slurm job ${j.job_id} `));
    const keys = readRowsFile(out).map((r) => (r.trial as { key: string }).key);
    assert.equal(new Set(keys).size, keys.length, `a trial was measured twice: ${keys.join(', ')}`);
    for (const k of beforeKeys) assert.ok(keys.includes(k), `row ${k} was lost`);
    const m = manifestOf(out);
    assert.equal(m.status, 'completed');
    assert.deepEqual(await liveJobs(PREFIX), []);
    const done = new Set(readRowsFile(out).filter((r) => r.status === 'ok').map((r) => `${String(r.framework)} ${String(r.candidate_id)}`));
    assert.equal(done.size, 4, [...done].join(', '));
  });
});
