// The 'ssh:<host>' target over ssh2: one verified connection (through ProxyJump hops), exec channels without a PTY, setsid'd servers killed by process group, local port forwards, files both ways.
//
// - One connection, few channels: every run/start/stop/copy is one exec session, bounded by
//   SessionGate below sshd's MaxSessions; forwarded TCP connections are direct-tcpip channels,
//   which MaxSessions does not count.
// - Servers run under `setsid -w` (remote-script.ts); the first stderr line reports the pgid.
//   stop() runs `kill -TERM -- -PGID` on a second channel, then KILL after the grace — closing or
//   signalling the channel alone leaves the server's workers behind.
// - A dropped connection (socket reset, keepalive timeout, sshd killed) fires onConnectionLost,
//   settles every running server's `exited` with a ConnectionLostError, and the next call
//   reconnects; stop() of a server whose connection was lost reconnects to kill its group.
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { dirname } from 'node:path';
import { PassThrough } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { Client, ClientChannel } from 'ssh2';
import { resolveSecrets } from './env';
import { LogSink, makeRedactor } from './log-sink';
import { OutputBuffer } from './local';
import { LAUNCH_ID_ENV, newLaunchId } from './descendants';
import { PGID_MARKER, copyInScript, copyOutScript, killGroupScript, launchScript, secretsStdin, shCommand } from './remote-script';
import { SessionGate } from './session-gate';
import { describeConnection, lastErrorOf, openSshConnection, resolveHops } from './ssh-connect';
import type { SshConnectOptions, SshConnection } from './ssh-connect';
import type { SshHostConfig } from './ssh-config';
import type {
  ExitInfo,
  Executor,
  ForwardOptions,
  PortForward,
  RunOptions,
  RunResult,
  SecretSource,
  ServerProcess,
  StartSpec,
  StopOptions,
} from './types';
import { ConnectionLostError, processEnvSecrets } from './types';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
const DEFAULT_GRACE_MS = 10_000;

export interface SshExecutorOptions extends SshConnectOptions {
  secrets?: SecretSource;
  /** sshd's MaxSessions on the host; default 10 (OpenSSH's default). */
  maxSessions?: number;
  /** How long start() waits for the launched command to report its process group; default 30 s. */
  startTimeoutMs?: number;
}

interface LiveConn {
  ssh: SshConnection;
  lost?: ConnectionLostError;
  endedByUs: boolean;
}

/** sshd would not open another session channel on this connection. */
export class SessionRefusedError extends Error {
  override name = 'SessionRefusedError';
}

/** Splits the pgid marker off the head of a stream and passes everything else on. */
class MarkerSplitter {
  private head = '';
  private done = false;
  constructor(
    private readonly onPgid: (pgid: number) => void,
    private readonly pass: (chunk: Buffer) => void,
  ) {}
  write(chunk: Buffer): void {
    if (this.done) return this.pass(chunk);
    this.head += chunk.toString('latin1');
    const nl = this.head.indexOf('\n');
    if (nl < 0) {
      if (this.head.length > 4096) this.flush();
      return;
    }
    const line = this.head.slice(0, nl);
    const rest = this.head.slice(nl + 1);
    this.done = true;
    this.head = '';
    const m = line.startsWith(PGID_MARKER) ? /^(\d+)$/.exec(line.slice(PGID_MARKER.length).trim()) : null;
    if (m) this.onPgid(Number(m[1]));
    else this.pass(Buffer.from(line + '\n', 'latin1'));
    if (rest) this.pass(Buffer.from(rest, 'latin1'));
  }
  flush(): void {
    if (!this.done && this.head) this.pass(Buffer.from(this.head, 'latin1'));
    this.done = true;
    this.head = '';
  }
}

