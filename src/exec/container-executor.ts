// A container target over any Executor (local or ssh): servers in a fresh `docker|podman run --rm` per candidate, or `exec` into a container already running; removed on teardown.
//
// Secrets go `-e NAME` on the engine's argv and by name to the inner executor, so the engine CLI
// has the value in its environment and copies it into the container; no command line holds it.
// Teardown, 'run' mode: `stop -t GRACE`, then `rm -f`, then the CLI's own process group.
// Teardown, 'exec' mode: killing the `docker exec` CLI does not kill what it started inside the
// container, so the command runs under setsid there and reports its group, which
// `exec ... kill -TERM -- -PGID` (then KILL) ends.
import { randomBytes } from 'node:crypto';
import { shlexQuote } from '../core/candidates/shell';
import {
  buildContainerInspectArgv,
  buildExecArgv,
  buildImageInspectArgv,
  buildRemoveArgv,
  buildRunArgv,
  buildStopArgv,
  containerName,
  parseContainerInspect,
  parseImageInspect,
} from './container';
import type { ContainerEngine, ContainerRunSpec, ImageInfo } from './container';
import { killGroupScript } from './remote-script';
import type {
  ConnectionLostError,
  ExitInfo,
  Executor,
  ForwardOptions,
  PortForward,
  RunOptions,
  RunResult,
  ServerProcess,
  StartSpec,
  StopOptions,
} from './types';

const DEFAULT_GRACE_MS = 10_000;
export const CONTAINER_PGID_MARKER = '@@autobench-container-pgid ';

export type ContainerRunMode = { kind: 'run' } & Omit<
  ContainerRunSpec,
  'engine' | 'engineBinary' | 'name' | 'command' | 'env' | 'secretEnv' | 'workdir' | 'rm' | 'detach'
> & { namePrefix?: string };

export interface ContainerExecMode {
  kind: 'exec';
  container: string;
}

export interface ContainerTargetOptions {
  engine: ContainerEngine;
  engineBinary?: string;
  mode: ContainerRunMode | ContainerExecMode;
}

export interface ContainerServerProcess extends ServerProcess {
  /** The container ('run' mode) or the one exec'd into. */
  readonly container: string;
}

export class ContainerExecutor implements Executor {
  readonly target: string;
  private readonly live = new Set<ContainerServer>();

  constructor(
    readonly inner: Executor,
    readonly opts: ContainerTargetOptions,
  ) {
    this.target = `${inner.target}+${opts.engine}`;
  }

  describe(): string {
    const m = this.opts.mode;
    return `${this.inner.describe()}, ${this.opts.engine} ${m.kind === 'run' ? `run ${m.image}` : `exec ${m.container}`}`;
  }

  private newName(role: string): string {
    const m = this.opts.mode;
    const prefix = m.kind === 'run' ? (m.namePrefix ?? 'autobench') : 'autobench';
    return containerName(prefix, role, randomBytes(4).toString('hex'));
  }

  private runSpec(name: string, command: readonly string[], o: RunOptions | StartSpec): ContainerRunSpec {
    const m = this.opts.mode as ContainerRunMode;
    const { kind: _kind, namePrefix: _prefix, ...rest } = m;
    const spec: ContainerRunSpec = { ...rest, engine: this.opts.engine, name, command };
    if (this.opts.engineBinary) spec.engineBinary = this.opts.engineBinary;
    if (o.env) spec.env = o.env;
    if (o.secretEnv) spec.secretEnv = o.secretEnv;
    if (o.cwd) spec.workdir = o.cwd;
    return spec;
  }

  private execArgv(argv: readonly string[], o: { env?: Readonly<Record<string, string>>; secretEnv?: readonly string[]; cwd?: string }): string[] {
    const m = this.opts.mode as ContainerExecMode;
    return buildExecArgv({
      engine: this.opts.engine,
      ...(this.opts.engineBinary ? { engineBinary: this.opts.engineBinary } : {}),
      container: m.container,
      argv,
      ...(o.env ? { env: o.env } : {}),
      ...(o.secretEnv ? { secretEnv: o.secretEnv } : {}),
      ...(o.cwd ? { workdir: o.cwd } : {}),
    });
  }

  private engineArgv(build: (engine: ContainerEngine, name: string, bin?: string) => string[], name: string): string[] {
    return build(this.opts.engine, name, this.opts.engineBinary);
  }

  async run(cmd: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
    const pass: RunOptions = { ...opts, env: undefined, cwd: undefined };
    if (this.opts.mode.kind === 'exec') return this.inner.run(this.execArgv(cmd, opts), pass);
    const name = this.newName('probe');
    const result = await this.inner.run(buildRunArgv(this.runSpec(name, cmd, opts)), pass);
    // The CLI was killed on timeout; the container may still run.
    if (result.timedOut) await this.inner.run(this.engineArgv(buildRemoveArgv, name), { timeoutMs: 60_000 }).catch(() => undefined);
    return result;
  }

