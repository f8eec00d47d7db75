// A throwaway OpenSSH server on 127.0.0.1 for tests and benches: fresh host and client keys in a temp dir, key auth only, torn down with every session it served.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  port: number;
  dir: string;
  user: string;
  /** Private key path for the client. */
  clientKey: string;
  /** `ssh-ed25519 AAAA...` of the host key. */
  hostKeyPublic: string;
  /** `ssh-keygen -l` SHA256 fingerprint of the host key. */
  hostKeyFingerprint: string;
  /** A known_hosts line for this server. */
  knownHostsLine: string;
  /** Everything sshd printed (-e). */
  log(): string;
  /** Pids of the per-connection sshd processes (children of the listener). */
  sessionPids(): number[];
  /** SIGKILLs one connection's sshd processes (not the commands it started): the client sees the link drop. */
  killConnection(pid: number): void;
  /** Writes an ssh config for this server: `Host <alias>` entries with the key and port. */
  writeConfig(extra?: string): string;
  close(): Promise<void>;
}

/** Why the ssh tests cannot run here, or undefined when they can. */
export function sshdMissing(): string | undefined {
  if (!existsSync(SSHD)) return `${SSHD} not found (apt-get install -y openssh-server)`;
  try {
    execFileSync('ssh-keygen', ['-?'], { stdio: 'ignore' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'ssh-keygen not found (apt-get install -y openssh-client)';
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = addr && typeof addr === 'object' ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function psTable(): { pid: number; ppid: number; args: string }[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' }));
}

function descendants(root: number): number[] {
  const table = psTable();
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const p = queue.shift() as number;
    for (const row of table) {
      if (row.ppid === p) {
        out.push(row.pid);
        queue.push(row.pid);
      }
    }
  }
  return out;
}

function waitListening(child: ChildProcess, port: number, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`sshd did not listen within 10 s:\n${output()}`)), 10_000);
    const onData = (): void => {
      if (output().includes(`Server listening on 127.0.0.1 port ${port}`)) finish();
    };
    const onExit = (code: number | null): void => finish(new Error(`sshd exited (${code}):\n${output()}`));
    function finish(err?: Error): void {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve();
    }
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

export interface StartSshdOptions {
  /** Lines appended to sshd_config (MaxSessions 3, ...). */
  extraConfig?: string;
}

export async function startSshd(opts: StartSshdOptions = {}): Promise<Sshd> {
  const missing = sshdMissing();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'autobench-sshd-'));
  const keygen = (name: string): void => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `autobench-${name}`, '-f', join(dir, name)]);
  };
  keygen('host_ed25519');
  keygen('client_ed25519');
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_ed25519.pub')));
  // sshd refuses to start without its privilege-separation directory.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKeyPublic = readFileSync(join(dir, 'host_ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
  const hostKeyFingerprint =
    execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'host_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1] ?? '';
  const user = userInfo().username;

  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const cfg = join(dir, 'sshd_config');
    writeFileSync(
      cfg,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(dir, 'host_ed25519')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        'StrictModes no',
        'UsePAM no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PubkeyAuthentication yes',
        'PermitRootLogin prohibit-password',
        'AllowTcpForwarding yes',
        'LogLevel INFO',
        opts.extraConfig ?? '',
        '',
      ].join('\n'),
    );
    let output = '';
    const child = spawn(SSHD, ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    try {
      await waitListening(child, port, () => output);
    } catch (e) {
      child.kill('SIGKILL');
      // Another process took the port between our probe and sshd's bind: try another.
      if (attempt < 3 && /Address already in use|Cannot bind/.test(output)) continue;
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    const listener = child.pid as number;
    const sshd: Sshd = {
      port,
      dir,
      user,
      clientKey: join(dir, 'client_ed25519'),
      hostKeyPublic,
      hostKeyFingerprint,
      knownHostsLine: `[127.0.0.1]:${port} ${hostKeyPublic}`,
      log: () => output,
      sessionPids: () => psTable().filter((r) => r.ppid === listener).map((r) => r.pid),
      killConnection: (pid) => {
        const table = psTable();
        const sshdKids = table.filter((r) => r.ppid === pid && r.args.startsWith('sshd')).map((r) => r.pid);
        for (const p of [pid, ...sshdKids]) {
          try {
            process.kill(p, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      },
      writeConfig: (extra = '') => {
        const path = join(dir, 'ssh_config');
        writeFileSync(
          path,
          [
            'Host sshd-test',
            '  HostName 127.0.0.1',
            `  Port ${port}`,
            `  User ${user}`,
            `  IdentityFile ${join(dir, 'client_ed25519')}`,
            extra,
            '',
          ].join('\n'),
        );
        return path;
      },
      close: async () => {
        // Per-connection children live in their own sessions: kill them explicitly.
        const kids = descendants(listener);
        const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
        child.kill('SIGTERM');
        for (const pid of kids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        await exited;
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return sshd;
  }
}

/** A bin folder under `dir` whose node and nodejs say v18 (too old for the on-host client) and run the real node otherwise. */
export function oldNodeShims(dir: string, nodePath: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['node', 'nodejs']) {
    writeFileSync(join(bin, name), `#!/bin/sh\n[ "$1" = --version ] && { echo v18.19.0; exit 0; }\nexec ${nodePath} "$@"\n`, { mode: 0o755 });
  }
  return bin;
}
