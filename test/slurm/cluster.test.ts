// The test Slurm cluster behaves as the Slurm target relies on: one-GPU jobs run side by side on different GPUs, a job asking for more GPUs than exist is refused at submission, scancel ends a running job with its processes, and sacct keeps each job's start and end.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cancelJobs, ensureSlurm, jobPrefix, pollUntil, runCommand } from '../support/slurm';
import type { SlurmCluster } from '../support/slurm';

interface AcctRow {
  id: string;
  start: number;
  end: number;
  state: string;
  nodes: string;
}

/** A job's row from sacct once it has ended (sacct lags the scheduler by about a second). */
async function finished(ids: string[], state: RegExp): Promise<AcctRow[]> {
  return pollUntil(`sacct to report jobs ${ids.join(', ')} ended`, async () => {
    const r = await runCommand('sacct', ['-n', '-X', '-P', '-j', ids.join(','), '-o', 'JobID,Start,End,State,NodeList']);
    if (r.code !== 0) throw new Error(`sacct failed (exit ${r.code}): ${r.stderr}`);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('|'))
      .map(([id = '', start = '', end = '', st = '', nodes = '']) => ({ id, start: Date.parse(start), end: Date.parse(end), state: st, nodes }));
    const done = ids.flatMap((id) => rows.filter((row) => row.id === id && state.test(row.state) && Number.isFinite(row.end)).slice(0, 1));
    return done.length === ids.length ? done : undefined;
  });
}

/** A process that is gone or a zombie (where PID 1 is not an init, it reaps exited processes late). */
function gone(pid: number): boolean {
  try {
    return / Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\)/, ')'));
  } catch {
    return true;
  }
}

describe('the test Slurm cluster', () => {
  let cluster: SlurmCluster;
  let dir: string;
  const prefix = jobPrefix('cluster');

  async function sbatch(name: string, args: string[], script: string): Promise<string> {
    const r = await runCommand('sbatch', ['--parsable', '-J', prefix + name, '-D', dir, '-o', `${name}.out`, ...args, '--wrap', script]);
    assert.equal(r.code, 0, `sbatch ${name}: ${r.stderr}`);
    return r.stdout.trim().split(';')[0] ?? '';
  }

  const read = (name: string): string | undefined => {
    const p = join(dir, name);
    const text = existsSync(p) ? readFileSync(p, 'utf8') : '';
    return text.endsWith('\n') ? text : undefined;
  };

  before(
    async () => {
      cluster = await ensureSlurm();
      dir = mkdtempSync(join(tmpdir(), 'autobench-slurm-'));
    },
    { timeout: 180_000 },
  );
  after(async () => {
    if (cluster) await cancelJobs(prefix);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('two one-GPU jobs run at the same time on different GPUs, and sacct shows their intervals overlap', async () => {
    assert.ok(cluster.gpus >= 2, `the node has ${cluster.gpus} GPU(s); this test needs 2`);
    // Each job writes its GPU, then waits for the release file: both GPU files existing means both were running.
    const job = (n: string): string => `echo "$CUDA_VISIBLE_DEVICES" > ${n}.gpu; while [ ! -e release ]; do sleep 0.1; done`;
    const a = await sbatch('a', ['--gres=gpu:1'], job('a'));
    const b = await sbatch('b', ['--gres=gpu:1'], job('b'));
    const [gpuA, gpuB] = await pollUntil('both one-GPU jobs to be running', () => {
      const ga = read('a.gpu');
      const gb = read('b.gpu');
      return ga !== undefined && gb !== undefined ? [ga.trim(), gb.trim()] : undefined;
    });
    assert.match(gpuA ?? '', /^\d+$/);
    assert.match(gpuB ?? '', /^\d+$/);
    assert.notEqual(gpuA, gpuB, 'both jobs were given the same GPU');
    assert.ok(Number(gpuA) < cluster.gpus && Number(gpuB) < cluster.gpus, `GPUs ${gpuA}, ${gpuB} of ${cluster.gpus}`);
    writeFileSync(join(dir, 'release'), '');

    const [ra, rb] = (await finished([a, b], /^COMPLETED$/)) as [AcctRow, AcctRow];
    for (const r of [ra, rb]) {
      assert.ok(Number.isFinite(r.start) && r.start <= r.end, `job ${r.id}: start ${r.start}, end ${r.end}`);
      assert.equal(r.nodes, cluster.node);
    }
    // Whole seconds: two intervals that overlapped still overlap after truncation.
    assert.ok(ra.start <= rb.end && rb.start <= ra.end, `not overlapping: ${JSON.stringify([ra, rb])}`);
  });

  test('a job asking for more GPUs than the node has is refused at submission', async () => {
    const r = await runCommand('sbatch', ['-J', `${prefix}too-many`, '-D', dir, `--gres=gpu:${cluster.gpus + 1}`, '--wrap', 'touch ran']);
    assert.notEqual(r.code, 0, `sbatch accepted it: ${r.stdout}`);
    assert.match(r.stderr, /Requested node configuration is not available/);
  });

  test('scancel ends a running job and the processes it started', async () => {
    // The job's shell, a background child, and a double-forked process whose parent has exited.
    const id = await sbatch(
      'cancel',
      ['--gres=gpu:1'],
      `echo $$ >> pids; sleep 300 & echo $! >> pids; setsid -f sh -c 'echo $$ >> pids; exec sleep 300'; wait`,
    );
    const pids = await pollUntil('the job to start its processes', () => {
      const text = read('pids');
      const list = text?.trim().split('\n').map(Number) ?? [];
      return list.length === 3 ? list : undefined;
    });
    const state = await runCommand('squeue', ['-h', '-j', id, '-o', '%T']);
    assert.equal(state.stdout.trim(), 'RUNNING');

    const r = await runCommand('scancel', [id]);
    assert.equal(r.code, 0, r.stderr);
    const [row] = await finished([id], /^CANCELLED/);
    assert.ok(row && Number.isFinite(row.start) && row.start <= row.end);
    // linuxproc (where cgroups are missing) tracks processes by parent links and misses the double-forked one.
    const tracked = cluster.proctrack === 'cgroup' ? pids : pids.slice(0, 2);
    await pollUntil(`processes ${tracked.join(', ')} to end`, () => (tracked.every(gone) ? true : undefined), 15_000);
    if (cluster.proctrack !== 'cgroup') {
      const orphan = pids[2] as number;
      if (!gone(orphan)) process.kill(orphan, 'SIGKILL');
    }
  });
});