  async start(spec: StartSpec): Promise<ContainerServerProcess> {
    const base = {
      ...(spec.secretEnv ? { secretEnv: spec.secretEnv } : {}),
      ...(spec.logFile ? { logFile: spec.logFile } : {}),
      ...(spec.tailLines ? { tailLines: spec.tailLines } : {}),
      ...(spec.redactValues ? { redactValues: spec.redactValues } : {}),
    };
    if (this.opts.mode.kind === 'run') {
      const name = this.newName('server');
      const argv = buildRunArgv(this.runSpec(name, spec.argv, spec));
      const proc = await this.inner.start({ ...base, argv, ...(spec.onLine ? { onLine: spec.onLine } : {}) });
      const server = new ContainerServer(proc, name, async (graceMs) => {
        await this.inner.run(this.engineArgv((e, n, b) => buildStopArgv(e, n, graceMs, b), name), { timeoutMs: graceMs + 30_000 }).catch(() => undefined);
        await this.inner.run(this.engineArgv(buildRemoveArgv, name), { timeoutMs: 60_000 }).catch(() => undefined);
      }, () => this.live.delete(server));
      this.live.add(server);
      return server;
    }
    const container = this.opts.mode.container;
    let cpgid: number | undefined;
    let marked: () => void = () => undefined;
    const markerSeen = new Promise<void>((r) => (marked = r));
    const onLine = (line: string): boolean | void => {
      if (cpgid === undefined && line.startsWith(CONTAINER_PGID_MARKER)) {
        const n = Number(line.slice(CONTAINER_PGID_MARKER.length).trim());
        if (Number.isInteger(n) && n > 1) {
          cpgid = n;
          marked();
          return true;
        }
      }
      return spec.onLine?.(line);
    };
    const inside = `printf '%s%s\\n' ${shlexQuote(CONTAINER_PGID_MARKER)} "$$" >&2; exec "$@" 2>&1`;
    const argv = this.execArgv(['setsid', '-w', 'sh', '-c', inside, 'autobench', ...spec.argv], spec);
    const proc = await this.inner.start({ ...base, argv, onLine });
    // The marker comes on stderr, the server's output on stdout: wait for it, or a stop() right
    // after start() would not know which group to kill inside the container.
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([
      markerSeen.then(() => 'marked' as const),
      proc.exited.then(() => 'exited' as const),
      new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 30_000))),
    ]);
    clearTimeout(timer);
    if (first !== 'marked') {
      await proc.stop({ graceMs: 2000 });
      throw new Error(`${this.opts.engine} exec ${container}: the command did not start (${first})${proc.logTail(20).length ? `:\n${proc.logTail(20).join('\n')}` : ''}`);
    }
    const server = new ContainerServer(proc, container, async (graceMs) => {
      if (cpgid === undefined) return;
      await this.inner
        .run(this.execArgv(['sh', '-c', killGroupScript(cpgid, graceMs)], {}), { timeoutMs: graceMs + 30_000 })
        .catch(() => undefined);
    }, () => this.live.delete(server));
    this.live.add(server);
    return server;
  }

  /** The image's id, tags and repo digests ('exec' mode: of the container's image). */
  async imageInfo(): Promise<ImageInfo & { image: string }> {
    const m = this.opts.mode;
    let image: string;
    let ref: string;
    if (m.kind === 'run') {
      image = ref = m.image;
    } else {
      const r = await this.inner.run(this.engineArgv(buildContainerInspectArgv, m.container), { timeoutMs: 60_000 });
      if (r.code !== 0) throw new Error(`${this.opts.engine} container inspect ${m.container}: ${r.stderr.trim() || `exit ${r.code}`}`);
      const c = parseContainerInspect(r.stdout);
      image = c.image;
      ref = c.imageId || c.image;
    }
    const r = await this.inner.run(buildImageInspectArgv(this.opts.engine, ref, this.opts.engineBinary), { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(`${this.opts.engine} image inspect ${ref}: ${r.stderr.trim() || `exit ${r.code}`}`);
    return { image, ...parseImageInspect(r.stdout) };
  }

  forward(remotePort: number, opts?: ForwardOptions): Promise<PortForward> {
    // --network host (or -p hostPort:containerPort with the same number) puts the port on the host.
    return this.inner.forward(remotePort, opts);
  }

  copyBack(remotePath: string, localPath: string): Promise<void> {
    // Paths on the host: artifacts leave the container through a mounted volume.
    return this.inner.copyBack(remotePath, localPath);
  }

  async copyTo(localPath: string, remotePath: string): Promise<void> {
    // Paths on the host, as copyBack's: files reach a container through a mounted volume.
    if (!this.inner.copyTo) throw new Error(`${this.inner.target} cannot take files`);
    await this.inner.copyTo(localPath, remotePath);
  }

  onConnectionLost(listener: (err: ConnectionLostError) => void): () => void {
    return this.inner.onConnectionLost(listener);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.live].map((s) => s.stop({ graceMs: 2000 })));
    await this.inner.close();
  }
}

class ContainerServer implements ContainerServerProcess {
  private stopping: Promise<ExitInfo> | undefined;

  constructor(
    private readonly proc: ServerProcess,
    readonly container: string,
    private readonly teardown: (graceMs: number) => Promise<void>,
    private readonly forget: () => void,
  ) {}

  get pid(): number {
    return this.proc.pid;
  }
  get pgid(): number {
    return this.proc.pgid;
  }
  get exited(): Promise<ExitInfo> {
    return this.proc.exited;
  }
  get running(): boolean {
    return this.proc.running;
  }
  onExit(listener: (info: ExitInfo) => void): void {
    this.proc.onExit(listener);
  }
  logTail(n?: number): string[] {
    return this.proc.logTail(n);
  }

  stop(opts: StopOptions = {}): Promise<ExitInfo> {
    this.stopping ??= (async () => {
      try {
        await this.teardown(opts.graceMs ?? DEFAULT_GRACE_MS);
        // The engine CLI normally exits with its container; make sure of it.
        return await this.proc.stop({ graceMs: 2000 });
      } finally {
        this.forget();
      }
    })();
    return this.stopping;
  }
}
