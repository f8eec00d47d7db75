// Teardown leaves nothing (audit #2, issue 25 Build 4): a server's worker in a session of its own (TensorRT-LLM's orted-spawned MPI workers) is found by the launch's marker variable or the pre-TERM process tree and ended, on the local and the ssh target.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/exec/local';
import { SshExecutor } from '../../src/exec/ssh';
import { LAUNCH_ID_ENV } from '../../src/exec/descendants';
import type { Executor, ServerProcess } from '../../src/exec/types';
import { skipWhenMissing } from '../support/requirements';
import { sshdMissing, startSshd, type Sshd } from '../support/sshd';

/** A server that starts a worker in a new session (so a new group), as mpirun's orted does, and prints its pid. */
const ORTED_LIKE = `setsid sh -c 'echo "worker $$"; exec sleep 1000' & echo ready; wait`;
/** The same, but the worker starts from an empty environment: only the process tree taken before TERM finds it. */
const CLEAN_ENV_WORKER = `setsid env -i sh -c 'echo "worker $$"; exec sleep 1000' & echo ready; wait`;
/** A server that dies at once and leaves its worker behind (a crash): only the marker finds the orphan. */
const CRASHING = `setsid sh -c 'echo "worker $$"; exec sleep 1000' & sleep 0.3; exit 3`;

function stat(pid: number): { state: string; pgid: number; sid: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0] ?? '?', pgid: Number(f[2]), sid: Number(f[3]) };
  } catch {
    return undefined;
  }
}

function readComm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'latin1').trim();
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z' && s.state !== 'X';
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

async function startWithWorker(ex: Executor, script: string): Promise<{ server: ServerProcess; worker: number }> {
  let hit: (pid: number) => void = () => undefined;
  const seen = new Promise<number>((r) => (hit = r));
  const server = await ex.start({ argv: ['sh', '-c', script], onLine: (l) => void (/^worker \d+$/.test(l) && hit(Number(l.split(' ')[1]))) });
  const worker = await seen;
  // The worker printed its pid, then exec'd sleep: wait for that exec to be over before reading its /proc files.
  for (let i = 0; i < 100 && readComm(worker) !== 'sleep'; i++) await new Promise((r) => setTimeout(r, 20));
  return { server, worker };
}

/** The checks every target shares: the worker is really outside the group, and stop() ends it and says so. */
async function checkEnded(ex: Executor, script: string, opts: { waitExit?: boolean; waitLeaderGone?: boolean } = {}): Promise<void> {
  const { server, worker } = await startWithWorker(ex, script);
  try {
    const s = stat(worker);
    assert.ok(s, `worker ${worker} is not running`);
    assert.notEqual(s.pgid, server.pgid, 'the fixture worker must be outside the server group');
    if (opts.waitExit) await server.exited;
    // Over ssh the channel stays open while the orphan holds its output: wait for the leader itself to be gone.
    if (opts.waitLeaderGone) for (let i = 0; i < 100 && alive(server.pid); i++) await new Promise((r) => setTimeout(r, 50));
    if (opts.waitLeaderGone) assert.equal(alive(server.pid), false, 'the server leader should have exited');
    const info = await server.stop({ graceMs: 500 });
    assert.equal(alive(worker), false, `worker ${worker} (its own session) survived stop()`);
    assert.ok(
      info.leftovers?.some((l) => l.startsWith(`${worker} `)),
      `stop() should say it ended worker ${worker}: ${JSON.stringify(info.leftovers)}`,
    );
  } finally {
    killQuietly(worker);
  }
}

describe('teardown of workers outside the server group: local target', () => {
  test('the launch marker is in the server environment and inherited by a setsid worker', async () => {
    const ex = new LocalExecutor();
    const { server, worker } = await startWithWorker(ex, ORTED_LIKE);
    try {
      const env = readFileSync(`/proc/${worker}/environ`, 'latin1').split('\0');
      const mark = env.find((e) => e.startsWith(`${LAUNCH_ID_ENV}=`));
      assert.ok(mark && /^AUTOBENCH_LAUNCH_ID=[0-9a-f]{18}$/.test(mark), `marker missing: ${mark}`);
      assert.ok(readFileSync(`/proc/${server.pid}/environ`, 'latin1').split('\0').includes(mark));
    } finally {
      await server.stop({ graceMs: 500 });
      killQuietly(worker);
      await ex.close();
    }
  });

  test('stop() ends a worker in a session of its own (orted-like) and lists it in leftovers', async () => {
    const ex = new LocalExecutor();
    await checkEnded(ex, ORTED_LIKE);
    await ex.close();
  });

  test('a worker that dropped the environment is still found through the process tree taken before TERM', async () => {
    const ex = new LocalExecutor();
    await checkEnded(ex, CLEAN_ENV_WORKER);
    await ex.close();
  });

  test('after the server crashed, its orphaned worker (re-parented) is found by the marker', async () => {
    const ex = new LocalExecutor();
    await checkEnded(ex, CRASHING, { waitExit: true });
    await ex.close();
  });

  test('a plain server with nothing outside its group reports no leftovers', async () => {
    const ex = new LocalExecutor();
    let ready: () => void = () => undefined;
    const seen = new Promise<void>((r) => (ready = r));
    const server = await ex.start({ argv: ['sh', '-c', 'sleep 1000 & echo ready; wait'], onLine: (l) => void (l === 'ready' && ready()) });
    await seen;
    const info = await server.stop({ graceMs: 500 });
    assert.equal(info.leftovers, undefined);
    await ex.close();
  });
});

describe('teardown of workers outside the server group: ssh target', { skip: skipWhenMissing(sshdMissing()) }, () => {
  let sshd: Sshd;
  let ex: SshExecutor;
  before(async () => {
    sshd = await startSshd();
    const knownHostsPath = join(sshd.dir, 'known_hosts');
    writeFileSync(knownHostsPath, sshd.knownHostsLine + '\n');
    ex = await SshExecutor.connect({ host: 'sshd-test', configPath: sshd.writeConfig(), knownHostsPath, agent: false });
  });
  after(async () => {
    await ex?.close();
    await sshd?.close();
  });

  test('stop() ends a worker in a session of its own (orted-like) and lists it in leftovers', async () => {
    await checkEnded(ex, ORTED_LIKE);
  });

  test('a worker that dropped the environment is still found through the process tree taken before TERM', async () => {
    await checkEnded(ex, CLEAN_ENV_WORKER);
  });

  test('after the server crashed, its orphaned worker is found by the marker', async () => {
    await checkEnded(ex, CRASHING, { waitLeaderGone: true });
  });
});
