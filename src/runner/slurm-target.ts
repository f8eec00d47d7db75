// The slurm target: every launch (a candidate, its smoke, a repeat) is a batch job of its own holding the candidate's GPUs
// (a P/D unit placed job_per_role: a job per role); the server and the trials run in it as srun steps; jobs of the run are
// recorded, cancelled on the way out and accounted.
import { mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { FrameworkKey } from '../core/frameworks/types';
import type { PlanSlurm } from '../core/plan/slurm';
import { unitNodeLayout, type UnitNodeLayout, type UnitRoleJob } from '../core/candidates/unit-nodes';
import type { UnitRole } from '../core/candidates/unit';
import { DEFAULT_SLURM_TIME_LIMIT } from '../core/plan/slurm';
import { LocalExecutor, type Executor, type SecretSource } from '../exec';
import { SlurmCluster, SubmitRefused, isEnded } from '../exec/slurm/cluster';
import type { SlurmPartition } from '../core/plan/slurm-partitions';
import type { JobInfo } from '../exec/slurm/commands';
import { SlurmAllocationExecutor, SlurmJobExecutor, type JobPlace } from '../exec/slurm/job-executor';
import { DEFAULT_DIST_PORT, isMpiWorld, multiNodeUnsupported, splitOverNodes, type NodeSplit } from '../exec/slurm/multinode';
import { DEFAULT_PORTS, LAUNCH_ENV, freePort, portFlag, simLaunchEnv, simSettingsOf, simShimEnv } from './launch-env';
import type { PlaceRefused, PlaceRequest, Placement, RunTarget, SimSettings, SlurmJobRecord } from './target-types';
import type { RunOptions } from './types';

/** Candidates measured at once on slurm when --max-parallel is not given. */
export const DEFAULT_MAX_PARALLEL = 4;

interface Setup {
  opts: RunOptions;
  secrets: SecretSource;
  env: NodeJS.ProcessEnv;
  sim: SimSettings | undefined;
  cluster: SlurmCluster;
  partition: SlurmPartition;
  slurm: PlanSlurm;
}

/** The partition to submit to: `slurm:PARTITION`, the plan's, else the cluster's default; an unknown one is an error naming the others. */
function choosePartition(parts: SlurmPartition[], wanted: string | undefined): SlurmPartition {
  const names = parts.map((p) => p.name).join(', ') || 'none';
  if (wanted) {
    const p = parts.find((x) => x.name === wanted);
    if (!p) throw new Error(`slurm: no partition '${wanted}' (sinfo lists: ${names}); name one with --target slurm:PARTITION or slurm.partition in the plan`);
    return p;
  }
  const p = parts[0];
  if (!p) throw new Error('slurm: sinfo lists no partition; is this host a Slurm login node?');
  return p;
}

export async function openSlurmTarget(opts: RunOptions, secrets: SecretSource, gpuModel: string | undefined, partitionArg: string | undefined, planSlurm: PlanSlurm | undefined): Promise<RunTarget> {
  const shims = opts.simOnNodes ? simShimEnv(opts) : undefined;
  const env = shims?.env ?? opts.baseEnv ?? process.env;
  const slurm: PlanSlurm = planSlurm ?? { timeLimit: DEFAULT_SLURM_TIME_LIMIT, gres: 'gpu', sbatchArgs: [] };
  const login = new LocalExecutor({ secrets, baseEnv: env });
  const cluster = new SlurmCluster(login);
  const partition = choosePartition(await cluster.partitions(slurm.gres), partitionArg ?? slurm.partition);
  const sim = shims ? simSettingsOf(opts, shims.binDir, gpuModel) : undefined;
  return new SlurmTarget({ opts, secrets, env, sim, cluster, partition, slurm }, new SlurmAllocationExecutor(login, { ...slurm, partition: partition.name }));
}

class SlurmTarget implements RunTarget {
  readonly kind = 'slurm';
  readonly simulated: boolean;
  readonly sim: SimSettings | undefined;
  readonly host: string;
  readonly maxParallel: number;
  readonly partition: string;
  private readonly jobs = new Map<string, SlurmJobRecord>();
  private readonly observers: Array<(job: SlurmJobRecord) => void> = [];
  private readonly launchEnv: ((fw: FrameworkKey, port: number) => Record<string, string>) | undefined;

  constructor(
    private readonly s: Setup,
    readonly executor: Executor,
  ) {
    this.simulated = s.sim !== undefined;
    this.sim = s.sim;
    this.partition = s.partition.name;
    this.host = `slurm partition ${s.partition.name}`;
    this.maxParallel = s.opts.maxParallel ?? DEFAULT_MAX_PARALLEL;
    this.launchEnv = s.sim ? simLaunchEnv(s.sim) : undefined;
  }

  prepareLaunch(): Promise<{ port: number; env: Record<string, string> }> {
    return Promise.reject(new Error('slurm: launches are prepared in their job'));
  }

  observeJobs(fn: (job: SlurmJobRecord) => void): void {
    this.observers.push(fn);
  }

  private changed(job: SlurmJobRecord): void {
    for (const fn of this.observers) fn(job);
  }

  async place(req: PlaceRequest, signal: AbortSignal | undefined): Promise<Placement | PlaceRefused> {
    const p = this.s.partition;
    const layout = req.unit ? unitNodeLayout(req.unit, p.gpusPerNode) : undefined;
    if (typeof layout === 'string') return { refused: 'skipped', reason: `${layout} of partition ${p.name}` };
    if (layout && layout.nodes > p.nodes) return { refused: 'skipped', reason: `its processes need ${layout.nodes} nodes of up to ${layout.gpusPerNode} GPUs (placement ${req.unit?.placement}); partition ${p.name} has ${p.nodes}` };
    const split = layout ?? splitOverNodes({ gpus: req.gpus, nodeGpus: p.gpusPerNode, partitionNodes: p.nodes, multiNode: req.multiNode === true, ...(req.nodes !== undefined ? { nodes: req.nodes } : {}) }, this.s.slurm.gres);
    if ('refused' in split) return { refused: 'skipped', reason: `${split.refused.replace('the partition', `partition ${p.name}`)}` };
    const unsupported = split.nodes > 1 && !layout ? multiNodeUnsupported(req.framework, req.argv ?? [], req.cli) : undefined;
    if (unsupported) return { refused: 'skipped', reason: `needs ${split.nodes} nodes of ${split.gpusPerNode} GPUs; ${unsupported}` };
    if (layout?.jobs) return this.placeRoleJobs(req, layout, layout.jobs, signal);
    const submitted = await this.submit(req, split);
    if ('refused' in submitted) return submitted;
    const job = submitted;
    const info = await this.s.cluster.waitRunning(job.job_id, (i) => this.update(job, i), signal);
    if (info.state !== 'RUNNING') {
      await this.s.cluster.cancel([job.job_id]);
      return { refused: signal?.aborted ? 'cancelled' : 'failed', reason: `Slurm job ${job.job_id} ended ${info.state}${info.reason ? ` (${info.reason})` : ''} before it ran` };
    }
    job.nodes = split.nodes > 1 ? await this.s.cluster.hostnames(info.nodes) : [info.nodes];
    this.changed(job);
    const head = job.nodes[0] ?? info.nodes;
    const address = await this.s.cluster.nodeAddress(head);
    const login = new LocalExecutor({ secrets: this.s.secrets, baseEnv: this.s.env });
    const place = { jobId: job.job_id, node: head, nodes: job.nodes, address, partition: p.name, ...(this.s.slurm.containerImage ? { containerImage: this.s.slurm.containerImage } : {}) };
    if (layout) return this.unitPlacement(job, login, place, layout);
    let executor = new SlurmJobExecutor(login, place);
    if (split.nodes > 1) {
      // An MPI world (TensorRT-LLM) meets through the MPI plugin, not at a port of ours.
      const port = this.simulated && !isMpiWorld(req.framework) ? await this.freePortIn(executor, address) : DEFAULT_DIST_PORT;
      executor = new SlurmJobExecutor(login, { ...place, multiNode: { framework: req.framework, nodes: split.nodes, gpusPerNode: split.gpusPerNode, ...(this.s.slurm.mpi ? { mpi: this.s.slurm.mpi } : {}), headAddress: address, port, serverArgv: req.argv ?? [] } });
    }
    const target: RunTarget = {
      executor,
      kind: 'slurm',
      simulated: this.simulated,
      sim: this.sim,
      host: head,
      maxParallel: 1,
      prepareLaunch: (fw, flags) => this.prepareIn(executor, address, fw, flags),
      close: () => executor.close(),
    };
    return { target, jobId: job.job_id, release: () => this.release(job, executor) };
  }

  /** A P/D unit's job: a target per node, each starting its steps there (pinned), listening at that node's address. */
  private async unitPlacement(job: SlurmJobRecord, login: LocalExecutor, place: JobPlace, unitLayout: UnitNodeLayout): Promise<Placement> {
    const nodeTargets = await this.nodeTargetsOf(job, login, place);
    const head = nodeTargets[0] as RunTarget;
    const release = async (): Promise<void> => {
      for (const t of nodeTargets.slice(1)) await t.executor.close();
      await this.release(job, head.executor);
    };
    return { target: head, jobId: job.job_id, nodeTargets, unitLayout, release };
  }

  private async nodeTargetsOf(job: SlurmJobRecord, login: LocalExecutor, place: JobPlace): Promise<RunTarget[]> {
    const out: RunTarget[] = [];
    for (const node of job.nodes) {
      const address = node === place.node ? place.address : await this.s.cluster.nodeAddress(node);
      const executor = new SlurmJobExecutor(login, { ...place, node, address });
      out.push({ executor, kind: 'slurm', simulated: this.simulated, sim: this.sim, host: node, address, maxParallel: 1, prepareLaunch: (fw, flags) => this.prepareIn(executor, address, fw, flags), close: () => executor.close() });
    }
    return out;
  }

  /**
   * A P/D unit placed job_per_role: every role's job submitted before any is waited for (they queue together), then a
   * target per node of each, in the layout's node order (the prefill job's nodes, with the router, first). A job that
   * ends before it runs cancels the others.
   */
  private async placeRoleJobs(req: PlaceRequest, unitLayout: UnitNodeLayout, roles: UnitRoleJob[], signal: AbortSignal | undefined): Promise<Placement | PlaceRefused> {
    const jobs: SlurmJobRecord[] = [];
    const cancelAll = (): Promise<void> => this.s.cluster.cancel(jobs.map((j) => j.job_id));
    for (const r of roles) {
      const gpus = r.nodes.reduce((n, node) => n + unitLayout.at.filter((a) => a.node === node).reduce((k, a) => k + a.gpus.length, 0), 0);
      const submitted = await this.submit({ ...req, gpus }, { nodes: r.nodes.length, gpusPerNode: r.gpusPerNode }, r.role);
      if ('refused' in submitted) {
        await cancelAll();
        return submitted;
      }
      jobs.push(submitted);
    }
    const login = new LocalExecutor({ secrets: this.s.secrets, baseEnv: this.s.env });
    const nodeTargets: RunTarget[] = [];
    const places: Array<{ job: SlurmJobRecord; head: Executor }> = [];
    for (const job of jobs) {
      const info = await this.s.cluster.waitRunning(job.job_id, (i) => this.update(job, i), signal);
      if (info.state !== 'RUNNING') {
        await cancelAll();
        return { refused: signal?.aborted ? 'cancelled' : 'failed', reason: `Slurm job ${job.job_id} (${job.role}) ended ${info.state}${info.reason ? ` (${info.reason})` : ''} before it ran` };
      }
      job.nodes = job.node_count > 1 ? await this.s.cluster.hostnames(info.nodes) : [info.nodes];
      this.changed(job);
      const node = job.nodes[0] ?? info.nodes;
      const place = { jobId: job.job_id, node, nodes: job.nodes, address: await this.s.cluster.nodeAddress(node), partition: this.s.partition.name, ...(this.s.slurm.containerImage ? { containerImage: this.s.slurm.containerImage } : {}) };
      const targets = await this.nodeTargetsOf(job, login, place);
      nodeTargets.push(...targets);
      places.push({ job, head: (targets[0] as RunTarget).executor });
    }
    const release = async (): Promise<void> => {
      const heads = new Set(places.map((p) => p.head));
      for (const t of nodeTargets) if (!heads.has(t.executor)) await t.executor.close();
      for (const p of places) await this.release(p.job, p.head);
    };
    return { target: nodeTargets[0] as RunTarget, jobId: jobs.map((j) => j.job_id).join(','), nodeTargets, unitLayout, release };
  }

  private async submit(req: PlaceRequest, split: NodeSplit, role?: UnitRole): Promise<SlurmJobRecord | PlaceRefused> {
    const s = this.s.slurm;
    const tag = basename(resolve(this.s.opts.outDir));
    const name = `autobench-${tag}-${req.framework}-${req.candidateId}-${req.purpose}${role ? `-${role}` : ''}`.replace(/[^A-Za-z0-9_.-]/g, '_');
    // Absolute: sbatch resolves a relative --output against the job's working directory, not ours.
    const runDir = resolve(this.s.opts.outDir);
    const logs = join(runDir, 'slurm');
    mkdirSync(logs, { recursive: true });
    try {
      const id = await this.s.cluster.submit({
        name,
        partition: this.s.partition.name,
        ...(s.account ? { account: s.account } : {}),
        ...(s.qos ? { qos: s.qos } : {}),
        ...(s.constraint ? { constraint: s.constraint } : {}),
        timeLimit: s.timeLimit,
        gres: s.gres,
        gpus: split.gpusPerNode,
        nodes: split.nodes,
        // An MPI world is a task per GPU (TensorRT-LLM's --ntasks-per-node); the other frameworks one task per node.
        ...(split.nodes > 1 && isMpiWorld(req.framework) ? { tasksPerNode: split.gpusPerNode } : {}),
        // A real engine gets the whole node: no neighbour on its PCIe, NVLink or CPUs, and its default port is free.
        exclusive: !this.simulated,
        output: join(logs, `${name}-%j.out`),
        chdir: runDir,
        extra: s.sbatchArgs,
      });
      const job: SlurmJobRecord = { job_id: id, framework: req.framework, candidate: req.candidateId, purpose: req.purpose, gpus: req.gpus, partition: this.s.partition.name, node_count: split.nodes, gpus_per_node: split.gpusPerNode, nodes: [], state: 'PENDING', node: null, submitted_at: new Date().toISOString(), started_at: null, ended_at: null, times_from: 'squeue', ...(role ? { role } : {}) };
      this.jobs.set(id, job);
      this.changed(job);
      return job;
    } catch (e) {
      if (e instanceof SubmitRefused) return { refused: 'skipped', reason: e.message };
      throw e;
    }
  }

  private update(job: SlurmJobRecord, info: JobInfo, from: 'squeue' | 'sacct' = 'squeue'): void {
    job.state = info.state;
    if (info.nodes) job.node = info.nodes;
    if (info.start) job.started_at = info.start;
    if (info.end && isEnded(info.state)) job.ended_at = info.end;
    if (info.reason) job.reason = info.reason;
    else delete job.reason;
    job.times_from = from;
    this.changed(job);
  }

  /** The port the server will listen on in its job: the candidate's own, or (simulated, several jobs per node) a free one there. */
  private async prepareIn(ex: Executor, address: string, fw: FrameworkKey, flags: Record<string, unknown>): Promise<{ port: number; env: Record<string, string> }> {
    if (!this.launchEnv) return { port: portFlag(flags) ?? DEFAULT_PORTS[fw], env: { ...LAUNCH_ENV[fw] } };
    const port = await this.freePortIn(ex, address);
    return { port, env: this.launchEnv(fw, port) };
  }

  /** A free TCP port on the job's (head) node. */
  private freePortIn(ex: Executor, address: string): Promise<number> {
    return address === '127.0.0.1' || address === 'localhost' ? freePort() : freePortOn(ex, this.s.env.AUTOBENCH_NODE ?? 'node');
  }

  private async release(job: SlurmJobRecord, executor: Executor): Promise<void> {
    await executor.close();
    const info = await this.s.cluster.finish(job.job_id);
    if (info) this.update(job, info);
  }

  /** The interrupted run's jobs still queued or running: their servers died with the runner, so their allocations are given back. */
  async cancelLeftoverJobs(jobs: readonly SlurmJobRecord[]): Promise<string[]> {
    const live = (await this.s.cluster.jobs(jobs.map((j) => j.job_id))).filter((i) => !isEnded(i.state));
    await this.s.cluster.cancelAndWait(live.map((i) => i.id));
    return live.map((i) => `cancelling Slurm job ${i.id} (${i.state}) of the interrupted run: its trials that did not finish are measured again in a new job`);
  }

  /** Cancels every job of the run still queued or running, then reads their times from accounting where the cluster keeps it. */
  async close(): Promise<void> {
    const ids = [...this.jobs.values()].filter((j) => !isEnded(j.state as JobInfo['state'])).map((j) => j.job_id);
    await this.s.cluster.cancelAndWait(ids);
    const acct = await this.s.cluster.accounting([...this.jobs.keys()]);
    for (const info of acct) {
      const job = this.jobs.get(info.id);
      if (job && isEnded(info.state)) this.update(job, info, 'sacct');
    }
  }
}

/** A free TCP port on the job's node, asked of the node itself (the login host's view says nothing about it). */
async function freePortOn(ex: Executor, node: string): Promise<number> {
  const script = "const s=require('net').createServer();s.listen(0,()=>{console.log(s.address().port);s.close()})";
  const r = await ex.run([node, '-e', script], { timeoutMs: 60_000 });
  const port = Number(r.stdout.trim());
  if (r.code !== 0 || !Number.isInteger(port) || port <= 0) throw new Error(`slurm: could not find a free port on the node (${(r.stderr || r.stdout).trim() || `exit ${r.code}`})`);
  return port;
}
