// The real Slurm cluster of tools/slurm-host/setup.sh for the suites that submit jobs (partition autobench: one node; autobench2n: two nodes; each node a network namespace reached at an address that is not loopback): started when it is not running (a test run brings what it needs), never skipped, and the jobs a suite leaves behind cancelled.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REPO } from './fixtures';
import { after, before } from 'node:test';

export const SLURM_SETUP = path.join(REPO, 'tools', 'slurm-host', 'setup.sh');
export const SLURM_PARTITION = 'autobench';
/** The two-node partition (n1, n2: two slurmd on this machine) for jobs that span nodes. */
export const SLURM_PARTITION_2N = 'autobench2n';

export interface SlurmCluster {
  /** The default partition every test job goes to. */
  partition: string;
  /** Fake GPUs on the node (`Gres=gpu:N`, AUTOBENCH_SLURM_GPUS); jobs get CUDA_VISIBLE_DEVICES from 0 to N-1. */
  gpus: number;
  /** The node's name (n0): no host name, as on a real cluster it is reached at its NodeAddr. */
  node: string;
  /** The node's NodeAddr: its network namespace's address on the test bridge (not loopback: a server bound to 127.0.0.1 there is not reachable from here). */
  nodeAddr: string;
  /** `cgroup` kills every process of a cancelled job; `linuxproc` misses one whose parent already exited. */
  proctrack: string;
  /** The two-node partition: its name, its nodes and the fake GPUs of each. */
  twoNodes: { partition: string; nodes: string[]; gpusPerNode: number };
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, whatever its exit status; rejects only when it cannot start or overruns `timeoutMs`. */
export function runCommand(file: string, args: string[], timeoutMs = 30_000, cwd?: string): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ${args.join(' ')} did not finish within ${timeoutMs / 1000} s:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** Calls `fn` every 100 ms until it returns something other than undefined; fails naming `what` after `timeoutMs`. */
export async function pollUntil<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A job-name prefix of this process's own, for `cancelJobs` in an `after` hook. */
export function jobPrefix(suite: string): string {
  return `autobench-test-${suite}-${process.pid}-`;
}

let cluster: Promise<SlurmCluster> | undefined;

/** The running test cluster; starts it (as root) when `setup.sh status` says it is not usable, and throws saying why when it cannot. */
export function ensureSlurm(): Promise<SlurmCluster> {
  cluster ??= bringUp();
  return cluster;
}

async function bringUp(): Promise<SlurmCluster> {
  const status = await runCommand('bash', [SLURM_SETUP, 'status'], 60_000);
  if (status.code !== 0) {
    if (process.getuid?.() !== 0) {
      throw new Error(`the test Slurm cluster is not running, and only root can start it: sudo ${SLURM_SETUP} start\n${status.stdout}${status.stderr}`);
    }
    // From a clean state about 10 s (MariaDB's first start and slurmdbd's tables), otherwise 1-3 s.
    const start = await runCommand('bash', [SLURM_SETUP, 'start'], 180_000);
    if (start.code !== 0) {
      throw new Error(`${SLURM_SETUP} start failed (exit ${start.code}):\n${lastLines(start.stdout + start.stderr, 30)}`);
    }
    const again = await runCommand('bash', [SLURM_SETUP, 'status'], 60_000);
    if (again.code !== 0) throw new Error(`the test Slurm cluster started but is not usable (${SLURM_SETUP} status):\n${again.stdout}${again.stderr}`);
  }
  return describeCluster();
}

async function describeCluster(): Promise<SlurmCluster> {
  const sinfo = await runCommand('sinfo', ['-h', '-p', SLURM_PARTITION, '-o', '%N|%G']);
  const [node = '', gres = ''] = sinfo.stdout.trim().split('|');
  const gpus = Number(/gpu:(\d+)/.exec(gres)?.[1] ?? NaN);
  if (sinfo.code !== 0 || node === '' || !Number.isInteger(gpus)) {
    throw new Error(`cannot read partition ${SLURM_PARTITION} from sinfo (exit ${sinfo.code}): ${sinfo.stdout}${sinfo.stderr}`);
  }
  const show = await runCommand('scontrol', ['show', 'node', node]);
  const nodeAddr = /\bNodeAddr=(\S+)/.exec(show.stdout)?.[1];
  if (!nodeAddr) throw new Error(`cannot read NodeAddr of node ${node} (scontrol show node, exit ${show.code}): ${show.stdout}${show.stderr}`);
  const config = await runCommand('scontrol', ['show', 'config']);
  const proctrack = /^ProctrackType\s*=\s*proctrack\/(\S+)/m.exec(config.stdout)?.[1] ?? 'unknown';
  const two = await runCommand('sinfo', ['-h', '-N', '-p', SLURM_PARTITION_2N, '-o', '%N|%G']);
  const lines = two.stdout.trim().split('\n').map((l) => l.split('|'));
  const nodes = lines.map(([n = '']) => n).filter((n) => n !== '');
  const perNode = Math.min(...lines.map(([, g = '']) => Number(/gpu:(\d+)/.exec(g)?.[1] ?? NaN)));
  if (two.code !== 0 || nodes.length < 2 || !Number.isInteger(perNode)) {
    throw new Error(`cannot read the two-node partition ${SLURM_PARTITION_2N} from sinfo (exit ${two.code}): ${two.stdout}${two.stderr}; run ${SLURM_SETUP} start`);
  }
  return { partition: SLURM_PARTITION, gpus, node, nodeAddr, proctrack, twoNodes: { partition: SLURM_PARTITION_2N, nodes, gpusPerNode: perNode } };
}

/** Cancels every queued or running job whose name starts with `prefix` and waits until Slurm has ended them; returns their ids. */
export async function cancelJobs(prefix: string, timeoutMs = 30_000): Promise<string[]> {
  const ours = async (): Promise<string[]> => {
    const q = await runCommand('squeue', ['-h', '-o', '%i|%j']);
    if (q.code !== 0) throw new Error(`squeue failed (exit ${q.code}): ${q.stderr}`);
    return q.stdout
      .split('\n')
      .map((l) => l.split('|'))
      .filter(([id, name]) => id && name?.startsWith(prefix))
      .map(([id]) => id as string);
  };
  const ids = await ours();
  if (ids.length === 0) return [];
  const r = await runCommand('scancel', ids);
  if (r.code !== 0) throw new Error(`scancel ${ids.join(' ')} failed (exit ${r.code}): ${r.stderr}`);
  // squeue lists a cancelled job until its processes are gone (state COMPLETING).
  await pollUntil(`jobs ${ids.join(', ')} to end after scancel`, async () => ((await ours()).length === 0 ? true : undefined), timeoutMs);
  return ids;
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/** Jobs named with `prefix` still queued or running, as `id|name`. */
export async function liveJobs(prefix: string): Promise<string[]> {
  const q = await runCommand('squeue', ['-h', '-o', '%i|%j']);
  return q.stdout.split('\n').filter((l) => l.split('|')[1]?.startsWith(prefix));
}

/** Processes running the simulator bundle `js` (the engines a suite's jobs started), as `pid args`. */
export async function simProcesses(js: string): Promise<string[]> {
  const r = await runCommand('ps', ['-eo', 'pid=,args=']);
  return r.stdout.split('\n').filter((l) => l.includes(js) && !l.includes(' ps '));
}

/** A suite's run folders under fresh temp dirs, named with its job prefix (so its jobs can be found and cancelled), removed by `cleanupAll`. */
export function runFolders(prefix: string): { outDir: (name: string) => string; cleanupAll: () => void } {
  const dirs: string[] = [];
  return {
    outDir: (name) => {
      const d = mkdtempSync(path.join(tmpdir(), 'autobench-run-'));
      dirs.push(d);
      return path.join(d, `${prefix.replace(/^autobench-/, '')}${name}`);
    },
    cleanupAll: () => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })),
  };
}

