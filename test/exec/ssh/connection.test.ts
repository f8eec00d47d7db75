// Connecting to a real sshd: host keys (unknown, accepted, hashed, mismatched), ProxyJump through the same sshd, and sshd's MaxSessions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SshExecutor } from '../../../src/exec/ssh';
import type { SshExecutorOptions } from '../../../src/exec/ssh';
import type { HostKeyPrompt } from '../../../src/exec/ssh-connect';
import { HostKeyError } from '../../../src/exec/types';
import { skipWhenMissing } from '../../support/requirements';
import { sshdMissing, startSshd } from '../../support/sshd';
import type { Sshd } from '../../support/sshd';

const skip = skipWhenMissing(sshdMissing());

describe('host key verification', { skip }, () => {
  let sshd: Sshd;
  let base: SshExecutorOptions;
  let n = 0;
  const knownHosts = (text: string): string => {
    const p = join(sshd.dir, `known_hosts_${n++}`);
    writeFileSync(p, text);
    return p;
  };

  before(async () => {
    sshd = await startSshd();
    base = { host: 'sshd-test', configPath: sshd.writeConfig(), agent: false };
  });
  after(async () => {
    await sshd?.close();
  });

  test('an unknown host is refused by default, naming its fingerprint; known_hosts is untouched', async () => {
    const knownHostsPath = knownHosts('');
    const err = await SshExecutor.connect({ ...base, knownHostsPath }).then(
      () => assert.fail('connected to an unknown host'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof HostKeyError);
    assert.equal(err.kind, 'unknown');
    assert.equal(err.fingerprint, sshd.hostKeyFingerprint);
    assert.ok(err.message.includes(sshd.hostKeyFingerprint), err.message);
    assert.match(err.message, /--accept-new-host-key/);
    assert.equal(readFileSync(knownHostsPath, 'utf8'), '');
  });

  test('accepted with the flag: the key is appended, and the next connection needs no flag', async () => {
    const knownHostsPath = knownHosts('# mine\nother.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBXe2EjcfyUYqbL0f6lj0ifNn1Bl26BWWwnoy1C1pUvQ');
    const ex = await SshExecutor.connect({ ...base, knownHostsPath, acceptNewHostKey: true });
    await ex.close();
    const lines = readFileSync(knownHostsPath, 'utf8').split('\n');
    assert.equal(lines[2], `[127.0.0.1]:${sshd.port} ${sshd.hostKeyPublic}`);
    const again = await SshExecutor.connect({ ...base, knownHostsPath });
    assert.equal((await again.run(['echo', 'ok'])).stdout, 'ok\n');
    await again.close();
  });

  test('the editor prompt sees host, port and fingerprint; "no" refuses', async () => {
    const prompts: HostKeyPrompt[] = [];
    const knownHostsPath = knownHosts('');
    await assert.rejects(
      SshExecutor.connect({ ...base, knownHostsPath, acceptNewHostKey: (p) => (prompts.push(p), Promise.resolve(false)) }),
      (e: unknown) => e instanceof HostKeyError && e.kind === 'unknown',
    );
    assert.deepEqual(prompts, [
      { host: '127.0.0.1', port: sshd.port, keyType: 'ssh-ed25519', fingerprint: sshd.hostKeyFingerprint, knownHostsFile: knownHostsPath },
    ]);
  });

  test('StrictHostKeyChecking accept-new in the ssh config accepts a new host', async () => {
    const knownHostsPath = knownHosts('');
    const configPath = sshd.writeConfig('  StrictHostKeyChecking accept-new');
    const ex = await SshExecutor.connect({ ...base, configPath, knownHostsPath });
    await ex.close();
    assert.match(readFileSync(knownHostsPath, 'utf8'), /^\[127\.0\.0\.1\]:\d+ ssh-ed25519 /);
  });

  test('hashed known_hosts entries (ssh-keygen -H) are honoured', async () => {
    const knownHostsPath = knownHosts(sshd.knownHostsLine + '\n');
    execFileSync('ssh-keygen', ['-H', '-f', knownHostsPath], { stdio: 'ignore' });
    assert.ok(!readFileSync(knownHostsPath, 'utf8').includes('127.0.0.1'));
    const ex = await SshExecutor.connect({ ...base, knownHostsPath });
    assert.equal((await ex.run(['echo', 'hashed'])).stdout, 'hashed\n');
    await ex.close();
  });

  test('a changed host key is refused, even with accept-new, with a clear message naming the SHA256 fingerprint', async () => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshd.dir, 'impostor')]);
    const impostor = readFileSync(join(sshd.dir, 'impostor.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
    const text = `[127.0.0.1]:${sshd.port} ${impostor}\n`;
    const knownHostsPath = knownHosts(text);
    const err = await SshExecutor.connect({ ...base, knownHostsPath, acceptNewHostKey: true }).then(
      () => assert.fail('connected despite a changed host key'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof HostKeyError);
    assert.equal(err.kind, 'mismatch');
    assert.ok(err.message.startsWith(`HOST KEY MISMATCH for [127.0.0.1]:${sshd.port}: it presented ssh-ed25519 ${sshd.hostKeyFingerprint}`), err.message);
    assert.match(err.message, /line 1/);
    assert.match(err.message, /ssh-keygen -R/);
    assert.equal(readFileSync(knownHostsPath, 'utf8'), text, 'known_hosts must not change on a mismatch');
  });
});

