// known_hosts verdicts against files ssh-keygen itself writes and hashes; fingerprints as ssh-keygen prints them.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkHostKey,
  fingerprintSha256,
  hostFieldMatches,
  keyTypeOfBlob,
  knownHostLine,
  knownHostName,
  parseKnownHosts,
  preferredHostKeyAlgorithms,
} from '../../src/exec/known-hosts';

function keygen(dir: string, name: string, type: string): { blob: Buffer; line: string; fingerprint: string } {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-f', path]);
  const pub = readFileSync(`${path}.pub`, 'utf8').trim();
  const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${path}.pub`], { encoding: 'utf8' }).split(' ')[1] ?? '';
  return { blob: Buffer.from(pub.split(' ')[1] ?? '', 'base64'), line: pub, fingerprint: fp };
}

describe('known_hosts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'autobench-kh-'));
  const ed = keygen(dir, 'ed', 'ed25519');
  const ec = keygen(dir, 'ec', 'ecdsa');
  const other = keygen(dir, 'other', 'ed25519');

  test('fingerprint and key type match ssh-keygen', () => {
    assert.equal(fingerprintSha256(ed.blob), ed.fingerprint);
    assert.equal(keyTypeOfBlob(ed.blob), 'ssh-ed25519');
    assert.equal(keyTypeOfBlob(ec.blob), 'ecdsa-sha2-nistp256');
  });

  test('plain entries: host on port 22, [host]:port otherwise, comma lists, wildcards, negation', () => {
    const text = [
      `gpu1,10.0.0.5 ${ed.line}`,
      `[gpu1]:2222 ${other.line}`,
      `*.lab,!bad.lab ${ec.line}`,
      '# comment',
      'garbage',
    ].join('\n');
    const entries = parseKnownHosts(text);
    assert.equal(entries.length, 3);
    assert.deepEqual(checkHostKey(entries, knownHostName('gpu1', 22), ed.blob), { kind: 'match', line: 1 });
    assert.deepEqual(checkHostKey(entries, knownHostName('10.0.0.5', 22), ed.blob), { kind: 'match', line: 1 });
    assert.deepEqual(checkHostKey(entries, knownHostName('GPU1', 2222), other.blob), { kind: 'match', line: 2 });
    assert.deepEqual(checkHostKey(entries, knownHostName('gpu1', 2222), ed.blob), { kind: 'mismatch', lines: [2], knownTypes: ['ssh-ed25519'] });
    assert.deepEqual(checkHostKey(entries, knownHostName('x.lab', 22), ec.blob), { kind: 'match', line: 3 });
    assert.deepEqual(checkHostKey(entries, knownHostName('bad.lab', 22), ec.blob), { kind: 'unknown' });
    assert.deepEqual(checkHostKey(entries, knownHostName('gpu2', 22), ed.blob), { kind: 'unknown' });
  });

  test('hashed entries written by ssh-keygen -H are matched, including [host]:port', () => {
    const file = join(dir, 'known_hosts');
    writeFileSync(file, `gpu7 ${ed.line}\n[127.0.0.1]:2022 ${ec.line}\n`);
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    const hashed = readFileSync(file, 'utf8');
    assert.ok(!hashed.includes('gpu7') && hashed.includes('|1|'), 'ssh-keygen hashed the names');
    const entries = parseKnownHosts(hashed);
    assert.equal(checkHostKey(entries, 'gpu7', ed.blob).kind, 'match');
    assert.equal(checkHostKey(entries, '[127.0.0.1]:2022', ec.blob).kind, 'match');
    assert.equal(checkHostKey(entries, '[127.0.0.1]:2022', other.blob).kind, 'mismatch');
    assert.equal(checkHostKey(entries, '127.0.0.1', ec.blob).kind, 'unknown');
    assert.equal(hostFieldMatches((hashed.split(' ')[0] ?? ''), 'gpu8'), false);
  });

  test('@revoked wins over a match; @cert-authority lines are not host keys', () => {
    const entries = parseKnownHosts(`gpu1 ${ed.line}\n@revoked gpu1 ${ed.line}\n@cert-authority * ${other.line}\n`);
    assert.deepEqual(checkHostKey(entries, 'gpu1', ed.blob), { kind: 'revoked', line: 2 });
    assert.deepEqual(checkHostKey(entries, 'gpu2', other.blob), { kind: 'unknown' });
  });

  test('knownHostLine is what ssh would append and reads back as a match', () => {
    const line = knownHostLine('[127.0.0.1]:2222', ec.blob);
    assert.equal(line, `[127.0.0.1]:2222 ecdsa-sha2-nistp256 ${ec.line.split(' ')[1]}`);
    assert.equal(checkHostKey(parseKnownHosts(line), '[127.0.0.1]:2222', ec.blob).kind, 'match');
  });

  test('host key algorithms: the types known for the host first', () => {
    const defaults = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
    const entries = parseKnownHosts(`gpu1 ${ec.line}\ngpu2 ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7\n`);
    assert.deepEqual(preferredHostKeyAlgorithms(entries, 'gpu1', defaults), ['ecdsa-sha2-nistp256', 'ssh-ed25519', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
    assert.deepEqual(preferredHostKeyAlgorithms(entries, 'gpu2', defaults), ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519', 'ecdsa-sha2-nistp256']);
    assert.deepEqual(preferredHostKeyAlgorithms(entries, 'new', defaults), defaults);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));
});
