// The editor reaches where servers run only through the runner: its ssh host list, and no import of src/exec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshConfigHosts } from '../../src/runner/hosts';
import { extensionSources } from './manifest';

test('the concrete Host names of an ssh config, each once; patterns and negations are not hosts', () => {
  const text = ['Host gpu1 gpu2', '  HostName 10.0.0.1', 'Host *.lab !bastion bastion', 'host=gpu1', '# Host commented', 'Host "quoted box"', 'Host ?x'].join('\n');
  assert.deepEqual(sshConfigHosts({ text }), ['gpu1', 'gpu2', 'bastion', 'quoted box']);
});

test('the hosts come from <home>/.ssh/config; a missing file is no hosts', () => {
  const home = mkdtempSync(join(tmpdir(), 'autobench-hosts-'));
  try {
    assert.deepEqual(sshConfigHosts({ home }), []);
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'config'), 'Host a100\r\n  User me\r\nHost h100\r\n');
    assert.deepEqual(sshConfigHosts({ home }), ['a100', 'h100']);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('no extension module imports src/exec: the extension talks to the runner', () => {
  const offenders = [...extensionSources()].filter(([, text]) => /from\s+['"]\.\.\/exec(\/|['"])/.test(text)).map(([f]) => f);
  assert.deepEqual(offenders, []);
});
