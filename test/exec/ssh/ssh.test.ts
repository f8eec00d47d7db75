// SshExecutor against a real OpenSSH server on 127.0.0.1: commands, servers reached through the forward, group teardown, secrets, copy-back and copy-to, a dropped connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SshExecutor } from '../../../src/exec/ssh';
import type { SshExecutorOptions } from '../../../src/exec/ssh';
import { ConnectionLostError } from '../../../src/exec/types';
import { skipWhenMissing } from '../../support/requirements';
import { sshdMissing, startSshd } from '../../support/sshd';
import type { Sshd } from '../../support/sshd';

const TOKEN = 'hf_' + 'SsHtEsTtOkEnAbCdEfGhIjKl42';
const skip = skipWhenMissing(sshdMissing());

/** Live (non-zombie) processes of a group on the host, from ps as the brief asks. */
function groupOnHost(pgid: number): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => Number(f[1]) === pgid && !(f[2] ?? '').startsWith('Z'))
    .map((f) => f.join(' '));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(a && typeof a === 'object' ? a.port : 0));
    });
  });
}

function httpGet(port: number, path = '/'): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

function waitLine(re: RegExp): { onLine: (l: string) => void; seen: Promise<string> } {
  let hit: (l: string) => void = () => undefined;
  const seen = new Promise<string>((r) => (hit = r));
  return { onLine: (l) => void (re.test(l) && hit(l)), seen };
}