export class SshExecutor implements Executor {
  readonly target: string;
  private readonly hops: SshHostConfig[];
  private readonly secrets: SecretSource;
  private readonly gate: SessionGate;
  private conn: LiveConn | undefined;
  private connecting: Promise<LiveConn> | undefined;
  private closed = false;
  private readonly lostListeners = new Set<(err: ConnectionLostError) => void>();
  private readonly live = new Set<SshServer>();
  private readonly forwards = new Set<SshForward>();

  constructor(private readonly opts: SshExecutorOptions) {
    this.target = `ssh:${opts.host}`;
    this.hops = resolveHops(opts);
    this.secrets = opts.secrets ?? processEnvSecrets;
    this.gate = new SessionGate(opts.maxSessions ?? 10);
  }

  /** Connects now, so a refused host key or failed auth is reported before any work. */
  static async connect(opts: SshExecutorOptions): Promise<SshExecutor> {
    const ex = new SshExecutor(opts);
    await ex.connection();
    return ex;
  }

  describe(): string {
    return describeConnection(this.hops);
  }

  onConnectionLost(listener: (err: ConnectionLostError) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** The live connection, reconnecting once it was lost. */
  private async connection(): Promise<LiveConn> {
    if (this.closed) throw new Error(`${this.target}: executor is closed`);
    if (this.conn && !this.conn.lost) return this.conn;
    this.connecting ??= openSshConnection(this.opts)
      .then((ssh) => {
        const live: LiveConn = { ssh, endedByUs: false };
        const onDown = (): void => {
          if (live.endedByUs || live.lost) return;
          const why = lastErrorOf(ssh.target) ?? ssh.clients.map(lastErrorOf).find((e) => e);
          live.lost = new ConnectionLostError(this.target, why?.message ?? 'the connection was closed by the remote side');
          for (const c of ssh.clients) c.end();
          for (const l of this.lostListeners) l(live.lost);
        };
        // 'end' and 'close' come before ssh2 closes the channels, so their handlers see `lost`.
        for (const c of ssh.clients) c.on('end', onDown).on('close', onDown);
        this.conn = live;
        return live;
      })
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }

  /** One exec channel, counted against MaxSessions until it closes. */
  private async openExec(command: string, priority: boolean): Promise<{ channel: ClientChannel; conn: LiveConn }> {
    const conn = await this.connection();
    const release = await this.gate.acquire(priority);
    try {
      const channel = await new Promise<ClientChannel>((res, rej) => {
        conn.ssh.target.exec(command, (err, ch) => (err ? rej(err) : res(ch)));
      });
      channel.once('close', release);
      return { channel, conn };
    } catch (e) {
      release();
      if (conn.lost) throw conn.lost;
      const msg = (e as Error).message;
      if (/open failed|Channel open failure/i.test(msg)) {
        throw new SessionRefusedError(
          `${this.target}: the host refused another session (${msg}); is sshd's MaxSessions lower than maxSessions=${this.opts.maxSessions ?? 10}?`,
        );
      }
      throw new Error(`${this.target}: ${msg}`);
    }
  }

  async run(cmd: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
    const secrets = resolveSecrets(opts.secretEnv, this.secrets);
    const names = [...secrets.keys()];
    const script = launchScript({ argv: cmd, env: opts.env, secretNames: names, cwd: opts.cwd });
    const { channel, conn } = await this.openExec(shCommand(script), false);
    const exit = channelExit(channel, conn);
    channel.end(secretsStdin(names, secrets));
    const limit = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const out = new OutputBuffer(limit);
    const err = new OutputBuffer(limit);
    let pgid: number | undefined;
    const splitter = new MarkerSplitter(
      (p) => (pgid = p),
      (c) => err.push(c),
    );
    channel.on('data', (c: Buffer) => out.push(c));
    channel.stderr.on('data', (c: Buffer) => splitter.write(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (pgid !== undefined) void this.killGroup(pgid, 2000).catch(() => channel.close());
      else channel.close();
    }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const info = await exit;
    clearTimeout(timer);
    splitter.flush();
    if (info.error) throw info.error;
    const redact = makeRedactor([...secrets.values()]);
    const result: RunResult = { code: info.code, signal: info.signal, stdout: redact(out.text()), stderr: redact(err.text()) };
    if (timedOut) result.timedOut = true;
    if (out.truncated || err.truncated) result.truncated = true;
    return result;
  }

  async start(spec: StartSpec): Promise<ServerProcess> {
    const secrets = resolveSecrets(spec.secretEnv, this.secrets);
    const names = [...secrets.keys()];
    // Every descendant inherits the launch's marker, whatever group or session it makes: stop() finds them by it.
    const launchId = newLaunchId();
    const script = launchScript({ argv: spec.argv, env: { ...spec.env, [LAUNCH_ID_ENV]: launchId }, secretNames: names, cwd: spec.cwd, mergeOutput: true });
    const sink = new LogSink({
      file: spec.logFile,
      tailLines: spec.tailLines,
      secretValues: [...secrets.values(), ...(spec.redactValues ?? [])],
      onLine: spec.onLine,
    });
    let opened: { channel: ClientChannel; conn: LiveConn };
    try {
      opened = await this.openExec(shCommand(script), false);
    } catch (e) {
      await sink.close();
      throw e;
    }
    const { channel, conn } = opened;
    const exit = channelExit(channel, conn);
    channel.end(secretsStdin(names, secrets));
    channel.on('data', (c: Buffer) => sink.write('stdout', c));
    let gotPgid: (p: number) => void = () => undefined;
    const pgidP = new Promise<number>((res) => (gotPgid = res));
    const splitter = new MarkerSplitter(gotPgid, (c) => sink.write('stderr', c));
    channel.stderr.on('data', (c: Buffer) => splitter.write(c));
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([
      pgidP.then((pgid) => ({ pgid })),
      exit.then((info) => ({ info })),
      new Promise<{ timeout: true }>((res) => (timer = setTimeout(() => res({ timeout: true }), this.opts.startTimeoutMs ?? 30_000))),
    ]);
    clearTimeout(timer);
    if (!('pgid' in first)) {
      channel.close();
      splitter.flush();
      await sink.close();
      const tail = sink.tail(20).join('\n');
      if ('info' in first && first.info.error) throw first.info.error;
      throw new Error(
        `${this.target}: the server did not start${'info' in first ? ` (exit ${first.info.code ?? first.info.signal})` : ' (no process group reported)'}` +
          (tail ? `:\n${tail}` : ''),
      );
    }
    const server = new SshServer(this, first.pgid, sink, exit, launchId, () => this.live.delete(server));
    this.live.add(server);
    return server;
  }

  /**
   * TERM the remote group, KILL after the grace. Runs on the session slot kept for teardown; if
   * the host still refuses a session (its MaxSessions is lower than ours), on a second connection
   * of its own, so servers can always be stopped.
   */
  async killGroup(pgid: number, graceMs: number, launchId?: string): Promise<string> {
    const command = shCommand(killGroupScript(pgid, graceMs, launchId));
    let opened: { channel: ClientChannel; conn: LiveConn };
    try {
      opened = await this.openExec(command, true);
    } catch (e) {
      if (!(e instanceof SessionRefusedError)) throw e;
      return this.execOnSpareConnection(command);
    }
    const { channel, conn } = opened;
    const exit = channelExit(channel, conn);
    channel.end();
    let out = '';
    channel.on('data', (c: Buffer) => (out += c.toString('utf8')));
    channel.stderr.resume();
    const info = await exit;
    if (info.error) throw info.error;
    return out.trim();
  }

  private async execOnSpareConnection(command: string): Promise<string> {
    const ssh = await openSshConnection(this.opts);
    const live: LiveConn = { ssh, endedByUs: false };
    try {
      const channel = await new Promise<ClientChannel>((res, rej) => ssh.target.exec(command, (err, ch) => (err ? rej(err) : res(ch))));
      const exit = channelExit(channel, live);
      channel.end();
      let out = '';
      channel.on('data', (c: Buffer) => (out += c.toString('utf8')));
      channel.stderr.resume();
      const info = await exit;
      if (info.error) throw info.error;
      return out.trim();
    } finally {
      live.endedByUs = true;
      for (const c of [...ssh.clients].reverse()) c.end();
    }
  }

  async forward(remotePort: number, opts: ForwardOptions = {}): Promise<PortForward> {
    await this.connection(); // fail here, not on the first request, when the host is unreachable
    const fwd = new SshForward(this, opts.remoteHost ?? '127.0.0.1', remotePort);
    await fwd.listen();
    this.forwards.add(fwd);
    fwd.onClose = () => this.forwards.delete(fwd);
    return fwd;
  }

  async copyBack(remotePath: string, localPath: string): Promise<void> {
    const { channel, conn } = await this.openExec(shCommand(copyOutScript(remotePath)), false);
    const exit = channelExit(channel, conn);
    channel.end();
    let stderr = '';
    channel.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const body = new PassThrough();
    let header = Buffer.alloc(0);
    let sinkDone: Promise<void> | undefined;
    const setup = (mode: string): Promise<void> => {
      if (mode === 'F') {
        mkdirSync(dirname(localPath), { recursive: true });
        const file = createWriteStream(localPath);
        body.pipe(file);
        return finished(file);
      }
      mkdirSync(localPath, { recursive: true });
      const tar = spawn('tar', ['-xf', '-', '-C', localPath], { stdio: ['pipe', 'ignore', 'pipe'] });
      let tarErr = '';
      tar.stderr.on('data', (c: Buffer) => (tarErr += c.toString('utf8')));
      body.pipe(tar.stdin);
      return new Promise((res, rej) => {
        tar.once('error', rej);
        tar.once('close', (code) => (code === 0 ? res() : rej(new Error(`tar -x into ${localPath}: ${tarErr.trim() || `exit ${code}`}`))));
      });
    };
    channel.on('data', (c: Buffer) => {
      if (sinkDone) {
        if (!body.write(c)) {
          channel.pause();
          body.once('drain', () => channel.resume());
        }
        return;
      }
      header = Buffer.concat([header, c]);
      if (header.length < 2) return;
      sinkDone = setup(String.fromCharCode(header[0] as number));
      body.write(header.subarray(2));
    });
    channel.on('end', () => body.end());
    const info = await exit;
    body.end();
    if (info.error) throw info.error;
    if (info.code !== 0 || !sinkDone) throw new Error(`${this.target}: copy of ${remotePath} failed: ${stderr.trim() || `exit ${info.code}`}`);
    await sinkDone;
  }

  /** The file goes down an exec channel's stdin (`cat` on the host, over the verified connection); its size is checked there before the rename. */
  async copyTo(localPath: string, remotePath: string): Promise<void> {
    const size = statSync(localPath).size;
    const { channel, conn } = await this.openExec(shCommand(copyInScript(remotePath, size)), false);
    const exit = channelExit(channel, conn);
    let stderr = '';
    channel.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    channel.resume();
    // A failed write (the channel closed early) shows in the exit status below; the pipeline's own error adds nothing.
    await pipeline(createReadStream(localPath), channel).catch(() => channel.close());
    const info = await exit;
    if (info.error) throw info.error;
    if (info.code !== 0) throw new Error(`${this.target}: copy to ${remotePath} failed: ${stderr.trim() || `exit ${info.code ?? info.signal}`}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await Promise.allSettled([...this.live].map((s) => s.stop({ graceMs: 2000 })));
      await Promise.allSettled([...this.forwards].map((f) => f.close()));
    } finally {
      this.closed = true;
      const conn = this.conn;
      if (conn && !conn.lost) {
        conn.endedByUs = true;
        for (const c of [...conn.ssh.clients].reverse()) c.end();
      }
    }
  }

  /** The target client for a forwarded connection (reconnecting if needed). */
  async client(): Promise<Client> {
    return (await this.connection()).ssh.target;
  }
}

/** Settles once per channel: its exit status, or the lost connection's error. */
function channelExit(channel: ClientChannel, conn: LiveConn): Promise<ExitInfo> {
  return new Promise((res) => {
    let code: number | null = null;
    let signal: string | null = null;
    let sawExit = false;
    channel.on('exit', (c: number | null, s?: string) => {
      sawExit = true;
      code = c ?? null;
      signal = s ?? null;
    });
    channel.once('close', () => {
      if (sawExit) return res({ code, signal });
      const error = conn.lost ?? new Error('the channel closed without an exit status');
      res({ code: null, signal: null, error });
    });
  });
}

/** The `leftover PID NAME` lines of killGroupScript's answer, as `PID NAME`. */
export function leftoversOf(said: string): string[] {
  return said
    .split('\n')
    .filter((l) => l.startsWith('leftover '))
    .map((l) => l.slice('leftover '.length).trim());
}

class SshServer implements ServerProcess {
  readonly exited: Promise<ExitInfo>;
  private done = false;
  private stopping: Promise<ExitInfo> | undefined;

  constructor(
    private readonly ex: SshExecutor,
    readonly pgid: number,
    private readonly sink: LogSink,
    exit: Promise<ExitInfo>,
    private readonly launchId: string,
    private readonly forget: () => void,
  ) {
    this.exited = exit.then(async (info) => {
      this.done = true;
      await this.sink.close();
      return info;
    });
  }

  get pid(): number {
    return this.pgid; // the launcher execs the command in the group leader
  }

  get running(): boolean {
    return !this.done;
  }

  onExit(listener: (info: ExitInfo) => void): void {
    void this.exited.then(listener);
  }

  logTail(n?: number): string[] {
    return this.sink.tail(n);
  }

  stop(opts: StopOptions = {}): Promise<ExitInfo> {
    this.stopping ??= (async () => {
      let said = '';
      try {
        // Also after the leader exited or the connection dropped: workers may be left in the group, or outside it
        // (the script also ends the launch's marked processes and the leader's former descendants).
        said = await this.ex.killGroup(this.pgid, opts.graceMs ?? DEFAULT_GRACE_MS, this.launchId);
      } finally {
        this.forget();
      }
      const info = await this.exited;
      const leftovers = leftoversOf(said);
      return leftovers.length ? { ...info, leftovers } : info;
    })();
    return this.stopping;
  }
}

class SshForward implements PortForward {
  readonly localHost = '127.0.0.1';
  localPort = 0;
  onClose: () => void = () => undefined;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly ex: SshExecutor,
    private readonly remoteHost: string,
    private readonly remotePort: number,
  ) {
    this.server = createServer((sock) => this.accept(sock));
  }

  listen(): Promise<void> {
    return new Promise((res, rej) => {
      this.server.once('error', rej);
      this.server.listen(0, this.localHost, () => {
        const addr = this.server.address();
        if (addr && typeof addr === 'object') this.localPort = addr.port;
        res();
      });
    });
  }

  private accept(sock: Socket): void {
    this.sockets.add(sock);
    sock.setNoDelay(true);
    sock.once('close', () => this.sockets.delete(sock));
    sock.on('error', () => sock.destroy());
    this.ex.client().then(
      (client) =>
        client.forwardOut('127.0.0.1', sock.remotePort ?? 0, this.remoteHost, this.remotePort, (err, stream) => {
          if (err) return sock.destroy();
          if (sock.destroyed) return stream.close();
          stream.on('error', () => sock.destroy());
          stream.once('close', () => sock.destroy());
          sock.once('close', () => stream.close());
          sock.pipe(stream).pipe(sock);
        }),
      () => sock.destroy(),
    );
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.onClose();
    return new Promise((res) => this.server.close(() => res()));
  }
}
