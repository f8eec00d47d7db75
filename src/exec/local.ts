// The 'local' target: child processes of ours, each leading a process group of its own so teardown reaches every descendant.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFile, cp, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LAUNCH_ID_ENV, descendantsOf, newLaunchId, sweepLeftovers } from './descendants';
import { childEnv, resolveSecrets } from './env';
import { LogSink, makeRedactor } from './log-sink';
import { groupAlive, terminateGroup } from './process-group';
import type {
  ConnectionLostError,
  ExitInfo,
  Executor,
  PortForward,
  RunOptions,
  RunResult,
  SecretSource,
  ServerProcess,
  StartSpec,
  StopOptions,
} from './types';
import { processEnvSecrets } from './types';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
const DEFAULT_GRACE_MS = 10_000;

export interface LocalExecutorOptions {
  secrets?: SecretSource;
  /** Environment the children start from; default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
}

/** Collects a stream up to a byte limit. */
export class OutputBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part !== chunk) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** How long after its exit a process's pipes may stay open before the exit is told anyway. */
const PIPE_DRAIN_MS = 2000;

function exitOf(child: ChildProcess): Promise<ExitInfo> {
  return new Promise((res) => {
    // 'close' waits for the stdio pipes too, so every output byte is in before the exit is told. A worker it
    // started in a session of its own (TensorRT-LLM's MPI workers) can hold those pipes open long after the
    // server died: then the exit is told once the pipes had PIPE_DRAIN_MS to drain, and they stop being read.
    child.once('close', (code, signal) => res({ code, signal }));
    child.once('exit', (code, signal) => {
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        res({ code, signal });
      }, PIPE_DRAIN_MS).unref();
    });
  });
}

function spawnStarted(child: ChildProcess): Promise<void> {
  return new Promise((res, rej) => {
    child.once('spawn', () => res());
    child.once('error', rej);
  });
}

export class LocalExecutor implements Executor {
  readonly target = 'local';
  readonly pipesStdin = true;
  private readonly secrets: SecretSource;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly live = new Set<LocalServer>();

  constructor(opts: LocalExecutorOptions = {}) {
    this.secrets = opts.secrets ?? processEnvSecrets;
    this.baseEnv = opts.baseEnv ?? process.env;
  }

  describe(): string {
    return `local (pid ${process.pid})`;
  }

