// ~/.ssh/config resolution: first value wins, patterns and negation, Include, Match, tokens, ProxyJump forms.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { globMatch, parseProxyJump, patternListMatch, resolveSshHost, splitConfigLine } from '../../src/exec/ssh-config';
import { resolveHops } from '../../src/exec/ssh-connect';

const HOME = '/home/ab';
const opts = (text: string) => ({ text, home: HOME, localUser: 'me' });

describe('resolveSshHost', () => {
  test('first obtained value wins; IdentityFile accumulates; keywords case-insensitive; = and quotes', () => {
    const cfg = resolveSshHost(
      'gpu1',
      opts(`
# comment
Host gpu1
  HostName 10.0.0.5
  user=alice
  IdentityFile ~/.ssh/id_gpu
  Port 2222

Host gpu*
  HostName ignored.example
  User bob
  IdentityFile "/keys/with space/id_%r@%h"
  ServerAliveInterval 30
  ServerAliveCountMax 4

Host *
  PORT 22
  IdentitiesOnly yes
  StrictHostKeyChecking accept-new
  UserKnownHostsFile ~/.ssh/known_hosts_%n
`),
    );
    assert.equal(cfg.hostName, '10.0.0.5');
    assert.equal(cfg.user, 'alice');
    assert.equal(cfg.port, 2222);
    assert.deepEqual(cfg.identityFiles, [`${HOME}/.ssh/id_gpu`, '/keys/with space/id_alice@10.0.0.5']);
    assert.equal(cfg.identitiesOnly, true);
    assert.equal(cfg.strictHostKeyChecking, 'accept-new');
    assert.deepEqual(cfg.userKnownHostsFiles, [`${HOME}/.ssh/known_hosts_gpu1`]);
    assert.equal(cfg.serverAliveIntervalS, 30);
    assert.equal(cfg.serverAliveCountMax, 4);
    assert.deepEqual(cfg.proxyJump, []);
  });

  test('an unknown host gets defaults: its own name, port 22, the local user', () => {
    const cfg = resolveSshHost('box', opts('Host other\n  User x\n'));
    assert.equal(cfg.hostName, 'box');
    assert.equal(cfg.port, 22);
    assert.equal(cfg.user, 'me');
    assert.deepEqual(cfg.identityFiles, []);
  });

  test('negated patterns exclude; %h in HostName is the alias', () => {
    const text = 'Host *.lab !bad.lab\n  HostName %h.internal\n  User lab\n';
    assert.equal(resolveSshHost('a.lab', opts(text)).hostName, 'a.lab.internal');
    assert.equal(resolveSshHost('bad.lab', opts(text)).hostName, 'bad.lab');
  });

  test('ProxyJump, and ProxyCommand noted', () => {
    const cfg = resolveSshHost('inner', opts('Host inner\n  ProxyJump alice@bastion:2200,[fe80::1]:22,ssh://hop3\n  ProxyCommand ssh -W %h:%p x\n'));
    assert.deepEqual(cfg.proxyJump, [{ host: 'bastion', user: 'alice', port: 2200 }, { host: 'fe80::1', port: 22 }, { host: 'hop3' }]);
    assert.equal(cfg.proxyCommand, 'ssh -W %h:%p x');
    assert.deepEqual(resolveSshHost('x', opts('Host x\n  ProxyJump none\n')).proxyJump, []);
  });

  test('Match all/host apply; other criteria are skipped with a note', () => {
    const cfg = resolveSshHost(
      'db',
      opts('Host db\n  HostName db.prod\nMatch exec "true"\n  User nope\nMatch host *.prod\n  User ops\nMatch all\n  Port 2022\n'),
    );
    assert.equal(cfg.user, 'ops');
    assert.equal(cfg.port, 2022);
    assert.match(cfg.notes.join('\n'), /Match exec is not supported/);
  });

  test('Include reads files in place, relative to ~/.ssh, with a glob', () => {
    const home = mkdtempSync(join(tmpdir(), 'autobench-sshcfg-'));
    try {
      mkdirSync(join(home, '.ssh', 'conf.d'), { recursive: true });
      writeFileSync(join(home, '.ssh', 'conf.d', '10-gpu.conf'), 'Host gpu9\n  HostName 192.0.2.9\n  User gpuuser\n');
      writeFileSync(join(home, '.ssh', 'conf.d', '20-rest.conf'), 'Host *\n  User fallback\n');
      writeFileSync(join(home, '.ssh', 'config'), 'Include conf.d/*.conf\nHost gpu9\n  User late\n');
      const cfg = resolveSshHost('gpu9', { home, localUser: 'me' });
      assert.equal(cfg.hostName, '192.0.2.9');
      assert.equal(cfg.user, 'gpuuser');
      assert.equal(resolveSshHost('other', { home, localUser: 'me' }).user, 'fallback');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('an invalid port is an error', () => {
    assert.throws(() => resolveSshHost('h', opts('Host h\n  Port 99999\n')), /invalid Port/);
  });
});

describe('helpers', () => {
  test('splitConfigLine', () => {
    assert.deepEqual(splitConfigLine('  HostName=example.com'), { key: 'hostname', args: ['example.com'] });
    assert.deepEqual(splitConfigLine('Host a b "c d"'), { key: 'host', args: ['a', 'b', 'c d'] });
    assert.deepEqual(splitConfigLine('User = bob'), { key: 'user', args: ['bob'] });
    assert.equal(splitConfigLine('   # x'), undefined);
  });
  test('globMatch and patternListMatch', () => {
    assert.equal(globMatch('gpu-?', 'GPU-1'), true);
    assert.equal(globMatch('gpu-?', 'gpu-10'), false);
    assert.equal(globMatch('10.0.*', '10.0.3.4'), true);
    assert.equal(patternListMatch(['*', '!secret'], 'secret'), false);
    assert.equal(patternListMatch(['!secret'], 'other'), false, 'a negation alone matches nothing');
  });
  test('parseProxyJump rejects junk', () => {
    assert.throws(() => parseProxyJump('a:b:c'), /invalid ProxyJump/);
  });
});

describe('resolveHops', () => {
  test('the first jump brings its own ProxyJump; later jumps are plain hops; overrides apply', () => {
    const home = mkdtempSync(join(tmpdir(), 'autobench-hops-'));
    try {
      mkdirSync(join(home, '.ssh'));
      const configPath = join(home, '.ssh', 'config');
      writeFileSync(
        configPath,
        [
          'Host target', '  HostName 10.1.1.1', '  ProxyJump j1,ops@j2:2202',
          'Host j1', '  HostName j1.example', '  ProxyJump outer',
          'Host j2', '  HostName j2.example', '  ProxyJump ignored-for-later-hops',
          'Host outer', '  HostName outer.example', '  Port 443',
          'Host loop', '  ProxyJump loop',
        ].join('\n'),
      );
      const hops = resolveHops({ host: 'target', configPath, home });
      const me = userInfo().username;
      assert.deepEqual(hops.map((h) => `${h.user}@${h.hostName}:${h.port}`), [
        `${me}@outer.example:443`,
        `${me}@j1.example:22`,
        'ops@j2.example:2202',
        `${me}@10.1.1.1:22`,
      ]);
      assert.throws(() => resolveHops({ host: 'loop', configPath, home }), /longer than 8 hops/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('user@alias: the config is looked up by the alias, the user from the target wins', () => {
    const home = mkdtempSync(join(tmpdir(), 'autobench-hops-'));
    try {
      const configPath = join(home, 'config');
      writeFileSync(configPath, 'Host gpu\n  HostName 10.9.9.9\n  User fromconfig\n  Port 2200\n');
      const [hop] = resolveHops({ host: 'alice@gpu', configPath, home });
      assert.equal(`${hop?.user}@${hop?.hostName}:${hop?.port}`, 'alice@10.9.9.9:2200');
      assert.equal(hop?.alias, 'gpu');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('ProxyCommand without ProxyJump is refused rather than ignored', () => {
    const home = mkdtempSync(join(tmpdir(), 'autobench-hops-'));
    try {
      const configPath = join(home, 'config');
      writeFileSync(configPath, 'Host pc\n  ProxyCommand nc %h %p\n');
      assert.throws(() => resolveHops({ host: 'pc', configPath, home }), /ProxyCommand is not supported/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