/** The network namespace setup.sh runs node `node`'s slurmd in (its jobs' processes are in it too). */
export function nodeNetns(node: string): string {
  return `/run/netns/abslurm-${node}`;
}

/**
 * The processes running on node `node` (in its network namespace) other than its slurmd, as `pid args`; with `jobIds`,
 * only those of these jobs (SLURM_JOB_ID in their environment: a child that left its process group keeps it).
 */
export function nodeProcesses(node: string, jobIds?: readonly string[]): string[] {
  const ns = netnsId(nodeNetns(node));
  const out: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/net`) !== ns) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (/^\/usr\/sbin\/slurmd\b/.test(args)) continue;
      if (jobIds) {
        const job = /(?:^|\0)SLURM_JOB_ID=(\d+)/.exec(readFileSync(`/proc/${name}/environ`, 'utf8'))?.[1];
        if (!job || !jobIds.includes(job)) continue;
      }
      out.push(`${name} ${args}`);
    } catch {
      /* gone while reading */
    }
  }
  return out;
}

/** A namespace's identity as /proc/PID/ns/net names it (`net:[INODE]`). */
function netnsId(file: string): string {
  if (!existsSync(file)) throw new Error(`no network namespace ${file} (tools/slurm-host/setup.sh start makes it)`);
  return `net:[${statSync(file).ino}]`;
}

/**
 * A suite's Slurm setup in one call (inside its describe): the cluster started before the tests, the suite's jobs
 * cancelled and its run folders removed after them. `cluster()` is the running cluster, `outDir` a fresh run folder.
 */
export function slurmSuite(prefix: string): { cluster: () => SlurmCluster; outDir: (name: string) => string } {
  let running: SlurmCluster | undefined;
  const { outDir, cleanupAll } = runFolders(prefix);
  before(async () => {
    running = await ensureSlurm();
  });
  after(async () => {
    await cancelJobs(prefix);
    cleanupAll();
  });
  return {
    cluster: () => {
      if (!running) throw new Error('the Slurm cluster is not up (slurmSuite: called outside a describe?)');
      return running;
    },
    outDir,
  };
}