describe('ProxyJump through the same sshd', { skip }, () => {
  let sshd: Sshd;
  before(async () => {
    sshd = await startSshd();
  });
  after(async () => {
    await sshd?.close();
  });

  test('the target is reached through the jump host (two connections), both keys verified', async () => {
    const configPath = sshd.writeConfig(
      [
        '',
        'Host inner',
        '  HostName 127.0.0.1',
        `  Port ${sshd.port}`,
        `  IdentityFile ${sshd.clientKey}`,
        '  ProxyJump sshd-test',
      ].join('\n'),
    );
    const knownHostsPath = join(sshd.dir, 'kh');
    writeFileSync(knownHostsPath, sshd.knownHostsLine + '\n');
    const before = sshd.sessionPids().length;
    const ex = await SshExecutor.connect({ host: 'inner', configPath, knownHostsPath, agent: false });
    assert.equal(sshd.sessionPids().length, before + 2, 'one connection to the jump host, one through it');
    assert.equal(ex.describe(), `ssh ${sshd.user}@127.0.0.1:${sshd.port} via ${sshd.user}@127.0.0.1:${sshd.port}`);
    assert.equal((await ex.run(['echo', 'through the jump'])).stdout, 'through the jump\n');
    await ex.close();

    // An unknown jump host is refused before the target is tried.
    writeFileSync(knownHostsPath, '');
    await assert.rejects(SshExecutor.connect({ host: 'inner', configPath, knownHostsPath, agent: false }), (e: unknown) => e instanceof HostKeyError && e.kind === 'unknown');
  });
});

describe("sshd's MaxSessions", { skip }, () => {
  let sshd: Sshd;
  let opts: SshExecutorOptions;
  before(async () => {
    sshd = await startSshd({ extraConfig: 'MaxSessions 3' });
    const knownHostsPath = join(sshd.dir, 'kh');
    writeFileSync(knownHostsPath, sshd.knownHostsLine + '\n');
    opts = { host: 'sshd-test', configPath: sshd.writeConfig(), knownHostsPath, agent: false };
  });
  after(async () => {
    await sshd?.close();
  });

  test('with maxSessions matching sshd, work queues and a stop still gets through', async () => {
    const ex = await SshExecutor.connect({ ...opts, maxSessions: 3 });
    const a = await ex.start({ argv: ['sleep', '1000'] });
    const b = await ex.start({ argv: ['sleep', '1000'] });
    let ran = false;
    const queued = ex.run(['echo', 'queued']).then((r) => ((ran = true), r));
    await new Promise((r) => setImmediate(r));
    assert.equal(ran, false, 'a third ordinary session waits');
    await a.stop({ graceMs: 1000 }); // uses the slot kept for teardown
    assert.equal((await queued).stdout, 'queued\n');
    await b.stop({ graceMs: 1000 });
    await ex.close();
  });

  test('a session limit lower than configured is reported as such, and teardown still works (spare connection)', async () => {
    const ex = await SshExecutor.connect({ ...opts, maxSessions: 10 });
    const servers = [await ex.start({ argv: ['sleep', '1000'] }), await ex.start({ argv: ['sleep', '1000'] }), await ex.start({ argv: ['sleep', '1000'] })];
    await assert.rejects(ex.run(['true']), /refused another session.*MaxSessions/);
    await Promise.all(servers.map((s) => s.stop({ graceMs: 1000 })));
    for (const s of servers) {
      const left = execFileSync('ps', ['-eo', 'pgid=,stat='], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => Number(l.trim().split(/\s+/)[0]) === s.pgid && !(l.trim().split(/\s+/)[1] ?? '').startsWith('Z'));
      assert.deepEqual(left, [], `group ${s.pgid} survived stop()`);
    }
    await ex.close();
  });
});