describe('SshExecutor on a real sshd', { skip }, () => {
  let sshd: Sshd;
  let ex: SshExecutor;
  let opts: SshExecutorOptions;
  let serverJs: string;

  before(async () => {
    sshd = await startSshd();
    const knownHostsPath = join(sshd.dir, 'known_hosts');
    writeFileSync(knownHostsPath, sshd.knownHostsLine + '\n');
    opts = {
      host: 'sshd-test',
      configPath: sshd.writeConfig(),
      knownHostsPath,
      agent: false,
      secrets: (n) => (n === 'HF_TOKEN' ? TOKEN : undefined),
    };
    ex = await SshExecutor.connect(opts);
    serverJs = join(sshd.dir, 'server.js');
    writeFileSync(
      serverJs,
      `const http = require('http');
const port = Number(process.argv[2]);
http.createServer((q, s) => s.end('hello ' + (process.env.GREETING || '') + ' ' + q.url))
  .listen(port, '127.0.0.1', () => console.log('listening ' + port + ' token=' + (process.env.HF_TOKEN || 'none')));
`,
    );
  });

  after(async () => {
    await ex?.close();
    await sshd?.close();
  });

  test('describe() names user, host and port', () => {
    assert.equal(ex.describe(), `ssh ${sshd.user}@127.0.0.1:${sshd.port}`);
    assert.equal(ex.target, 'ssh:sshd-test');
  });

  test('run(): argv and env survive the remote shell byte for byte; code and stderr come back', async () => {
    const nasty = [`it's`, '$(id)', '`id`', 'a b', '"', '\\', '*', '', '--x=$HOME'];
    const r = await ex.run(['sh', '-c', 'for a in "$@"; do printf "[%s]" "$a"; done; echo; echo "$V"; pwd; echo oops >&2; exit 4', 'argv0', ...nasty], {
      env: { V: `v'al $HOME` },
      cwd: '/tmp',
    });
    assert.equal(r.code, 4);
    assert.equal(r.stdout, `${nasty.map((a) => `[${a}]`).join('')}\nv'al $HOME\n/tmp\n`);
    assert.equal(r.stderr, 'oops\n');
  });

  test('run(): a timeout kills the command and what it spawned on the host', async () => {
    // The command never ends by itself; the limit leaves room for the ssh session's set-up on a loaded machine,
    // so the pid has come back before the timeout fires (500 ms failed under load: empty stdout).
    const r = await ex.run(['sh', '-c', 'sleep 1000 & echo $!; wait'], { timeoutMs: 5000 });
    assert.equal(r.timedOut, true);
    const pid = Number(r.stdout.trim());
    assert.ok(pid > 1, r.stdout);
    const ps = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    assert.ok(ps === '' || ps.startsWith('Z'), `the background sleep ${pid} survived: ${ps}`);
  });

  test('start(): a server on the host reached through forward(); stop() leaves nothing behind', async () => {
    const port = await freePort();
    const log = join(sshd.dir, 'logs', 'server.log');
    const w = waitLine(/^listening /);
    const server = await ex.start({ argv: [process.execPath, serverJs, String(port)], env: { GREETING: 'world' }, logFile: log, onLine: w.onLine });
    await w.seen;
    assert.equal(server.running, true);
    assert.ok(groupOnHost(server.pgid).some((l) => l.includes('server.js')), 'the server runs in the reported group');
    const fwd = await ex.forward(port);
    assert.notEqual(fwd.localPort, port);
    assert.equal(await httpGet(fwd.localPort, '/v1/models'), 'hello world /v1/models');
    // Several at once: each is its own channel on the one connection.
    const many = await Promise.all(Array.from({ length: 12 }, (_, i) => httpGet(fwd.localPort, `/${i}`)));
    assert.deepEqual(many, Array.from({ length: 12 }, (_, i) => `hello world /${i}`));
    await fwd.close();
    const info = await server.stop({ graceMs: 3000 });
    assert.equal(info.error, undefined);
    assert.deepEqual(groupOnHost(server.pgid), []);
    assert.equal(server.running, false);
    assert.match(readFileSync(log, 'utf8'), new RegExp(`^listening ${port} token=none$`, 'm'));
  });

  test('stop(): a tree of background processes is killed as a group; TERM-ignoring members get KILL', async () => {
    const w = waitLine(/^ready$/);
    const server = await ex.start({
      argv: ['sh', '-c', "sleep 1000 & sleep 1000 & sh -c 'trap \"\" TERM; while :; do sleep 1; done' & echo ready; wait"],
      onLine: w.onLine,
    });
    await w.seen;
    assert.ok(groupOnHost(server.pgid).length >= 4, groupOnHost(server.pgid).join('\n'));
    await server.stop({ graceMs: 500 });
    assert.deepEqual(groupOnHost(server.pgid), []);
  });

  test('secrets: in the server environment on the host, not in any cmdline, not in the log', async () => {
    const port = await freePort();
    const log = join(sshd.dir, 'logs', 'secret.log');
    const w = waitLine(/^listening /);
    const server = await ex.start({ argv: [process.execPath, serverJs, String(port)], secretEnv: ['HF_TOKEN', 'UNSET_SECRET'], logFile: log, onLine: w.onLine });
    const line = await w.seen;
    assert.equal(line, `listening ${port} token=<redacted>`);
    const environ = readFileSync(`/proc/${server.pid}/environ`, 'latin1').split('\0');
    assert.ok(environ.includes(`HF_TOKEN=${TOKEN}`), 'the secret did not reach the server');
    assert.ok(!environ.some((e) => e.startsWith('UNSET_SECRET=')));
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      } catch {
        continue;
      }
      assert.ok(!cmdline.includes(TOKEN), `the secret is in the cmdline of pid ${pid}`);
    }
    await server.stop({ graceMs: 2000 });
    assert.ok(!readFileSync(log, 'utf8').includes(TOKEN));
    assert.ok(!sshd.log().includes(TOKEN));
    const r = await ex.run(['sh', '-c', 'echo "$HF_TOKEN"'], { secretEnv: ['HF_TOKEN'] });
    assert.equal(r.stdout, '<redacted>\n', 'run() output is redacted of the secret values it was given');
  });

  test('start(): a command that cannot start reports why', async () => {
    await assert.rejects(ex.start({ argv: ['true'], cwd: '/nonexistent/dir' }), /did not start \(exit 98\)[\s\S]*nonexistent/);
    const server = await ex.start({ argv: ['/nonexistent/bin/server'] });
    const info = await server.exited;
    assert.equal(info.code, 127);
    assert.match(server.logTail().join('\n'), /not found/);
  });

  test('copyBack(): a file and a folder', async () => {
    const remote = join(sshd.dir, 'remote-artifacts');
    mkdirSync(join(remote, 'trials'), { recursive: true });
    writeFileSync(join(remote, 'trials', 'r1.json'), '{"ok":true}');
    writeFileSync(join(remote, 'summary.md'), '# sum\n');
    const local = mkdtempSync(join(tmpdir(), 'autobench-copyback-'));
    try {
      await ex.copyBack(join(remote, 'summary.md'), join(local, 'one', 'summary.md'));
      assert.equal(readFileSync(join(local, 'one', 'summary.md'), 'utf8'), '# sum\n');
      await ex.copyBack(remote, join(local, 'all'));
      assert.equal(readFileSync(join(local, 'all', 'trials', 'r1.json'), 'utf8'), '{"ok":true}');
      await assert.rejects(ex.copyBack(join(remote, 'missing'), join(local, 'x')), /cannot read/);
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });

  test('copyTo(): a file arrives whole under new folders (a name the shell must not read), replacing an older one', async () => {
    const local = mkdtempSync(join(tmpdir(), 'autobench-copyto-'));
    try {
      const body = Buffer.alloc(3 * 1024 * 1024 + 17, 7); // more than one channel window
      writeFileSync(join(local, 'bundle.js'), body);
      const dest = join(sshd.dir, "to $(id) host", "client's.js");
      await ex.copyTo(join(local, 'bundle.js'), dest);
      assert.ok(readFileSync(dest).equals(body));
      writeFileSync(join(local, 'bundle.js'), 'newer');
      await ex.copyTo(join(local, 'bundle.js'), dest);
      assert.equal(readFileSync(dest, 'utf8'), 'newer');
      assert.deepEqual(readdirSync(join(sshd.dir, 'to $(id) host')), ["client's.js"]);
      await assert.rejects(ex.copyTo(join(local, 'bundle.js'), '/proc/autobench-not-writable/x.js'), /copy to \/proc\/autobench-not-writable\/x\.js failed/);
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });

  test('a dropped connection fails the running server with the reason; stop() reconnects and cleans up', async () => {
    const before = new Set(sshd.sessionPids());
    const own = await SshExecutor.connect(opts);
    const mine = sshd.sessionPids().filter((p) => !before.has(p));
    assert.equal(mine.length, 1, 'one sshd process per connection');
    const port = await freePort();
    const w = waitLine(/^listening /);
    const server = await own.start({ argv: [process.execPath, serverJs, String(port)], onLine: w.onLine });
    await w.seen;
    // A load-client connection in the middle of a trial, through the forward.
    const fwd = await own.forward(port);
    const sock = connect(fwd.localPort, '127.0.0.1');
    const firstReply = new Promise<string>((r) => sock.once('data', (c: Buffer) => r(c.toString('utf8'))));
    const sockClosed = new Promise<void>((r) => sock.once('close', () => r()));
    sock.on('error', () => undefined);
    sock.write('GET /mid-trial HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(await firstReply, /hello {2}\/mid-trial/);
    const lost = new Promise<ConnectionLostError>((r) => own.onConnectionLost(r));
    sshd.killConnection(mine[0] as number);
    await sockClosed; // the in-flight connection is cut, so the client's trial fails
    const err = await lost;
    assert.ok(err instanceof ConnectionLostError);
    assert.match(err.message, /^connection to ssh:sshd-test lost: /);
    const info = await server.exited;
    assert.ok(info.error instanceof ConnectionLostError, 'the running server reports the lost connection');
    // The next call reconnects: the executor stays usable for the next trial.
    assert.equal((await own.run(['echo', 'again'])).stdout, 'again\n');
    // The server outlived the connection (setsid: no SIGHUP); stop() reaches it again.
    assert.ok(groupOnHost(server.pgid).length > 0);
    await server.stop({ graceMs: 2000 });
    assert.deepEqual(groupOnHost(server.pgid), []);
    await fwd.close();
    await own.close();
  });
});
