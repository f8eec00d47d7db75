// The local target: process-group teardown, secrets by name only, redacted logs, run() timeouts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/exec/local';
import { groupMembers } from '../../src/exec/process-group';
import type { ServerProcess } from '../../src/exec/types';

const TOKEN = 'hf_' + 'AbCdEfGhIjKlMnOpQrStUvWx0123';

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'autobench-local-'));
}

/** Resolves with the first output line matching, from the onLine hook. */
function lineWaiter(re: RegExp): { onLine: (l: string) => void; seen: Promise<string> } {
  let hit: (l: string) => void = () => undefined;
  const seen = new Promise<string>((r) => (hit = r));
  return { onLine: (l) => void (re.test(l) && hit(l)), seen };
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

function childrenOfGroup(pgid: number): number[] {
  return groupMembers(pgid) ?? [];
}

describe('LocalExecutor', () => {
  test('stop() kills the whole process tree, not just the leader', async () => {
    const ex = new LocalExecutor();
    const w = lineWaiter(/^started$/);
    const server: ServerProcess = await ex.start({
      argv: ['sh', '-c', 'sleep 1000 & sleep 1000 & (sleep 1000 & wait) & echo started; wait'],
      onLine: w.onLine,
    });
    await w.seen;
    const members = childrenOfGroup(server.pgid);
    assert.ok(members.length >= 4, `expected sh + 3 sleeps + subshell, got ${members.join(',')}`);
    assert.equal(server.pgid, server.pid);
    assert.equal(server.running, true);
    const info = await server.stop({ graceMs: 5000 });
    assert.equal(info.signal, 'SIGTERM');
    for (const pid of members) assert.equal(alive(pid), false, `pid ${pid} survived stop()`);
    assert.deepEqual(childrenOfGroup(server.pgid), []);
    assert.equal(server.running, false);
    await ex.close();
  });

  test('a child ignoring TERM is killed after the grace period', async () => {
    const ex = new LocalExecutor();
    const w = lineWaiter(/^ready$/);
    const server = await ex.start({
      argv: ['sh', '-c', "trap '' TERM; sh -c 'trap \"\" TERM; echo ready; while :; do sleep 1; done' & wait"],
      onLine: w.onLine,
    });
    await w.seen;
    const members = childrenOfGroup(server.pgid);
    const t0 = Date.now();
    await server.stop({ graceMs: 300 });
    assert.ok(Date.now() - t0 >= 300, 'KILL came before the grace was over');
    for (const pid of members) assert.equal(alive(pid), false, `pid ${pid} survived KILL`);
  });

  test('stop() after the leader exited still kills what it left in the group', async () => {
    const ex = new LocalExecutor();
    const w = lineWaiter(/^orphan \d+$/);
    const server = await ex.start({
      // The leader exits at once; its background sleep stays in the group (stdout closed so the
      // pipe does not keep the leader's 'close' from firing).
      argv: ['sh', '-c', 'sleep 1000 >/dev/null 2>&1 & echo "orphan $!"'],
      onLine: w.onLine,
    });
    const orphan = Number((await w.seen).split(' ')[1]);
    const info = await server.exited;
    assert.equal(info.code, 0);
    assert.equal(alive(orphan), true);
    await server.stop({ graceMs: 2000 });
    assert.equal(alive(orphan), false);
  });

  test('secrets reach the process environment but not its argv nor the log', async () => {
    const dir = tmp();
    try {
      const logFile = join(dir, 'server.log');
      const ex = new LocalExecutor({ secrets: (n) => (n === 'HF_TOKEN' ? TOKEN : undefined) });
      const w = lineWaiter(/^up$/);
      const server = await ex.start({
        // No exec: /proc/PID/environ can read empty while the process is replacing itself (a CI flake).
        argv: ['sh', '-c', 'echo "token is $HF_TOKEN"; echo "plain is $PLAIN"; echo up; sleep 1000; :'],
        env: { PLAIN: 'visible' },
        secretEnv: ['HF_TOKEN', 'NOT_SET_ANYWHERE'],
        logFile,
        onLine: w.onLine,
      });
      await w.seen;
      const environ = readFileSync(`/proc/${server.pid}/environ`, 'latin1').split('\0');
      assert.ok(environ.includes(`HF_TOKEN=${TOKEN}`), 'secret missing from the environment');
      assert.ok(!environ.some((e) => e.startsWith('NOT_SET_ANYWHERE=')), 'an unset secret must stay unset');
      const cmdline = readFileSync(`/proc/${server.pid}/cmdline`, 'latin1');
      assert.ok(!cmdline.includes(TOKEN), 'secret in argv');
      await server.stop({ graceMs: 2000 });
      const log = readFileSync(logFile, 'utf8');
      assert.ok(!log.includes(TOKEN), 'secret in the log');
      assert.match(log, /^token is <redacted>$/m);
      assert.match(log, /^plain is visible$/m);
      assert.deepEqual(server.logTail(1), ['up']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a secret-looking variable of ours is not inherited unless named', async () => {
    const ex = new LocalExecutor({ baseEnv: { ...process.env, OTHER_API_KEY: 'x'.repeat(20), KEEP_ME: 'yes' } });
    const r = await ex.run(['sh', '-c', 'echo "${OTHER_API_KEY:-unset} $KEEP_ME"']);
    assert.equal(r.stdout, 'unset yes\n');
  });

  test('token-shaped strings in server output are redacted in the log file', async () => {
    const dir = tmp();
    try {
      const logFile = join(dir, 'server.log');
      const ex = new LocalExecutor();
      const fake = 'hf_' + 'ZyXwVuTsRqPoNmLkJiHg98765';
      // Two writes (test/exec/log-sink.test.ts splits chunks deterministically).
      const server = await ex.start({
        argv: ['sh', '-c', `printf 'key=${fake.slice(0, 8)}'; printf '${fake.slice(8)} end\\n'; echo 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123'`],
        logFile,
      });
      await server.exited;
      const log = readFileSync(logFile, 'utf8');
      assert.ok(!log.includes(fake));
      assert.ok(!log.includes('abcdefghijklmnopqrstuvwxyz0123'));
      assert.match(log, /^key=<redacted> end$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('run() captures code, stdout, stderr and kills the group on timeout', async () => {
    const ex = new LocalExecutor();
    const ok = await ex.run(['sh', '-c', 'echo out; echo err >&2; exit 3']);
    assert.deepEqual(ok, { code: 3, signal: null, stdout: 'out\n', stderr: 'err\n' });
    const dir = tmp();
    try {
      const pidFile = join(dir, 'pid');
      const slow = await ex.run(['sh', '-c', `sleep 1000 & echo $! > ${pidFile}; wait`], { timeoutMs: 300 });
      assert.equal(slow.timedOut, true);
      assert.equal(alive(Number(readFileSync(pidFile, 'utf8'))), false, 'the background sleep survived the timeout');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('start() of a missing binary rejects; forward() is the identity; copyBack and copyTo copy', async () => {
    const ex = new LocalExecutor();
    await assert.rejects(ex.start({ argv: ['/nonexistent/autobench-server'] }), /ENOENT/);
    const fwd = await ex.forward(8123);
    assert.equal(fwd.localPort, 8123);
    assert.equal(fwd.localHost, '127.0.0.1');
    const dir = tmp();
    try {
      writeFileSync(join(dir, 'a.json'), '{"x":1}');
      await ex.copyBack(join(dir, 'a.json'), join(dir, 'out', 'b.json'));
      assert.equal(readFileSync(join(dir, 'out', 'b.json'), 'utf8'), '{"x":1}');
      await ex.copyBack(join(dir, 'out'), join(dir, 'copy'));
      assert.deepEqual(readdirSync(join(dir, 'copy')), ['b.json']);
      assert.equal(existsSync(join(dir, 'copy', 'b.json')), true);
      await ex.copyTo(join(dir, 'a.json'), join(dir, 'to', 'deep', 'c.json'));
      assert.equal(readFileSync(join(dir, 'to', 'deep', 'c.json'), 'utf8'), '{"x":1}');
      assert.deepEqual(readdirSync(join(dir, 'to', 'deep')), ['c.json'], 'no part file left');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('close() stops every server still running', async () => {
    const ex = new LocalExecutor();
    const a = await ex.start({ argv: ['sleep', '1000'] });
    const b = await ex.start({ argv: ['sh', '-c', 'sleep 1000 & wait'] });
    await ex.close();
    assert.equal(alive(a.pid), false);
    assert.deepEqual(childrenOfGroup(b.pgid), []);
  });
});