  async run(cmd: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
    const [file, ...args] = cmd;
    if (file === undefined) throw new Error('run: empty command');
    const secrets = resolveSecrets(opts.secretEnv, this.secrets);
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: childEnv(this.baseEnv, opts, secrets),
      detached: true, // its own group, so a timeout kills what it spawned too
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const limit = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const out = new OutputBuffer(limit);
    const err = new OutputBuffer(limit);
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    const exited = exitOf(child);
    await spawnStarted(child);
    const pgid = child.pid as number;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void terminateGroup(pgid, 2000);
    }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const info = await exited;
    clearTimeout(timer);
    // Children it left in its group (a daemonising probe) must not outlive the call.
    if (groupAlive(pgid)) await terminateGroup(pgid, 2000);
    const redact = makeRedactor([...secrets.values()]);
    const result: RunResult = {
      code: info.code,
      signal: info.signal,
      stdout: redact(out.text()),
      stderr: redact(err.text()),
    };
    if (timedOut) result.timedOut = true;
    if (out.truncated || err.truncated) result.truncated = true;
    return result;
  }

  async start(spec: StartSpec): Promise<ServerProcess> {
    const [file, ...args] = spec.argv;
    if (file === undefined) throw new Error('start: empty argv');
    const secrets = resolveSecrets(spec.secretEnv, this.secrets);
    const sink = new LogSink({
      file: spec.logFile,
      tailLines: spec.tailLines,
      secretValues: [...secrets.values(), ...(spec.redactValues ?? [])],
      onLine: spec.onLine,
    });
    // Every descendant inherits the launch's marker, whatever group or session it makes: stop() finds them by it.
    const launchId = newLaunchId();
    const child = spawn(file, args, {
      cwd: spec.cwd,
      env: { ...childEnv(this.baseEnv, spec, secrets), [LAUNCH_ID_ENV]: launchId },
      detached: true,
      stdio: [spec.stdin ?? 'ignore', 'pipe', 'pipe'],
    });
    // A stdin written after the process died fails with EPIPE: write() then says false.
    child.stdin?.on('error', () => undefined);
    child.stdout?.on('data', (c: Buffer) => sink.write('stdout', c));
    child.stderr?.on('data', (c: Buffer) => sink.write('stderr', c));
    const exited = exitOf(child);
    try {
      await spawnStarted(child);
    } catch (e) {
      await sink.close();
      throw e;
    }
    const server = new LocalServer(child, sink, exited, launchId, () => this.live.delete(server));
    this.live.add(server);
    return server;
  }

  forward(remotePort: number): Promise<PortForward> {
    // The server already listens on this machine.
    return Promise.resolve({ localHost: '127.0.0.1', localPort: remotePort, close: () => Promise.resolve() });
  }

  async copyBack(remotePath: string, localPath: string): Promise<void> {
    if (resolve(remotePath) === resolve(localPath)) return;
    await cp(remotePath, localPath, { recursive: true, force: true });
  }

  async remove(remotePath: string): Promise<void> {
    await rm(remotePath, { recursive: true, force: true });
  }

  async copyTo(localPath: string, remotePath: string): Promise<void> {
    if (resolve(remotePath) === resolve(localPath)) return;
    await mkdir(dirname(remotePath), { recursive: true });
    const part = `${remotePath}.autobench-part`;
    try {
      await copyFile(localPath, part);
      await rename(part, remotePath);
    } catch (e) {
      await rm(part, { force: true });
      throw e;
    }
  }

  onConnectionLost(_listener: (err: ConnectionLostError) => void): () => void {
    return () => undefined; // a local target has no transport to lose
  }

  async close(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.stop({ graceMs: 2000 })));
  }
}

class LocalServer implements ServerProcess {
  readonly exited: Promise<ExitInfo>;
  readonly pid: number;
  private done = false;
  private stopping: Promise<ExitInfo> | undefined;

  constructor(
    private readonly child: ChildProcess,
    private readonly sink: LogSink,
    exit: Promise<ExitInfo>,
    private readonly launchId: string,
    private readonly forget: () => void,
  ) {
    this.pid = child.pid as number;
    this.exited = exit.then(async (info) => {
      this.done = true;
      await this.sink.close();
      return info;
    });
  }

  get pgid(): number {
    return this.pid;
  }

  get running(): boolean {
    return !this.done;
  }

  write(text: string): boolean {
    const w = this.child.stdin;
    if (!w || w.destroyed || w.writableEnded || this.done) return false;
    w.write(text);
    return true;
  }

  endInput(): void {
    this.child.stdin?.end();
  }

  onExit(listener: (info: ExitInfo) => void): void {
    void this.exited.then(listener);
  }

  logTail(n?: number): string[] {
    return this.sink.tail(n);
  }

  stop(opts: StopOptions = {}): Promise<ExitInfo> {
    // Even after the leader exited, workers it forked may remain in the group.
    this.stopping ??= (async () => {
      const grace = opts.graceMs ?? DEFAULT_GRACE_MS;
      // The tree as it is before TERM: a worker re-parented to init once its parent is gone is still found.
      const snapshot = descendantsOf(this.pid);
      await terminateGroup(this.pgid, grace);
      // What the group kill missed: workers in a group or session of their own (TensorRT-LLM's MPI workers).
      const leftovers = await sweepLeftovers(this.launchId, snapshot, Math.min(grace, 5000));
      // A process that left the group (its own setsid) may still hold our pipes open; stop reading
      // them rather than wait for it forever.
      const timer = setTimeout(() => {
        this.child.stdout?.destroy();
        this.child.stderr?.destroy();
      }, 5000);
      const info = await this.exited;
      clearTimeout(timer);
      this.forget();
      return leftovers.length ? { ...info, leftovers } : info;
    })();
    return this.stopping;
  }
}
