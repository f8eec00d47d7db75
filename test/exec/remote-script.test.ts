// The remote shell scripts, run by the local /bin/sh exactly as sshd's shell would run them: quoting, secrets via stdin, pgid, group kill, copy-out, copy-in.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shlexSplit } from '../../src/core/candidates/shell';
import { PGID_MARKER, copyInScript, copyOutScript, killGroupScript, launchScript, secretsStdin, shCommand } from '../../src/exec/remote-script';
import { groupMembers } from '../../src/exec/process-group';

const NASTY = [`it's`, '$(touch /tmp/pwned-autobench)', '`id`', 'a b\tc', '"q"', '\\', '*', '', 'ünï', '--flag=$HOME'];

/** Runs a command line the way sshd does: the login shell gets it with -c. */
function shell(commandLine: string, stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', commandLine], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined); // a script that reads nothing may exit first
    child.stdin.end(stdin);
  });
}

describe('launchScript', () => {
  test('argv and env values arrive byte for byte; secrets come from stdin; the pgid comes first on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench it\'s dir '));
    try {
      const secrets = new Map([['HF_TOKEN', 'hf_secret value with $dollar and \'quote\' and \\']]);
      const script = launchScript({
        argv: ['sh', '-c', 'pwd; for a in "$@"; do printf "[%s]" "$a"; done; echo; printf "%s|%s\\n" "$PLAIN" "$HF_TOKEN"', 'argv0', ...NASTY],
        env: { PLAIN: NASTY.join(' ') },
        secretNames: ['HF_TOKEN'],
        cwd: dir,
      });
      const cmd = shCommand(script);
      assert.ok(!cmd.includes('hf_secret'), 'the secret value must not be in the command line');
      const r = await shell(cmd, secretsStdin(['HF_TOKEN'], secrets));
      assert.equal(r.code, 0, r.stderr);
      const [pwd, args, env] = r.stdout.split('\n');
      assert.equal(pwd, dir);
      assert.equal(args, NASTY.map((a) => `[${a}]`).join(''));
      assert.equal(env, `${NASTY.join(' ')}|${secrets.get('HF_TOKEN')}`);
      assert.match(r.stderr, new RegExp(`^${PGID_MARKER}\\d+\\n$`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('merged mode puts the command stderr on stdout; the exit status is the command\'s', async () => {
    const r = await shell(shCommand(launchScript({ argv: ['sh', '-c', 'echo out; echo err >&2; exit 7'], mergeOutput: true })), '');
    assert.equal(r.code, 7);
    assert.equal(r.stdout, 'out\nerr\n');
    assert.match(r.stderr, /^@@autobench-pgid \d+\n$/);
  });

  test('the command leads its own process group and session', async () => {
    const r = await shell(shCommand(launchScript({ argv: ['sh', '-c', 'ps -o pid=,pgid=,sid= -p $$'] })), '');
    const pgid = Number(r.stderr.slice(PGID_MARKER.length));
    const [pid, pg, sid] = r.stdout.trim().split(/\s+/).map(Number);
    assert.equal(pid, pgid);
    assert.equal(pg, pgid);
    assert.equal(sid, pgid);
  });

  test('a missing cwd fails before anything runs', async () => {
    const r = await shell(shCommand(launchScript({ argv: ['echo', 'ran'], cwd: '/nonexistent/dir' })), '');
    assert.equal(r.code, 98);
    assert.equal(r.stdout, '');
  });

  test('bad variable names are refused, never pasted into the script', () => {
    assert.throws(() => launchScript({ argv: ['x'], env: { 'A;rm -rf /': 'v' } }), /not a valid environment variable name/);
    assert.throws(() => launchScript({ argv: ['x'], secretNames: ['$(id)'] }), /not a valid environment variable name/);
    assert.throws(() => launchScript({ argv: [] }), /empty argv/);
  });

  test('shCommand is one shell word after sh -c', () => {
    const s = launchScript({ argv: ['echo', "it's"] });
    const words = shlexSplit(shCommand(s));
    assert.deepEqual(words, ['sh', '-c', s]);
  });
});

describe('killGroupScript', () => {
  test('TERMs the group; KILLs what ignores TERM after the grace', async () => {
    const child = spawn('setsid', ['sh', '-c', "trap '' TERM; sleep 1000 & sh -c 'trap \"\" TERM; echo ready; while :; do sleep 1; done' & wait"], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await new Promise<void>((res) => child.stdout.on('data', (c: Buffer) => c.toString().includes('ready') && res()));
    const pgid = child.pid as number;
    assert.ok((groupMembers(pgid) ?? []).length >= 3);
    const r = await shell(killGroupScript(pgid, 300), '');
    assert.equal(r.stdout.trim(), 'killed');
    assert.deepEqual(groupMembers(pgid), []);
  });

  test('a group that is already gone reports gone; pgid 0 and 1 are refused', async () => {
    const r = await shell(killGroupScript(999_999, 100), '');
    assert.equal(r.stdout.trim(), 'gone');
    assert.throws(() => killGroupScript(1, 100), /refusing/);
    assert.throws(() => killGroupScript(0, 100), /refusing/);
  });
});

describe('copyOutScript', () => {
  test('streams F + bytes for a file, D + tar for a folder, fails for a missing path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-copy-'));
    try {
      writeFileSync(join(dir, "a file's name.txt"), 'hello');
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'sub', 'x.json'), '{}');
      const f = await shell(shCommand(copyOutScript(join(dir, "a file's name.txt"))), '');
      assert.equal(f.stdout, 'F\nhello');
      const d = await shell(shCommand(copyOutScript(join(dir, 'sub'))), '');
      assert.ok(d.stdout.startsWith('D\n'));
      assert.ok(d.stdout.includes('x.json'));
      const m = await shell(shCommand(copyOutScript(join(dir, 'missing $(id)'))), '');
      assert.equal(m.code, 2);
      assert.match(m.stderr, /cannot read .*missing \?\?id\?/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('copyInScript', () => {
  test('makes the folders, writes the bytes and renames; a short transfer leaves nothing; relative paths are refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-copyin-'));
    try {
      const dest = join(dir, "new $(id) folder", "it's.js");
      const body = 'console.log(1)\n'.repeat(100);
      const ok = await shell(shCommand(copyInScript(dest, Buffer.byteLength(body))), body);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(readFileSync(dest, 'utf8'), body);
      assert.deepEqual(readdirSync(join(dir, 'new $(id) folder')), ["it's.js"], 'no part file left');
      // The connection dropped after some bytes: stdin ended early, so the old file stays and no part is left.
      const cut = await shell(shCommand(copyInScript(dest, Buffer.byteLength(body) + 10)), 'partial');
      assert.equal(cut.code, 3);
      assert.match(cut.stderr, /received 7 of \d+ bytes/);
      assert.equal(readFileSync(dest, 'utf8'), body);
      assert.equal(existsSync(`${dest}.autobench-part`), false);
      assert.throws(() => copyInScript('relative/path', 1), /absolute path/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
